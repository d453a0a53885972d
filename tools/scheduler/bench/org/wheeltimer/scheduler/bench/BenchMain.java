// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * BenchMain.java - the cluster scheduler against Quartz's clustered JDBC
 * job store, with the same jobs, nodes and database, in one run
 */
package org.wheeltimer.scheduler.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.Scheduler;
import org.quartz.SimpleScheduleBuilder;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.quartz.impl.StdSchedulerFactory;
import org.wheeltimer.scheduler.Micros;
import org.wheeltimer.scheduler.test.NodeMain;
import org.wheeltimer.scheduler.test.NodeProcess;

/**
 * {@code BenchMain OUTDIR [--quick] [--runs N]}, run by
 * {@code pg-run --bench}: three node JVMs of each scheduler in turn on the
 * same server, each step with the same one-shot jobs (due uniformly over
 * {@code D} seconds at a rate across the cluster, at whole milliseconds),
 * inserted before the nodes start (Quartz's lock rows too, so that its
 * nodes do not race to create them). A job's lateness is its start (the
 * handler's first instruction) minus its scheduled time, noted by each
 * node in a file ({@link org.wheeltimer.scheduler.test.Recorder}); a job
 * that starts before its time is counted apart, as early, and left out of
 * the lateness. Each step begins with {@value #WARMUP_S} s of jobs at its
 * rate that are not counted (the JVMs are new: their JIT warms up, and
 * Quartz's nodes check in), then measures {@code D} seconds. Rates climb
 * 100, 300, 1 000, 3 000, 10 000, 30 000 a second until the p99 reaches a
 * second; past that rate a scheduler is still measured at the table's
 * rates (100, 1 000 and 10 000) up to ten times it. A job not run within
 * 30 s after the last is due counts as infinitely late. Then at 1 000 a
 * second, one node is killed (kill -9) 7 s in: the time until every job
 * due in the second after the kill has started, jobs not run within a
 * minute after the last was due, and jobs run twice. All of it N times
 * ({@code --runs}, 3), the schedulers' steps taking turns, so that a load
 * the machine carries meanwhile falls on both; the table gives each
 * figure's median over the runs and the p99's spread, and each step's
 * machine load (the 1-minute load average at its start and end).
 * --quick: 100 and 1 000 a second for 3 s, one run, no kill: a smoke run.
 */
public final class BenchMain {
    private static final String WT_DB = "bench_wt";
    private static final String QZ_DB = "bench_quartz";
    private static final List<String> SCHEDULERS = List.of("wheeltimer", "quartz");
    private static final long CAP_US = 30_000_000;
    private static final long SUSTAINED_P99_US = 1_000_000;
    private static final int WARMUP_S = 10;
    /* The loggers quietened here (java.util.logging keeps them weakly). */
    private static final List<java.util.logging.Logger> QUIET = List.of(
            java.util.logging.Logger.getLogger("org.quartz"),
            java.util.logging.Logger.getLogger("com.zaxxer.hikari"));

    private final String server;
    private final String user;
    private final String password;
    private final Path out;
    private final PrintStream log;
    private String engine = "?";

    /** One step's result. */
    record Step(String scheduler, int rate, int jobs, long p50, long p99, long max, int notRun,
                int twice, int early, long earliest, long wheelP50, long wheelP99, double statementsPerS,
                double lockingPerS, double transactionsPerS, double rowsPerS, double waitingPercent,
                double meanWaiters, long maxWaiters, double otherWaitingPercent, boolean lateStart,
                double loadBefore, double loadAfter) {
        boolean sustained() {
            return notRun == 0 && p99 < SUSTAINED_P99_US && !lateStart;
        }
    }

    private BenchMain(String url, String user, String password, Path out) throws IOException {
        this.server = url.substring(0, url.lastIndexOf('/') + 1);
        this.user = user;
        this.password = password;
        this.out = out;
        this.log = new PrintStream(Files.newOutputStream(out.resolve("results.txt")), true,
                                   StandardCharsets.UTF_8);
    }

