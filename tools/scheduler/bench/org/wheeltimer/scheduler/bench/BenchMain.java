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
 * {@code BenchMain OUTDIR [--quick]}, run by {@code pg-run --bench}: three
 * node JVMs of each scheduler in turn on the same server, each step with
 * the same one-shot jobs (due uniformly over {@code D} seconds at a rate
 * across the cluster, at whole milliseconds), inserted before the nodes
 * start. A job's lateness is its start (the handler's first instruction)
 * minus its scheduled time, noted by each node in a file
 * ({@link org.wheeltimer.scheduler.test.Recorder}). Each step begins with
 * {@value #WARMUP_S} s of jobs at its rate that are not counted (the JVMs
 * are new: their JIT warms up), then measures {@code D} seconds. Rates climb
 * 100, 300, 1 000, 3 000, 10 000, 30 000 a second until the p99 reaches a
 * second (100, 1 000 and 10 000 are always measured); a job not run within
 * 30 s after the last is due counts as infinitely late. Then at 1 000 a
 * second, one node is killed (kill -9) 7 s in: the time until every job due
 * in the second after the kill has started, jobs not run within a minute
 * after the last was due, and jobs run twice.
 * --quick: 100 and 1 000 a second for 3 s, no kill: a smoke run.
 */
public final class BenchMain {
    private static final String WT_DB = "bench_wt";
    private static final String QZ_DB = "bench_quartz";
    private static final List<String> SCHEDULERS = List.of("wheeltimer", "quartz");
    private static final long CAP_US = 30_000_000;
    private static final long SUSTAINED_P99_US = 1_000_000;
    private static final int WARMUP_S = 3;
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
                int twice, long wheelP50, long wheelP99, double statementsPerS, double lockingPerS, double transactionsPerS,
                double rowsPerS, double waitingPercent, double meanWaiters, long maxWaiters,
                double otherWaitingPercent, boolean lateStart) {
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
        boolean quick = Arrays.asList(args).contains("--quick");
        BenchMain b = new BenchMain(System.getenv("WT_PG_URL"), System.getenv("PGUSER"),
                                    System.getenv("PGPASSWORD"), out);
        b.setup();
        int seconds = quick ? 3 : 10;
        List<Integer> ladder = quick ? List.of(100, 1000) : List.of(100, 300, 1000, 3000, 10000, 30000);
        List<Integer> table = quick ? List.of(100, 1000) : List.of(100, 1000, 10000);
        Map<String, Step> steps = new LinkedHashMap<>();
        Map<String, Integer> sustained = new HashMap<>();
        Map<String, Boolean> failed = new HashMap<>();
        for (int rate : ladder) {
            for (String s : SCHEDULERS) {
                if (failed.getOrDefault(s, false) && !table.contains(rate)) {
                    continue;
                }
                Step st = b.step(s, rate, seconds);
                steps.put(s + "@" + rate, st);
                if (!failed.getOrDefault(s, false) && st.sustained()) {
                    sustained.put(s, rate);
                } else {
                    failed.put(s, true);
                }
            }
        }
        Map<String, String> resume = new HashMap<>();
        if (!quick) {
            for (String s : SCHEDULERS) {
                resume.put(s, b.kill(s));
            }
        }
        b.report(steps, table, ladder, sustained, resume, failed);
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
            sleepUntil(from);
            DbStats.Counters before = DbStats.read(c, db);
            DbStats.Sampler sampler;
            try (Connection sc = connect("postgres")) {
                sampler = new DbStats.Sampler(sc);
                sleepUntil(to);
                sampler.close();
            }
            DbStats.Counters d = DbStats.read(c, db).minus(before);
            awaitRecords(tag, n, to + CAP_US);
            for (NodeProcess p : nodes) {
                p.stop();
            }
            Lateness l = Lateness.of(readRecords(tag), due, from, to);
            long[] wheel = scheduler.equals("quartz") ? new long[] {-1, -1} : wheelLateness(from, to);
            Step st = new Step(scheduler, rate, l.jobs, l.p50, l.p99, l.max, l.notRun, l.twice, wheel[0], wheel[1],
                               (double) d.statements() / seconds, (double) d.lockingStatements() / seconds,
                               (double) d.transactions() / seconds, (double) d.rowsWritten() / seconds,
                               sampler.waitingPercent(), sampler.meanWaiters(), sampler.maxWaiters(),
                               sampler.otherWaitingPercent(), lateStart);
            say(String.format(Locale.ROOT, "%-10s %6d/s: lateness p50 %s p99 %s max %s, not run %d, twice %d%s;"
                    + " %.0f statements/s (%.0f locking rows), %.0f transactions/s, %.0f rows written/s;"
                    + " a row lock waited for in %.1f%% of samples (mean %.2f, max %d backends),"
                    + " another lock in %.1f%%%s",
                    scheduler, rate, ms(l.p50), ms(l.p99), ms(l.max), l.notRun, l.twice,
                    wheel[0] < 0 ? "" : "; fired by the wheel p50 " + ms(wheel[0]) + " p99 " + ms(wheel[1]),
                    st.statementsPerS(), st.lockingPerS(), st.transactionsPerS(), st.rowsPerS(),
                    st.waitingPercent(), st.meanWaiters(), st.maxWaiters(), st.otherWaitingPercent(),
                    lateStart ? " (NOTE: the nodes were not ready by the first job)" : ""));
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
     * never started counts as infinitely late.
     */
    private record Lateness(int jobs, long p50, long p99, long max, int notRun, int twice) {
        static Lateness of(Map<Integer, List<long[]>> recs, long[] due, long fromUs, long toUs) {
            long[] l = new long[due.length];
            int n = 0;
            int notRun = 0;
            int twice = 0;
            for (int k = 0; k < due.length; k++) {
                if (due[k] < fromUs || due[k] >= toUs) {
                    continue;
                }
                List<long[]> r = recs.get(k);
                if (r == null) {
                    notRun++;
                    l[n++] = Long.MAX_VALUE;
                    continue;
                }
                if (r.size() > 1) {
                    twice++;
                }
                l[n++] = r.stream().mapToLong(x -> x[1]).min().getAsLong() - due[k];
            }
            l = Arrays.copyOf(l, n);
            Arrays.sort(l);
            return new Lateness(n, l[(int) ((n - 1) * 0.50)], l[(int) ((n - 1) * 0.99)], l[n - 1], notRun, twice);
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

    private void report(Map<String, Step> steps, List<Integer> table, List<Integer> ladder,
                        Map<String, Integer> sustained, Map<String, String> resume,
                        Map<String, Boolean> failed) {
        say("");
        say("wheeltimer's engine: " + engine + "; 3 nodes of each, one after the other, on "
                + Runtime.getRuntime().availableProcessors() + " CPUs shared with the database");
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
        row(steps, table, "lateness p50 / p99 / max, ms", st -> st.notRun() > 0 && st.p99() == Long.MAX_VALUE
                ? String.format(Locale.ROOT, "%s / > 30 s (%d of %d not run) / -", ms0(st.p50()), st.notRun(), st.jobs())
                : ms0(st.p50()) + " / " + ms0(st.p99()) + " / " + ms0(st.max())
                        + (st.notRun() > 0 ? " (" + st.notRun() + " not run)" : ""));
        row(steps, table, "fired by the wheel (run log's fired_at) p50 / p99, ms",
            st -> st.wheelP50() < 0 ? "" : ms0(st.wheelP50()) + " / " + ms0(st.wheelP99()));
        row(steps, table, "statements per second", st -> String.format(Locale.ROOT, "%.0f", st.statementsPerS()));
        row(steps, table, "row-locking statements (FOR UPDATE) per second",
            st -> String.format(Locale.ROOT, "%.0f", st.lockingPerS()));
        row(steps, table, "transactions per second", st -> String.format(Locale.ROOT, "%.0f", st.transactionsPerS()));
        row(steps, table, "row-lock waits: % of 10 ms samples with a backend waiting (mean waiters)",
            st -> String.format(Locale.ROOT, "%.1f%% (%.2f)", st.waitingPercent(), st.meanWaiters()));
        row(steps, table, "other lock waits (a table's extension...): % of samples",
            st -> String.format(Locale.ROOT, "%.1f%%", st.otherWaitingPercent()));
        say("");
        for (String s : SCHEDULERS) {
            Integer r = sustained.get(s);
            String top = r == null ? "none of " + ladder : String.format(Locale.ROOT, "%,d/s", r)
                    + (failed.getOrDefault(s, false) ? "" : " (the highest tried)");
            say(s + ": highest rate of " + ladder + " with p99 lateness under 1 s: " + top
                    + (resume.containsKey(s) ? "; resumed a killed node's jobs: " + resume.get(s) : ""));
        }
    }

    private void row(Map<String, Step> steps, List<Integer> table, String what,
                     java.util.function.Function<Step, String> cell) {
        StringBuilder b = new StringBuilder("| " + what + " |");
        for (int rate : table) {
            for (String s : SCHEDULERS) {
                Step st = steps.get(s + "@" + rate);
                b.append(' ').append(st == null ? "-" : cell.apply(st)).append(" |");
            }
        }
        say(b.toString());
    }

    private static String ms0(long us) {
        if (us == Long.MAX_VALUE) {
            return "-";
        }
        return us < 10_000 ? String.format(Locale.ROOT, "%.1f", us / 1000.0)
                : String.format(Locale.ROOT, "%.0f", us / 1000.0);
    }
}