    public static void main(String[] args) throws Exception {
        QUIET.forEach(l -> l.setLevel(java.util.logging.Level.WARNING));
        Path out = Path.of(args[0]);
        Files.createDirectories(out);
        List<String> options = Arrays.asList(args);
        boolean quick = options.contains("--quick");
        int runs = options.contains("--runs") ? Integer.parseInt(options.get(options.indexOf("--runs") + 1))
                : quick ? 1 : 3;
        BenchMain b = new BenchMain(System.getenv("WT_PG_URL"), System.getenv("PGUSER"),
                                    System.getenv("PGPASSWORD"), out);
        b.setup();
        int seconds = quick ? 3 : 10;
        List<Integer> ladder = quick ? List.of(100, 1000) : List.of(100, 300, 1000, 3000, 10000, 30000);
        List<Integer> table = quick ? List.of(100, 1000) : List.of(100, 1000, 10000);
        List<Run> results = new ArrayList<>();
        for (int run = 1; run <= runs; run++) {
            b.say("# run " + run + " of " + runs);
            Map<String, Step> steps = new LinkedHashMap<>();
            Map<String, Integer> sustained = new HashMap<>();
            Map<String, Integer> missed = new HashMap<>();
            for (int rate : ladder) {
                for (String s : SCHEDULERS) {
                    Integer m = missed.get(s);
                    if (m != null && (!table.contains(rate) || rate > 10 * m)) {
                        continue;
                    }
                    Step st = b.step(s, rate, seconds);
                    steps.put(s + "@" + rate, st);
                    if (m == null && st.sustained()) {
                        sustained.put(s, rate);
                    } else if (m == null) {
                        missed.put(s, rate);
                    }
                }
            }
            Map<String, String> resume = new HashMap<>();
            if (!quick) {
                for (String s : SCHEDULERS) {
                    resume.put(s, b.kill(s));
                }
            }
            results.add(new Run(steps, sustained, missed, resume));
        }
        b.report(results, table, ladder);
    }

    /** One run of the whole ladder: its steps, the highest rate each scheduler sustained, where each missed. */
    private record Run(Map<String, Step> steps, Map<String, Integer> sustained, Map<String, Integer> missed,
                       Map<String, String> resume) {
    }

    // ---- setup ----

    private Connection connect(String db) throws SQLException {
        return DriverManager.getConnection(server + db, user, password);
    }

    private void setup() throws Exception {
        try (Connection c = connect("postgres"); Statement st = c.createStatement()) {
            st.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
            st.execute("CREATE DATABASE " + WT_DB);
            st.execute("CREATE DATABASE " + QZ_DB);
        }
        try (Connection c = connect(WT_DB)) {
            org.wheeltimer.scheduler.Scheduler.installSchema(c);
        }
        // Quartz's own tables, from the script Debian's jar carries.
        try (InputStream in = StdSchedulerFactory.class.getResourceAsStream(
                "/org/quartz/impl/jdbcjobstore/tables_postgres.sql");
             Connection c = connect(QZ_DB); Statement st = c.createStatement()) {
            st.execute(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        // Quartz creates its lock rows when it first needs them; nodes that
        // start together race to, and the loser's first check-in fails
        // (and 15 s later it takes its own jobs in flight for a dead
        // node's, and runs them again). An installation has them already.
        try (Connection c = connect(QZ_DB); Statement st = c.createStatement()) {
            st.execute("INSERT INTO qrtz_locks (sched_name, lock_name)"
                    + " VALUES ('bench', 'TRIGGER_ACCESS'), ('bench', 'STATE_ACCESS')");
        }
        say("# the cluster scheduler against Quartz 2.3.2 (JobStoreTX, clustered, PostgreSQLDelegate)");
        say("# " + Runtime.getRuntime().availableProcessors() + " CPUs, " + System.getProperty("java.vm.name")
                + " " + System.getProperty("java.version") + ", PostgreSQL with fsync and synchronous commit on");
    }

    private void say(String s) {
        System.out.println(s);
        System.out.flush();
        log.println(s);
    }

    // ---- one step ----

    /** Due times at {@code rate} a second over {@code seconds}, whole ms, from {@code t0Us}. */
    private static long[] times(int rate, int seconds, long t0Us) {
        int n = rate * seconds;
        long[] t = new long[n];
        Random r = new Random(rate);
        for (int i = 0; i < n; i++) {
            t[i] = (t0Us / 1000 + (long) (r.nextDouble() * seconds * 1000)) * 1000;
        }
        return t;
    }

    /** A step's jobs, inserted, and its nodes, started and ready (or late: not by {@code t0}). */
    private record Prepared(long[] due, long t0, List<NodeProcess> nodes, boolean late) {
    }

    /**
     * Inserts the jobs (due from a lead ahead), starts the nodes and waits
     * for them. A machine busy enough that this outlasts the lead has it
     * done again with twice the time it took, up to three times.
     */
    private Prepared prepare(String scheduler, int rate, int seconds, String tag) throws Exception {
        long lead = 12_000_000L + rate * seconds * 100L;
        for (int attempt = 1;; attempt++) {
            long start = Micros.now();
            long t0 = start + lead;
            long[] due = times(rate, seconds, t0);
            clean(scheduler);
            insert(scheduler, due);
            List<NodeProcess> nodes = startNodes(scheduler, tag);
            try {
                awaitReady(scheduler, nodes);
            } catch (RuntimeException e) {
                killAll(nodes);
                throw e;
            }
            long took = Micros.now() - start;
            if (took < lead - 1_000_000 || attempt == 3) {
                return new Prepared(due, t0, nodes, took >= lead);
            }
            say(String.format(Locale.ROOT, "%-10s %6d/s: setting up took %.1f s, more than its lead of %.1f s:"
                    + " again", scheduler, rate, took / 1e6, lead / 1e6));
            killAll(nodes);
            lead = 2 * took + 2_000_000;
        }
    }

    private static void killAll(List<NodeProcess> nodes) throws InterruptedException {
        for (NodeProcess p : nodes) {
            if (p.alive()) {
                p.kill();
            }
        }
    }

    private Step step(String scheduler, int rate, int seconds) throws Exception {
        String tag = scheduler + "-" + rate;
        Prepared prep = prepare(scheduler, rate, WARMUP_S + seconds, tag);
        long[] due = prep.due();
        int n = due.length;
        long from = prep.t0() + WARMUP_S * 1_000_000L;
        long to = from + seconds * 1_000_000L;
        String db = scheduler.equals("quartz") ? QZ_DB : WT_DB;
        List<NodeProcess> nodes = prep.nodes();
        try (Connection c = connect("postgres")) {
            boolean lateStart = prep.late();
            double loadBefore = loadAverage();
            sleepUntil(from);
            DbStats.Counters before = DbStats.read(c, db);
            DbStats.Sampler sampler;
            try (Connection sc = connect("postgres")) {
                sampler = new DbStats.Sampler(sc);
                sleepUntil(to);
                sampler.close();
            }
            DbStats.Counters d = DbStats.read(c, db).minus(before);
            double loadAfter = loadAverage();
            awaitRecords(tag, n, to + CAP_US);
            for (NodeProcess p : nodes) {
                p.stop();
            }
            Lateness l = Lateness.of(readRecords(tag), due, from, to);
            long[] wheel = scheduler.equals("quartz") ? new long[] {-1, -1} : wheelLateness(from, to);
            Step st = new Step(scheduler, rate, l.jobs, l.p50, l.p99, l.max, l.notRun, l.twice, l.early,
                               l.earliest, wheel[0], wheel[1],
                               (double) d.statements() / seconds, (double) d.lockingStatements() / seconds,
                               (double) d.transactions() / seconds, (double) d.rowsWritten() / seconds,
                               sampler.waitingPercent(), sampler.meanWaiters(), sampler.maxWaiters(),
                               sampler.otherWaitingPercent(), lateStart, loadBefore, loadAfter);
            say(String.format(Locale.ROOT, "%-10s %6d/s: lateness p50 %s p99 %s max %s, not run %d, twice %d,"
                    + " early %d (by up to %s)%s;"
                    + " %.0f statements/s (%.0f locking rows), %.0f transactions/s, %.0f rows written/s;"
                    + " a row lock waited for in %.1f%% of samples (mean %.2f, max %d backends),"
                    + " another lock in %.1f%%; load %.1f to %.1f%s",
                    scheduler, rate, ms(l.p50), ms(l.p99), ms(l.max), l.notRun, l.twice, l.early, ms(l.earliest),
                    wheel[0] < 0 ? "" : "; fired by the wheel p50 " + ms(wheel[0]) + " p99 " + ms(wheel[1]),
                    st.statementsPerS(), st.lockingPerS(), st.transactionsPerS(), st.rowsPerS(),
                    st.waitingPercent(), st.meanWaiters(), st.maxWaiters(), st.otherWaitingPercent(),
                    loadBefore, loadAfter, lateStart ? " (NOTE: the nodes were not ready by the first job)" : ""));
            return st;
        } finally {
            killAll(nodes);
        }
    }

    /** Our nodes' wheel's own lateness (fired_at - scheduled_at in the run log), p50 and p99, in µs. */
    private long[] wheelLateness(long fromUs, long toUs) throws SQLException {
        try (Connection c = connect(WT_DB);
             PreparedStatement ps = c.prepareStatement("""
                     SELECT percentile_disc(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY fired_at - scheduled_at)
                       FROM wt_run WHERE scheduled_at >= ? AND scheduled_at < ?""")) {
            ps.setObject(1, java.time.OffsetDateTime.ofInstant(Micros.toInstant(fromUs), java.time.ZoneOffset.UTC));
            ps.setObject(2, java.time.OffsetDateTime.ofInstant(Micros.toInstant(toUs), java.time.ZoneOffset.UTC));
            try (var rs = ps.executeQuery()) {
                rs.next();
                String[] v = rs.getString(1).replaceAll("[{}\"]", "").split(",");
                return new long[] {intervalUs(v[0]), intervalUs(v[1])};
            }
        }
    }

    /** An interval as PostgreSQL prints it, "00:00:00.001234", in µs. */
    private static long intervalUs(String s) {
        String[] hms = s.trim().split(":");
        return Math.round((Long.parseLong(hms[0]) * 3600 + Long.parseLong(hms[1]) * 60
                           + Double.parseDouble(hms[2])) * 1e6);
    }

    /**
     * At 1 000 jobs a second for 20 s, kills one node 7 s in: the time from
     * the kill until every job due in the following second had started,
     * jobs not run within a minute after the last was due, and jobs run twice.
     */
    private String kill(String scheduler) throws Exception {
        int rate = 1000;
        int seconds = 20;
        int n = rate * seconds;
        String tag = scheduler + "-kill";
        Prepared prep = prepare(scheduler, rate, seconds, tag);
        long[] due = prep.due();
        long t0 = prep.t0();
        List<NodeProcess> nodes = prep.nodes();
        try {
            sleepUntil(t0 + 7_000_000);
            long killed = Micros.now();
            nodes.get(1).kill();
            awaitRecords(tag, n, t0 + seconds * 1_000_000L + 60_000_000L);
            for (NodeProcess p : nodes) {
                if (p.alive()) {
                    p.stop();
                }
            }
            Map<Integer, List<long[]>> recs = readRecords(tag);
            long resume = 0;
            int notRun = 0;
            int secondNotRun = 0;
            int twice = 0;
            for (int k = 0; k < n; k++) {
                List<long[]> r = recs.get(k);
                boolean inSecond = due[k] >= killed && due[k] < killed + 1_000_000;
                if (r == null) {
                    notRun++;
                    secondNotRun += inSecond ? 1 : 0;
                    continue;
                }
                if (r.size() > 1) {
                    twice++;
                }
                if (inSecond) {
                    long first = r.stream().mapToLong(x -> x[1]).min().getAsLong();
                    resume = Math.max(resume, first - killed);
                }
            }
            String s = secondNotRun > 0
                    ? String.format(Locale.ROOT, "not all started (%d of them not run 60 s after the last job was due;"
                            + " %d of all %d not run, %d run twice)", secondNotRun, notRun, n, twice)
                    : String.format(Locale.ROOT, "%.2f s (%d of %d jobs not run, %d run twice)",
                                    resume / 1e6, notRun, n, twice);
            say(String.format(Locale.ROOT, "%-10s kill -9 of one node of three at 1000/s: the jobs due in the"
                    + " next second had %s", scheduler, secondNotRun > 0 ? s : "all started after " + s));
            return s;
        } finally {
            killAll(nodes);
        }
    }

    // ---- the schedulers' jobs and nodes ----

    private void clean(String scheduler) throws SQLException {
        try (Connection c = connect(scheduler.equals("quartz") ? QZ_DB : WT_DB);
             Statement st = c.createStatement()) {
            if (scheduler.equals("quartz")) {
                st.execute("TRUNCATE qrtz_fired_triggers, qrtz_simple_triggers, qrtz_triggers,"
                        + " qrtz_job_details, qrtz_scheduler_state CASCADE");
            } else {
                st.execute("TRUNCATE wt_job, wt_run, wt_node");
            }
        }
    }

    /** The jobs: job k is due at due[k]; its key (payload, or Quartz job name "j" + k) is k. */
    private void insert(String scheduler, long[] due) throws Exception {
        String[] at = new String[due.length];
        Long[] ms = new Long[due.length];
        for (int k = 0; k < due.length; k++) {
            at[k] = Micros.toInstant(due[k]).toString();
            ms[k] = due[k] / 1000;
        }
        if (!scheduler.equals("quartz")) {
            try (Connection c = connect(WT_DB)) {
                try (PreparedStatement ps = c.prepareStatement("""
                        INSERT INTO wt_job (handler, payload, mode, start_at)
                        SELECT 'noop', (k - 1)::text, 'once', t
                          FROM unnest(?::timestamptz[]) WITH ORDINALITY AS f(t, k)""")) {
                    ps.setArray(1, c.createArrayOf("text", at));
                    ps.executeUpdate();
                }
                try (Statement st = c.createStatement()) {
                    st.execute("ANALYZE wt_job");
                }
            }
            return;
        }
        // One job and trigger made by Quartz itself, then copied in bulk
        // with each copy's own name and time: what Quartz would have
        // written for each, without its hour of single inserts.
        Scheduler loader = new StdSchedulerFactory(QuartzNode.settings("loader", server + QZ_DB, user, password))
                .getScheduler();
        JobDetail job = JobBuilder.newJob(QuartzNode.BenchJob.class).withIdentity("template", "bench")
                .requestRecovery(true).build();
        Trigger trigger = TriggerBuilder.newTrigger().withIdentity("template", "bench")
                .startAt(new Date(System.currentTimeMillis() + 3_600_000))
                .withSchedule(SimpleScheduleBuilder.simpleSchedule().withMisfireHandlingInstructionFireNow())
                .build();
        loader.scheduleJob(job, trigger);
        loader.shutdown();
        try (Connection c = connect(QZ_DB)) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("""
                    INSERT INTO qrtz_job_details
                    SELECT d.sched_name, 'j' || (f.k - 1), d.job_group, d.description, d.job_class_name,
                           d.is_durable, d.is_nonconcurrent, d.is_update_data, d.requests_recovery, d.job_data
                      FROM qrtz_job_details d, unnest(?::bigint[]) WITH ORDINALITY AS f(t, k)
                     WHERE d.job_name = 'template'""")) {
                ps.setArray(1, c.createArrayOf("bigint", ms));
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement("""
                    INSERT INTO qrtz_triggers
                    SELECT t.sched_name, 't' || (f.k - 1), t.trigger_group, 'j' || (f.k - 1), t.job_group,
                           t.description, f.t, t.prev_fire_time, t.priority, t.trigger_state, t.trigger_type,
                           f.t, t.end_time, t.calendar_name, t.misfire_instr, t.job_data
                      FROM qrtz_triggers t, unnest(?::bigint[]) WITH ORDINALITY AS f(t, k)
                     WHERE t.trigger_name = 'template'""")) {
                ps.setArray(1, c.createArrayOf("bigint", ms));
                ps.executeUpdate();
            }
            try (PreparedStatement ps = c.prepareStatement("""
                    INSERT INTO qrtz_simple_triggers
                    SELECT s.sched_name, 't' || (f.k - 1), s.trigger_group, s.repeat_count,
                           s.repeat_interval, s.times_triggered
                      FROM qrtz_simple_triggers s, generate_series(1, ?) AS f(k)
                     WHERE s.trigger_name = 'template'""")) {
                ps.setInt(1, due.length);
                ps.executeUpdate();
            }
            try (Statement st = c.createStatement()) {
                st.execute("DELETE FROM qrtz_simple_triggers WHERE trigger_name = 'template'");
                st.execute("DELETE FROM qrtz_triggers WHERE trigger_name = 'template'");
                st.execute("DELETE FROM qrtz_job_details WHERE job_name = 'template'");
                st.execute("DELETE FROM qrtz_scheduler_state");
            }
            c.commit();
            c.setAutoCommit(true);
            try (Statement st = c.createStatement()) {
                st.execute("ANALYZE qrtz_job_details, qrtz_triggers, qrtz_simple_triggers");
            }
        }
    }

    private List<NodeProcess> startNodes(String scheduler, String tag) throws IOException {
        List<NodeProcess> nodes = new ArrayList<>();
        List<String> jvm = List.of("-Xmx1g");
        for (int i = 1; i <= 3; i++) {
            String name = "n" + i;
            Path record = out.resolve(tag + "-" + name + ".runs");
            Files.deleteIfExists(record);
            Path logFile = out.resolve(tag + "-" + name + ".log");
            List<String> args = new ArrayList<>(List.of("--name", name, "--user", user, "--password", password,
                                                        "--record", record.toString()));
            if (scheduler.equals("quartz")) {
                args.addAll(List.of("--url", server + QZ_DB));
                nodes.add(new NodeProcess(name, QuartzNode.class.getName(), jvm, logFile, args));
            } else {
                args.addAll(List.of("--url", server + WT_DB));
                nodes.add(new NodeProcess(name, NodeMain.class.getName(), jvm, logFile, args));
            }
        }
        return nodes;
    }

    /** Until every node has started and (ours) loaded its share of the three-node ring. */
    private void awaitReady(String scheduler, List<NodeProcess> nodes) throws Exception {
        long deadline = System.nanoTime() + 300_000_000_000L;
        for (NodeProcess p : nodes) {
            for (;;) {
                String l = p.log();
                boolean ready = l.contains("started ")
                        && (scheduler.equals("quartz") || l.contains("ring [n1, n2, n3]"));
                if (ready) {
                    if (l.contains("engine")) {
                        engine = l.substring(l.indexOf(" on the ") + 8, l.indexOf(" engine"));
                    }
                    break;
                }
                if (!p.alive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException(p.name + " did not start: " + l);
                }
                Thread.sleep(100);
            }
        }
    }

    /** Until the nodes have noted {@code n} starts, or {@code untilUs}. */
    private void awaitRecords(String tag, int n, long untilUs) throws Exception {
        while (Micros.now() < untilUs) {
            long lines = 0;
            for (int i = 1; i <= 3; i++) {
                Path p = out.resolve(tag + "-n" + i + ".runs");
                if (Files.exists(p)) {
                    try (var s = Files.lines(p)) {
                        lines += s.count();
                    }
                }
            }
            if (lines >= n) {
                return;
            }
            Thread.sleep(500);
        }
    }

    /** Each key's starts: [scheduled µs, start µs]. */
    private Map<Integer, List<long[]>> readRecords(String tag) throws IOException {
        Map<Integer, List<long[]>> recs = new HashMap<>();
        for (int i = 1; i <= 3; i++) {
            Path p = out.resolve(tag + "-n" + i + ".runs");
            if (!Files.exists(p)) {
                continue;
            }
            for (String line : Files.readAllLines(p)) {
                String[] w = line.split(" ");
                if (w.length == 3) {
                    recs.computeIfAbsent(Integer.parseInt(w[0]), k -> new ArrayList<>())
                            .add(new long[] {Long.parseLong(w[1]), Long.parseLong(w[2])});
                }
            }
        }
        return recs;
    }

    /**
     * Latenesses of the first start of each job due in [fromUs, toUs); one
     * never started counts as infinitely late; one that started before its
     * time is counted as early (with the most any was early by), and not
     * among the latenesses.
     */
    private record Lateness(int jobs, long p50, long p99, long max, int notRun, int twice, int early,
                            long earliest) {
        static Lateness of(Map<Integer, List<long[]>> recs, long[] due, long fromUs, long toUs) {
            long[] l = new long[due.length];
            int n = 0;
            int jobs = 0;
            int notRun = 0;
            int twice = 0;
            int early = 0;
            long earliest = 0;
            for (int k = 0; k < due.length; k++) {
                if (due[k] < fromUs || due[k] >= toUs) {
                    continue;
                }
                jobs++;
                List<long[]> r = recs.get(k);
                if (r == null) {
                    notRun++;
                    l[n++] = Long.MAX_VALUE;
                    continue;
                }
                if (r.size() > 1) {
                    twice++;
                }
                long late = r.stream().mapToLong(x -> x[1]).min().getAsLong() - due[k];
                if (late < 0) {
                    early++;
                    earliest = Math.max(earliest, -late);
                    continue;
                }
                l[n++] = late;
            }
            l = Arrays.copyOf(l, n);
            Arrays.sort(l);
            return n == 0 ? new Lateness(jobs, 0, 0, 0, notRun, twice, early, earliest)
                    : new Lateness(jobs, l[(int) ((n - 1) * 0.50)], l[(int) ((n - 1) * 0.99)], l[n - 1], notRun,
                                   twice, early, earliest);
        }
    }

    /** The 1-minute load average of the machine, as /proc/loadavg gives it. */
    private static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    private static String ms(long us) {
        return us == Long.MAX_VALUE ? "(not run)" : String.format(Locale.ROOT, "%.1f ms", us / 1000.0);
    }

    private static void sleepUntil(long us) throws InterruptedException {
        long ms = (us - Micros.now()) / 1000;
        if (ms > 0) {
            Thread.sleep(ms);
        }
    }

    // ---- the table ----

    private void report(List<Run> runs, List<Integer> table, List<Integer> ladder) {
        say("");
        say("wheeltimer's engine: " + engine + "; 3 nodes of each, one after the other, on "
                + Runtime.getRuntime().availableProcessors() + " CPUs shared with the database; "
                + runs.size() + " runs; each cell the median of the runs (p99: and its range)");
        say("");
        StringBuilder head = new StringBuilder("| measurement |");
        StringBuilder rule = new StringBuilder("| --- |");
        for (int rate : table) {
            for (String s : SCHEDULERS) {
                head.append(' ').append(s.equals("quartz") ? "Quartz" : "wheeltimer").append(", ")
                        .append(String.format(Locale.ROOT, "%,d", rate)).append("/s |");
                rule.append(" --- |");
            }
        }
        say(head.toString());
        say(rule.toString());
        row(runs, table, "lateness p50 / p99 (range) / max, ms", st -> ms0(median(st, Step::p50)) + " / "
                + ms0(median(st, Step::p99)) + " (" + ms0(min(st, Step::p99)) + " to " + ms0(max(st, Step::p99))
                + ") / " + ms0(median(st, Step::max)));
        row(runs, table, "jobs not run within 30 s, in each run", st -> counts(st, Step::notRun, Step::jobs));
        row(runs, table, "jobs started early, in each run (by up to, ms)", st -> counts(st, Step::early, Step::jobs)
                + " (" + ms0(max(st, Step::earliest)) + ")");
        row(runs, table, "fired by the wheel (run log's fired_at) p50 / p99, ms",
            st -> st.get(0).wheelP50() < 0 ? "" : ms0(median(st, Step::wheelP50)) + " / " + ms0(median(st, Step::wheelP99)));
        row(runs, table, "statements per second", st -> String.format(Locale.ROOT, "%.0f", medianD(st, Step::statementsPerS)));
        row(runs, table, "row-locking statements (FOR UPDATE) per second",
            st -> String.format(Locale.ROOT, "%.0f", medianD(st, Step::lockingPerS)));
        row(runs, table, "transactions per second", st -> String.format(Locale.ROOT, "%.0f", medianD(st, Step::transactionsPerS)));
        row(runs, table, "row-lock waits: % of 10 ms samples with a backend waiting (mean waiters)",
            st -> String.format(Locale.ROOT, "%.1f%% (%.2f)", medianD(st, Step::waitingPercent), medianD(st, Step::meanWaiters)));
        row(runs, table, "other lock waits (a table's extension...): % of samples",
            st -> String.format(Locale.ROOT, "%.1f%%", medianD(st, Step::otherWaitingPercent)));
        row(runs, table, "machine load (1-minute average) during the steps",
            st -> String.format(Locale.ROOT, "%.1f to %.1f", st.stream().mapToDouble(x -> Math.min(x.loadBefore(), x.loadAfter())).min().orElse(0),
                                st.stream().mapToDouble(x -> Math.max(x.loadBefore(), x.loadAfter())).max().orElse(0)));
        say("");
        for (String s : SCHEDULERS) {
            List<String> top = new ArrayList<>();
            List<String> resumed = new ArrayList<>();
            for (Run r : runs) {
                Integer rate = r.sustained().get(s);
                Integer m = r.missed().get(s);
                top.add((rate == null ? "none" : String.format(Locale.ROOT, "%,d/s", rate))
                        + (m == null ? " (the highest tried)" : String.format(Locale.ROOT, " (missed %,d/s)", m)));
                if (r.resume().containsKey(s)) {
                    resumed.add(r.resume().get(s));
                }
            }
            say(s + ": highest rate of " + ladder + " with p99 lateness under 1 s, in each run: " + top
                    + (resumed.isEmpty() ? "" : "; a killed node's jobs resumed, in each run: " + resumed));
        }
    }

    private void row(List<Run> runs, List<Integer> table, String what,
                     java.util.function.Function<List<Step>, String> cell) {
        StringBuilder b = new StringBuilder("| " + what + " |");
        for (int rate : table) {
            for (String s : SCHEDULERS) {
                List<Step> st = new ArrayList<>();
                for (Run r : runs) {
                    Step x = r.steps().get(s + "@" + rate);
                    if (x != null) {
                        st.add(x);
                    }
                }
                b.append(' ').append(st.isEmpty() ? "-" : (st.size() < runs.size() ? st.size() + " runs: " : "")
                        + cell.apply(st)).append(" |");
            }
        }
        say(b.toString());
    }

    private static long median(List<Step> st, java.util.function.ToLongFunction<Step> f) {
        long[] v = st.stream().mapToLong(f).sorted().toArray();
        return v[(v.length - 1) / 2];
    }

    private static double medianD(List<Step> st, java.util.function.ToDoubleFunction<Step> f) {
        double[] v = st.stream().mapToDouble(f).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static long min(List<Step> st, java.util.function.ToLongFunction<Step> f) {
        return st.stream().mapToLong(f).min().getAsLong();
    }

    private static long max(List<Step> st, java.util.function.ToLongFunction<Step> f) {
        return st.stream().mapToLong(f).max().getAsLong();
    }

    /** "a, b, c of N": a count in each run, of the jobs measured. */
    private static String counts(List<Step> st, java.util.function.ToIntFunction<Step> f,
                                 java.util.function.ToIntFunction<Step> of) {
        return String.join(", ", st.stream().map(x -> Integer.toString(f.applyAsInt(x))).toList())
                + " of " + of.applyAsInt(st.get(0));
    }

    private static String ms0(long us) {
        if (us == Long.MAX_VALUE) {
            return "-";
        }
        return us < 10_000 ? String.format(Locale.ROOT, "%.1f", us / 1000.0)
                : String.format(Locale.ROOT, "%.0f", us / 1000.0);
    }
}
