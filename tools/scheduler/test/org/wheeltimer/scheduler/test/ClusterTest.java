// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * ClusterTest.java - the cluster scheduler's tests: node JVMs on a real
 * PostgreSQL server, asserted from the database
 */
package org.wheeltimer.scheduler.test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import org.wheeltimer.scheduler.Jobs;
import org.wheeltimer.scheduler.Micros;
import org.wheeltimer.scheduler.Ring;

/**
 * {@code ClusterTest OUTDIR [SCENARIO...]}, run by {@code pg-run} (which
 * gives the server in the environment): the scenarios {@code kill},
 * {@code pause}, {@code stall}, {@code cut}, {@code restart}, {@code join},
 * {@code changes} and {@code edit}, each in a database of its own with
 * node JVMs of its own (their logs in OUTDIR), each a TAP unit. Nothing
 * asserts how fast anything went but the bounds the design promises: a
 * dead node's jobs run, and a stopped node's sessions are ended, within
 * its lease plus one renewal period; a node's pool tries the database
 * again within its back-off's maximum (and 0.5 s) of its coming back.
 * Waits are bounded far beyond need.
 */
public final class ClusterTest {
    /** The longest a scenario waits for its due runs after the last is due. */
    private static final long SETTLE_MS = 60_000;

    private final Pg pg;
    private final Path out;

    private ClusterTest(Pg pg, Path out) {
        this.pg = pg;
        this.out = out;
    }

    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]);
        Files.createDirectories(out);
        Pg pg = new Pg(System.getenv("WT_PG_URL"), System.getenv("PGUSER"), System.getenv("PGPASSWORD"),
                       Path.of(System.getenv("PG_RUN_DIR")));
        pg.createNodeRoles(4);
        ClusterTest t = new ClusterTest(pg, out);
        List<String> which = args.length > 1 ? List.of(args).subList(1, args.length)
                : List.of("kill", "pause", "stall", "cut", "restart", "join", "changes", "edit");
        boolean ok = true;
        for (String s : which) {
            Tap tap = new Tap("cluster/" + s);
            try {
                switch (s) {
                case "kill" -> t.kill(tap);
                case "pause" -> t.pause(tap);
                case "cut" -> t.cut(tap);
                case "join" -> t.join(tap);
                case "changes" -> t.changes(tap);
                case "edit" -> t.edit(tap);
                case "stall" -> t.stall(tap);
                case "restart" -> t.restart(tap);
                default -> throw new IllegalArgumentException("no scenario " + s);
                }
            } catch (Exception e) {
                tap.check("the scenario ran to its end", List.of(e.toString()));
            }
            ok &= tap.finish();
        }
        System.exit(ok ? 0 : 1);
    }

    // ---- scenarios ----

    /**
     * 3 nodes, 10 000 jobs due over 30 s (7 000 one-shot, 2 000 fixed-rate,
     * 1 000 fixed-delay; half of them database actions); kill -9 of one
     * node a third of the way in.
     */
    private void kill(Tap tap) throws Exception {
        final long leaseMs = 5000;
        final long renewMs = 2000;
        String db = "cluster_kill";
        pg.createDatabase(db);
        List<NodeProcess> nodes = startNodes(db, "kill", 3, "--lease-ms", "" + leaseMs, "--renew-ms", "" + renewMs);
        try (Connection c = pg.connect(db)) {
            awaitLive(c, 3);
            Workload w = new Workload(1);
            long t0 = Micros.now() + 4_000_000;
            long end = t0 + 30_000_000;
            List<Workload.Spec> specs = new ArrayList<>(w.once(7000, "db", t0, 30_000));
            specs.addAll(w.periodic(2000, "db", "fixed_rate", t0, 5_000, 1000, 5000, end));
            specs.addAll(w.periodic(1000, "db", "fixed_delay", t0, 5_000, 1000, 5000, end));
            for (int i = 0; i < specs.size(); i++) {
                Workload.Spec s = specs.get(i);
                specs.set(i, new Workload.Spec(0, w.handler(i), s.mode(), s.startUs(), s.periodUs(), s.endUs()));
            }
            w.insert(c, specs);
            tap.note(specs.size() + " jobs added, due from " + Verify.at(t0) + " for 30 s");

            sleepUntil(t0 + 10_000_000);
            NodeProcess dead = nodes.get(1);
            long killedUs = Micros.now();
            dead.kill();
            long lapsedUs = leaseEnd(c, dead.name);
            tap.note("kill -9 " + dead.name + " at " + Verify.at(killedUs) + "; its lease lapsed at "
                    + Verify.at(lapsedUs));
            // A client's edits while the survivors' runners work through
            // the dead node's backlog: its occurrences fired at once and
            // waiting in their queues.
            for (long after : new long[] {100_000, 600_000}) {
                sleepUntil(lapsedUs + after);
                int edited = w.editPayloads(c);
                tap.note("the fixed-rate jobs' payloads edited " + after / 1000 + " ms after the lapse ("
                        + edited + " jobs)");
            }

            Map<Long, List<Verify.Run>> runs = awaitRuns(c, w, Set.of(), end);
            stopAll(tap, nodes, Set.of(dead));
            runs = Verify.runs(c);
            commonChecks(tap, c, w, runs, Set.of(), Set.of());

            // The dead node's jobs, run by the others: never before its
            // lease lapsed (the fence), and again from no later than its
            // lease plus one renewal period (the "resolution" at which the
            // others read the ring) after the kill.
            Ring ring = Ring.of(List.of("n1", "n2", "n3"));
            List<String> early = new ArrayList<>();
            long first = Long.MAX_VALUE;
            long worst = 0;
            int taken = 0;
            for (Verify.Run r : Verify.all(runs)) {
                if (!ring.ownerOfJob(r.jobId()).equals(dead.name) || r.node().equals(dead.name)
                        || r.scheduledUs() < killedUs - 1_000_000) {
                    continue;
                }
                taken++;
                first = Math.min(first, r.recordedUs());
                worst = Math.max(worst, r.recordedUs() - Math.max(r.scheduledUs(), killedUs));
                if (r.recordedUs() < lapsedUs) {
                    early.add("job " + r.jobId() + " at " + Verify.at(r.scheduledUs()) + " run by " + r.node()
                            + " at " + Verify.at(r.recordedUs()) + ", before the lease lapsed");
                }
            }
            tap.note(taken + " runs of " + dead.name + "'s jobs by the others; the first "
                    + (first - killedUs) / 1000 + " ms after the kill (" + (first - lapsedUs) / 1000
                    + " ms after the lease lapsed); the latest " + worst / 1000
                    + " ms after its time or the kill (lease " + leaseMs + " ms, renewal " + renewMs + " ms)");
            tap.check("no other node ran the dead node's jobs before its lease lapsed", early);
            long bound = (leaseMs + renewMs) * 1000;
            tap.check("the dead node's jobs resumed within its lease plus one renewal period",
                      taken > 0 && first - killedUs <= bound,
                      taken == 0 ? "no job of " + dead.name + " was run by another node"
                              : "the first ran " + (first - killedUs) / 1000 + " ms after the kill");
        } finally {
            killAll(nodes);
        }
    }

    /** When {@code node}'s lease lapses (lapsed), by the database's clock. */
    private static long leaseEnd(Connection c, String node) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT expires_at FROM wt_node WHERE node = ?")) {
            ps.setString(1, node);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return Micros.of(rs.getObject(1, java.time.OffsetDateTime.class).toInstant());
            }
        }
    }

    /**
     * 3 nodes, one of them stopped (SIGSTOP) for twice its lease and then
     * let go on (SIGCONT): a node that lost its lease while it could not
     * tell (a long pause of its collector, of its machine) must not run
     * what the others took over when it wakes.
     */
    private void pause(Tap tap) throws Exception {
        final long leaseMs = 4000;
        String db = "cluster_pause";
        pg.createDatabase(db);
        List<NodeProcess> nodes = startNodes(db, "pause", 3, "--lease-ms", "" + leaseMs, "--renew-ms", "1000");
        try (Connection c = pg.connect(db)) {
            awaitLive(c, 3);
            Workload w = new Workload(5);
            long t0 = Micros.now() + 3_000_000;
            long end = t0 + 14_000_000;
            List<Workload.Spec> specs = new ArrayList<>(w.once(1400, "db", t0, 14_000));
            specs.addAll(w.periodic(300, "db", "fixed_rate", t0, 1_000, 500, 2000, end));
            w.insert(c, specs);

            sleepUntil(t0 + 3_000_000);
            NodeProcess paused = nodes.get(1);
            long pausedUs = Micros.now();
            paused.signal("STOP");
            long lapsedUs = leaseEnd(c, paused.name);
            Thread.sleep(2 * leaseMs);
            paused.signal("CONT");
            tap.note(paused.name + " stopped at " + Verify.at(pausedUs) + " for " + 2 * leaseMs
                    + " ms; its lease lapsed at " + Verify.at(lapsedUs));

            awaitRuns(c, w, Set.of(), end);
            stopAll(tap, nodes, Set.of());
            Map<Long, List<Verify.Run>> runs = Verify.runs(c);
            commonChecks(tap, c, w, runs, Set.of(), Set.of());
            List<Verify.Run> all = Verify.all(runs);
            List<String> zombie = all.stream().filter(r -> r.node().equals(paused.name) && r.generation() == 1
                    && r.scheduledUs() >= lapsedUs)
                    .map(r -> "job " + r.jobId() + " at " + Verify.at(r.scheduledUs()) + " run by "
                            + paused.name + " under its lapsed lease, recorded " + Verify.at(r.recordedUs()))
                    .toList();
            tap.check("the paused node ran nothing due after its lease lapsed under that lease", zombie);
            Set<Long> generations = generations(all, paused.name);
            Ring ring = Ring.of(List.of("n1", "n2", "n3"));
            long takenOver = all.stream().filter(r -> ring.ownerOfJob(r.jobId()).equals(paused.name)
                    && !r.node().equals(paused.name) && r.scheduledUs() >= pausedUs).count();
            tap.check("the others took its jobs over, and it came back under a new generation",
                      takenOver > 0 && generations.size() >= 2,
                      "the others ran " + takenOver + " of its jobs; it ran under generations " + generations);
        } finally {
            for (NodeProcess n : nodes) {
                n.signal("CONT");
            }
            killAll(nodes);
        }
    }

    /**
     * 3 nodes; one node's connections are cut for 1 s (less than its
     * lease: it keeps its jobs in its wheel and runs them late), another's
     * for 12 s (more than its lease: the others take over, and it comes
     * back with a new generation).
     */
    private void cut(Tap tap) throws Exception {
        final long leaseMs = 6000;
        final long renewMs = 1500;
        String db = "cluster_cut";
        pg.createDatabase(db);
        List<NodeProcess> nodes = startNodes(db, "cut", 3, "--lease-ms", "" + leaseMs, "--renew-ms", "" + renewMs);
        try (Connection c = pg.connect(db)) {
            awaitLive(c, 3);
            Workload w = new Workload(2);
            long t0 = Micros.now() + 3_000_000;
            long end = t0 + 22_000_000;
            List<Workload.Spec> specs = new ArrayList<>(w.once(3000, "db", t0, 22_000));
            specs.addAll(w.periodic(500, "db", "fixed_rate", t0, 3_000, 1000, 3000, end));
            specs.addAll(w.periodic(300, "db", "fixed_delay", t0, 3_000, 1000, 3000, end));
            w.insert(c, specs);
            tap.note(specs.size() + " jobs added, due from " + Verify.at(t0) + " for 22 s");

            sleepUntil(t0 + 3_000_000);
            long shortFrom = Micros.now();
            pg.cut("n1");
            // A client's edit while n1's wheel fires into its queue and its
            // runners cannot record: the backlog of an outage.
            Thread.sleep(500);
            int edited = w.editPayloads(c);
            Thread.sleep(500);
            pg.restore("n1");
            tap.note("the fixed-rate jobs' payloads edited during n1's cut (" + edited + " jobs)");
            long shortTo = Micros.now();
            tap.note("n1 cut off from " + Verify.at(shortFrom) + " to " + Verify.at(shortTo));

            sleepUntil(t0 + 6_000_000);
            long longFrom = Micros.now();
            pg.cut("n3");
            Thread.sleep(12_000);
            pg.restore("n3");
            long longTo = Micros.now();
            tap.note("n3 cut off from " + Verify.at(longFrom) + " to " + Verify.at(longTo));

            awaitRuns(c, w, Set.of(), end);
            stopAll(tap, nodes, Set.of());
            Map<Long, List<Verify.Run>> runs = Verify.runs(c);
            commonChecks(tap, c, w, runs, Set.of(), Set.of());

            Ring ring = Ring.of(List.of("n1", "n2", "n3"));
            List<Verify.Run> all = Verify.all(runs);
            Set<Long> n1Generations = generations(all, "n1");
            long n1Late = all.stream().filter(r -> r.node().equals("n1") && r.scheduledUs() >= shortFrom
                    && r.scheduledUs() < shortTo && r.recordedUs() >= shortTo).count();
            tap.check("a node cut off for less than its lease kept it and ran its jobs due meanwhile itself",
                      n1Generations.size() == 1 && n1Late > 0,
                      "n1 ran under generations " + n1Generations + "; " + n1Late
                              + " of its runs due during the cut were recorded after it");
            Set<Long> n3Generations = generations(all, "n3");
            long takenOver = all.stream().filter(r -> ring.ownerOfJob(r.jobId()).equals("n3")
                    && !r.node().equals("n3") && r.scheduledUs() >= longFrom && r.scheduledUs() < longTo).count();
            tap.note("n3's jobs due during its long cut run by the others: " + takenOver);
            tap.check("a node cut off for longer than its lease was taken over, and came back under a new generation",
                      n3Generations.size() >= 2 && takenOver > 0,
                      "n3 ran under generations " + n3Generations + "; the others ran " + takenOver
                              + " of its jobs due during the cut");
        } finally {
            killAll(nodes);
        }
    }

    /**
     * One node, then a second and a third joining while jobs are due
     * (fixed-rate jobs every 200 ms to 1 s and one-shots), then the first
     * leaving.
     */
    private void join(Tap tap) throws Exception {
        String db = "cluster_join";
        pg.createDatabase(db);
        List<NodeProcess> nodes = new ArrayList<>(startNodes(db, "join", 1, "--lease-ms", "4000"));
        try (Connection c = pg.connect(db)) {
            awaitLive(c, 1);
            Workload w = new Workload(3);
            long t0 = Micros.now() + 3_000_000;
            long end = t0 + 16_000_000;
            List<Workload.Spec> specs = new ArrayList<>(w.once(3000, "db", t0, 16_000));
            specs.addAll(w.periodic(300, "db", "fixed_rate", t0, 1_000, 200, 1000, end));
            specs.addAll(w.periodic(100, "db", "fixed_delay", t0, 1_000, 300, 1000, end));
            w.insert(c, specs);
            tap.note(specs.size() + " jobs added, due from " + Verify.at(t0) + " for 16 s");

            sleepUntil(t0 + 4_000_000);
            Map<String, Long> joined = new java.util.HashMap<>();
            nodes.add(startNode(db, "join", "n2", "--lease-ms", "4000"));
            joined.put("n2", awaitNode(c, "n2"));
            sleepUntil(t0 + 8_000_000);
            nodes.add(startNode(db, "join", "n3", "--lease-ms", "4000"));
            joined.put("n3", awaitNode(c, "n3"));
            sleepUntil(t0 + 12_000_000);
            int status = nodes.get(0).stop();
            long left = Micros.now();
            tap.note("n2 joined at " + Verify.at(joined.get("n2")) + ", n3 at " + Verify.at(joined.get("n3"))
                    + ", n1 left at " + Verify.at(left) + " (status " + status + ")");

            awaitRuns(c, w, Set.of(), end);
            stopAll(tap, nodes, Set.of(nodes.get(0)));
            Map<Long, List<Verify.Run>> runs = Verify.runs(c);
            commonChecks(tap, c, w, runs, Set.of(), Set.of());
            List<Verify.Run> all = Verify.all(runs);
            List<String> idle = new ArrayList<>();
            for (String n : List.of("n1", "n2", "n3")) {
                long k = all.stream().filter(r -> r.node().equals(n)).count();
                tap.note(n + " ran " + k + " times");
                // A node that joined before the last job was due (on a
                // machine so slow that one did not, there is no hand-over
                // to check for it).
                if (k == 0 && joined.getOrDefault(n, 0L) < end) {
                    idle.add(n + " ran nothing: the hand-over did not happen");
                }
            }
            tap.check("each node ran its share once it had joined", idle);
            long lost = 0;
            for (NodeProcess n : nodes) {
                lost += Math.max(0, n.counter("lost"));
            }
            tap.note("inserts refused as already run (races lost during hand-overs): " + lost);
        } finally {
            killAll(nodes);
        }
    }

    /**
     * Two nodes that load nothing on their own for 5 minutes (window 10
     * minutes), so that what they run, a client added after they started:
     * past-due jobs, malformed rows, a failing job, cancels, reschedules,
     * a period changed while the job runs.
     */
    private void changes(Tap tap) throws Exception {
        String db = "cluster_changes";
        pg.createDatabase(db);
        List<NodeProcess> nodes = startNodes(db, "changes", 2, "--lease-ms", "4000", "--window-ms", "600000");
        try (Connection c = pg.connect(db)) {
            awaitLive(c, 2);
            Thread.sleep(2000);   // let both listen before anything is added
            Workload w = new Workload(4);
            long t = Micros.now();
            List<Workload.Spec> past = w.insert(c, w.once(20, "db", t - 60_000_000, 1000));
            List<Workload.Spec> good = w.insert(c, w.once(200, "db", t + 3_000_000, 2000));
            long rateStart = t + 1_000_000;
            long rateEnd = t + 12_000_000;
            List<Workload.Spec> periodic = w.insert(c, List.of(
                    new Workload.Spec(0, "db", "fixed_delay", t + 1_000_000, 700_000, rateEnd)));
            long rate = Jobs.fixedRate(c, "db", null, Micros.toInstant(rateStart), Duration.ofMillis(500),
                                       Micros.toInstant(rateEnd));
            long failing = Jobs.once(c, "fail", null, Micros.toInstant(t + 2_000_000));
            List<Long> malformed = new ArrayList<>();
            try (Statement st = c.createStatement()) {
                String at = "'" + Micros.toInstant(t + 1_000_000) + "'";
                for (String values : List.of(
                        "('noop', 'cron', " + at + ", NULL)",
                        "('noop', 'fixed_rate', " + at + ", NULL)",
                        "('noop', 'fixed_delay', " + at + ", 0)",
                        "('nosuch', 'once', " + at + ", NULL)")) {
                    try (ResultSet rs = st.executeQuery("INSERT INTO wt_job (handler, mode, start_at, period_ms)"
                            + " VALUES " + values + " RETURNING job_id")) {
                        rs.next();
                        malformed.add(rs.getLong(1));
                    }
                }
            }

            // Each change's commit is before the call returns: a run recorded
            // after that saw it; one recorded before may not have (on a
            // machine so loaded that the change came after the job's time).
            sleepUntil(t + 1_500_000);
            Map<Long, Long> cancelled = new java.util.HashMap<>();
            for (int i = 0; i < 100; i++) {
                long id = good.get(2 * i).id();
                Jobs.cancel(c, id);
                cancelled.put(id, Micros.now());
                w.jobs.remove(id);
            }
            Map<Long, long[]> moved = new java.util.HashMap<>();   // from, to, when
            for (int i = 0; i < 50; i++) {
                Workload.Spec s = good.get(2 * i + 1);
                long to = t + 6_000_000 + i * 20_000;
                Jobs.reschedule(c, s.id(), Micros.toInstant(to));
                moved.put(s.id(), new long[] {s.startUs(), to, Micros.now()});
                w.jobs.put(s.id(), new Workload.Spec(s.id(), s.handler(), s.mode(), to, 0, Long.MAX_VALUE));
            }
            sleepUntil(t + 5_200_000);
            try (PreparedStatement ps = c.prepareStatement("UPDATE wt_job SET period_ms = 1000 WHERE job_id = ?")) {
                ps.setLong(1, rate);
                ps.executeUpdate();
            }

            awaitRuns(c, w, Set.of(rate, failing), rateEnd);
            stopAll(tap, nodes, Set.of());
            Map<Long, List<Verify.Run>> runs = Verify.runs(c);
            Set<Long> elsewhere = new HashSet<>(Set.of(rate, failing));
            Set<Long> alsoDb = new HashSet<>(Set.of(rate));
            List<String> cancelProblems = new ArrayList<>();
            List<String> rescheduleProblems = new ArrayList<>();
            int before = 0;
            for (Map.Entry<Long, Long> e : cancelled.entrySet()) {
                for (Verify.Run r : runs.getOrDefault(e.getKey(), List.of())) {
                    if (r.recordedUs() >= e.getValue()) {
                        cancelProblems.add("job " + e.getKey() + " ran after its cancel");
                    } else {
                        before++;
                        elsewhere.add(e.getKey());
                        alsoDb.add(e.getKey());
                    }
                }
            }
            for (Map.Entry<Long, long[]> e : moved.entrySet()) {
                long[] m = e.getValue();
                List<Long> times = runs.getOrDefault(e.getKey(), List.of()).stream().map(Verify.Run::scheduledUs).toList();
                for (Verify.Run r : runs.getOrDefault(e.getKey(), List.of())) {
                    if (r.scheduledUs() == m[0] && r.recordedUs() >= m[2]) {
                        rescheduleProblems.add("job " + e.getKey() + " ran at its old time");
                    } else if (r.scheduledUs() == m[0]) {
                        before++;
                        elsewhere.add(e.getKey());
                        if (!times.equals(List.of(m[0], m[1]))) {
                            rescheduleProblems.add("job " + e.getKey() + ", run before its move, then ran at "
                                    + times.stream().map(Verify::at).toList());
                        }
                    }
                }
            }
            tap.note(before + " runs were recorded before their cancel or move had committed (the machine's load):"
                    + " checked as such");
            commonChecks(tap, c, w, runs, elsewhere, alsoDb);

            tap.check("jobs due a minute ago ran at once, once", past.stream()
                    .filter(s -> runs.getOrDefault(s.id(), List.of()).size() != 1)
                    .map(s -> "job " + s.id() + " ran " + runs.getOrDefault(s.id(), List.of()).size() + " times")
                    .toList());
            tap.check("cancelled jobs never ran after their cancel", cancelProblems);
            tap.check("rescheduled jobs ran at their new time only, after their move", rescheduleProblems);

            String logs = "";
            for (NodeProcess n : nodes) {
                logs += n.log();
            }
            List<String> unreported = new ArrayList<>();
            for (long id : malformed) {
                if (runs.containsKey(id)) {
                    unreported.add("malformed job " + id + " ran");
                }
                if (!logs.contains("malformed job " + id + " ")) {
                    unreported.add("malformed job " + id + " was not reported");
                }
            }
            tap.check("malformed rows were reported and skipped", unreported);

            List<Verify.Run> f = runs.getOrDefault(failing, List.of());
            tap.check("a failing job's run is recorded once with its error, its effect rolled back",
                      f.size() == 1 && f.get(0).error() != null && f.get(0).error().contains("fails, as asked")
                              && !hasEffect(c, failing),
                      "runs " + f + ", effect kept: " + hasEffect(c, failing));

            tap.check("a fixed-rate job whose period changed ran every 500 ms, then every 1000 ms",
                      periodChange(runs.getOrDefault(rate, List.of()), rateStart, rateEnd));

            long heard = 0;
            for (NodeProcess n : nodes) {
                heard += Math.max(0, n.counter("heard"));
            }
            tap.check("the owners heard of each added job (LISTEN/NOTIFY), not by a reload",
                      heard >= good.size() + past.size(),
                      "the nodes read " + heard + " notified jobs, fewer than the " + (good.size() + past.size()) + " added");
            tap.note("periodic: " + periodic.size() + " fixed-delay job, checked with the others");
        } finally {
            killAll(nodes);
        }
    }

    /**
     * One node with one runner, kept busy for 3 s by one job (a handler
     * that sleeps) while 40 fixed-rate jobs come due, so that their
     * occurrences wait in its queue; a client edits them (their payload, a
     * new version) while they wait: each occurrence runs once, with the
     * payload its run's version has.
     */
    private void edit(Tap tap) throws Exception {
        String db = "cluster_edit";
        pg.createDatabase(db);
        List<NodeProcess> nodes = startNodes(db, "edit", 1, "--runners", "1", "--slow-ms", "25",
                                             "--hold-ms", "3000");
        try (Connection c = pg.connect(db)) {
            awaitLive(c, 1);
            Workload w = new Workload(6);
            long t0 = Micros.now() + 2_000_000;
            long end = t0 + 3_000_000;
            w.insert(c, w.periodic(40, "slow", "fixed_rate", t0, 200, 1000, 1000, end));
            long plug = Jobs.once(c, "hold", "n1", Micros.toInstant(t0 - 300_000));
            w.add(new Workload.Spec(plug, "hold", "once", t0 - 300_000, 0, Long.MAX_VALUE), "n1");
            tap.note("40 fixed-rate jobs every second from " + Verify.at(t0) + " for 3 s, 25 ms each;"
                    + " the runner busy with job " + plug + " for 3 s from 0.3 s before");
            sleepUntil(t0 + 1_000_000);
            int edited = w.editPayloads(c);
            tap.note("the payloads edited 1 s in: " + edited + " jobs");

            awaitRuns(c, w, Set.of(), end);
            stopAll(tap, nodes, Set.of());
            Map<Long, List<Verify.Run>> runs = Verify.runs(c);
            tap.note(Verify.effectCounts(c));
            commonChecks(tap, c, w, runs, Set.of(), Set.of());
        } finally {
            killAll(nodes);
        }
    }

    /**
     * 3 nodes; one is stopped (SIGSTOP) inside a run's transaction, after
     * its insert and before its commit, for over twice its lease,
     * and a fourth node joins once that lease has lapsed: its sessions
     * are ended once its lease has lapsed, within the take-over bound, the
     * run it held is rolled back and run by another node, and no node
     * waits for its open transaction (nor for another waiting one).
     */
    private void stall(Tap tap) throws Exception {
        long startUs = Micros.now();
        final long leaseMs = 3000;
        final long renewMs = 750;
        final long stoppedMs = 8_000;
        String db = "cluster_stall";
        pg.createDatabase(db);
        String[] options = {"--lease-ms", "" + leaseMs, "--renew-ms", "" + renewMs};
        List<NodeProcess> nodes = new ArrayList<>(startNodes(db, "stall", 3, options));
        NodeProcess held = nodes.get(1);
        try (Connection c = pg.connect(db)) {
            awaitLive(c, 3);
            Workload w = new Workload(7);
            long t0 = Micros.now() + 3_000_000;
            long end = t0 + 12_000_000;
            List<Workload.Spec> specs = new ArrayList<>(w.once(1200, "db", t0, 12_000));
            specs.addAll(w.periodic(100, "db", "fixed_rate", t0, 1_000, 500, 1500, end));
            w.insert(c, specs);
            long holdAt = t0 + 2_000_000;
            long hold = holdJob(c, w, held.name, holdAt);
            tap.note(specs.size() + " jobs added, due from " + Verify.at(t0) + " for 12 s; job " + hold
                    + " holds " + held.name + "'s transaction from " + Verify.at(holdAt));

            awaitLine(held, "holding job " + hold, holdAt + SETTLE_MS * 1000);
            held.signal("STOP");
            long stopUs = Micros.now();
            long lapsedUs = leaseEnd(c, held.name);
            sleepUntil(lapsedUs + 500_000);
            nodes.add(startNode(db, "stall", "n4", options));
            sleepUntil(stopUs + stoppedMs * 1000);
            held.signal("CONT");
            long contUs = Micros.now();
            tap.note(held.name + " stopped inside job " + hold + "'s transaction at " + Verify.at(stopUs)
                    + " until " + Verify.at(contUs) + "; its lease lapsed at " + Verify.at(lapsedUs)
                    + "; n4 started 0.5 s after");

            awaitRuns(c, w, Set.of(), end);
            stopAll(tap, nodes, Set.of());
            Map<Long, List<Verify.Run>> runs = Verify.runs(c);
            commonChecks(tap, c, w, runs, Set.of(), Set.of());

            // How long each node's runs committed after their time or the
            // stop, whichever is later (the database's clock): printed.
            Map<String, Long> worst = new java.util.TreeMap<>();
            for (Verify.Run r : Verify.all(runs)) {
                if (r.committedUs() >= stopUs) {
                    worst.merge(r.node(), r.committedUs() - Math.max(r.scheduledUs(), stopUs), Math::max);
                }
            }
            Verify.Run h = runs.getOrDefault(hold, List.of()).stream().findFirst().orElse(null);
            long holdWait = h == null ? Long.MAX_VALUE : h.committedUs() - stopUs;
            tap.note("job " + hold + " committed by " + (h == null ? "nobody" : h.node() + " " + holdWait / 1000
                    + " ms after the stop") + "; the latest commit after its time or the stop, by node (ms): "
                    + worst.entrySet().stream().map(e -> e.getKey() + " " + e.getValue() / 1000).toList());
            long endedUs = pg.sessionEndedAtUs(db, "wheeltimer-scheduler " + held.name, stopUs);
            tap.note(held.name + "'s sessions ended " + (endedUs < 0 ? "never"
                    : (endedUs - stopUs) / 1000 + " ms after the stop, " + (endedUs - lapsedUs) / 1000
                            + " ms after its lease lapsed"));
            long bound = (leaseMs + renewMs) * 1000;
            tap.check("the stopped node's sessions were ended within its lease plus one renewal period of the stop",
                      endedUs >= lapsedUs && endedUs - stopUs <= bound,
                      endedUs < 0 ? "they never were" : "at " + Verify.at(endedUs) + ", "
                              + (endedUs - stopUs) / 1000 + " ms after the stop, its lease lapsing at "
                              + Verify.at(lapsedUs));
            tap.check("the run it held was rolled back and run by another node", h != null
                      && !h.node().equals(held.name), "job " + hold + (h == null ? " did not run"
                              : " was committed by " + h.node() + " " + holdWait / 1000 + " ms after the stop"));
            // Whatever the machine's speed: the server logs every wait for
            // a row lock longer than a second (log_lock_waits).
            List<Pg.LockWait> waits = pg.lockWaits(db, startUs);
            tap.check("no node waited for a row lock that another transaction held (the server's log)",
                      waits.stream().map(x -> x.who() + " waited " + Math.round(x.waitedMs()) + " ms from "
                              + Verify.at(x.atUs() - Math.round(x.waitedMs() * 1000))).toList());
        } finally {
            for (NodeProcess n : nodes) {
                n.signal("CONT");
            }
            killAll(nodes);
        }
    }

    /**
     * A one-shot job of the {@code hold} handler that {@code node} owns,
     * with the node's name as its payload (so that it sleeps there), due
     * at {@code atUs}; its id. Jobs that land on another node's slots are
     * cancelled at once, long before they are due.
     */
    private static long holdJob(Connection c, Workload w, String node, long atUs) throws SQLException {
        Ring ring = Ring.of(List.of("n1", "n2", "n3"));
        for (;;) {
            long id = Jobs.once(c, "hold", node, Micros.toInstant(atUs));
            if (ring.ownerOfJob(id).equals(node)) {
                w.add(new Workload.Spec(id, "hold", "once", atUs, 0, Long.MAX_VALUE), node);
                return id;
            }
            Jobs.cancel(c, id);
        }
    }

    /** Waits until the node's log has {@code line}. */
    private static void awaitLine(NodeProcess n, String line, long deadlineUs) throws Exception {
        while (!n.log().contains(line)) {
            if (Micros.now() > deadlineUs) {
                throw new IllegalStateException(n.name + " never printed '" + line + "'");
            }
            Thread.sleep(5);
        }
    }

    /**
     * 3 nodes (lease 6 s, renewal 1.5 s); the database crashes
     * (pg_ctl stop -m immediate) while jobs are due and comes back 8 s
     * later, after the leases lapsed: each node's pool reaches the server
     * within its back-off's maximum (half the renewal period) of the
     * server being ready, and each rejoins (the time it took to connect
     * and register is printed: it is the machine's speed).
     */
    private void restart(Tap tap) throws Exception {
        final long renewMs = 1500;
        final long retryMaxMs = renewMs / 2;
        String db = "cluster_restart";
        pg.createDatabase(db);
        List<NodeProcess> nodes = startNodes(db, "restart", 3, "--lease-ms", "6000", "--renew-ms", "" + renewMs);
        try {
            Workload w = new Workload(8);
            long t0;
            long end;
            Map<String, Long> before;
            try (Connection c = pg.connect(db)) {
                awaitLive(c, 3);
                t0 = Micros.now() + 2_000_000;
                end = t0 + 14_000_000;
                List<Workload.Spec> specs = new ArrayList<>(w.once(700, "db", t0, 14_000));
                specs.addAll(w.periodic(60, "db", "fixed_rate", t0, 1_000, 1000, 2000, end));
                w.insert(c, specs);
                before = new java.util.TreeMap<>();
                for (Map.Entry<String, long[]> e : registrations(c).entrySet()) {
                    before.put(e.getKey(), e.getValue()[0]);
                }
            }
            sleepUntil(t0 + 3_000_000);
            long crashUs = Micros.now();
            pg.crash();
            Thread.sleep(8000);
            pg.start();
            long readyUs = pg.readyAtUs();
            tap.note("the database crashed at " + Verify.at(crashUs) + " and was ready again at "
                    + Verify.at(readyUs));
            try (Connection c = pg.connect(db)) {
                Map<String, long[]> after;
                long deadline = System.nanoTime() + SETTLE_MS * 1_000_000L;
                for (;;) {
                    after = registrations(c);
                    boolean all = after.size() == before.size();
                    for (Map.Entry<String, long[]> e : after.entrySet()) {
                        all &= e.getValue()[0] > before.getOrDefault(e.getKey(), Long.MAX_VALUE);
                    }
                    if (all || System.nanoTime() > deadline) {
                        break;
                    }
                    Thread.sleep(100);
                }
                long bound = (retryMaxMs + 500) * 1000;
                List<String> absent = new ArrayList<>();
                List<String> slow = new ArrayList<>();
                List<String> times = new ArrayList<>();
                for (String n : before.keySet()) {
                    long[] a = after.get(n);
                    long tried = pg.connectionReceivedUs(n, "wheeltimer-scheduler " + n, readyUs);
                    if (a == null || a[0] <= before.get(n) || tried < 0) {
                        absent.add(n + " did not rejoin");
                        continue;
                    }
                    times.add(n + " " + (tried - readyUs) / 1000 + " / " + (a[1] - readyUs) / 1000);
                    if (tried - readyUs > bound) {
                        slow.add(n + "'s pool first reached the server " + (tried - readyUs) / 1000
                                + " ms after it was ready");
                    }
                }
                tap.note("after the database was ready, each node's pool reached it / the node registered"
                        + " anew (ms): " + times);
                awaitRuns(c, w, Set.of(), end);
                stopAll(tap, nodes, Set.of());
                Map<Long, List<Verify.Run>> runs = Verify.runs(c);
                commonChecks(tap, c, w, runs, Set.of(), Set.of());
                tap.check("each node rejoined (a new generation)", absent);
                tap.check("each node's pool reached the database within its back-off's maximum (" + retryMaxMs
                        + " ms) and 500 ms more of its being ready (the server's log)", slow);
            }
        } finally {
            killAll(nodes);
        }
    }

    /** Each node's generation and when it took it (µs), from wt_node. */
    private static Map<String, long[]> registrations(Connection c) throws SQLException {
        Map<String, long[]> out = new java.util.TreeMap<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT node, generation, registered_at FROM wt_node")) {
            while (rs.next()) {
                out.put(rs.getString(1), new long[] {rs.getLong(2),
                        Micros.of(rs.getObject(3, java.time.OffsetDateTime.class).toInstant())});
            }
        }
        return out;
    }

    // ---- checks every scenario makes ----

    private void commonChecks(Tap tap, Connection c, Workload w, Map<Long, List<Verify.Run>> runs,
                              Set<Long> checkedElsewhere, Set<Long> alsoDb) throws SQLException {
        long expected = Verify.expectedCount(w.jobs.values(), runs);
        tap.note(Verify.all(runs).size() + " runs in the log, " + expected + " (job, time)s due");
        tap.check("every due (job, time) ran exactly once, and nothing else ran",
                  Verify.exactlyOnce(w.jobs.values(), runs, checkedElsewhere));
        tap.check("no run before its time", Verify.noneEarly(runs));
        tap.check("each database job's effect happened once per run (no double run)",
                  Verify.effectsOnce(c, w.jobs.values(), runs, alsoDb));
        tap.check("each run's handler was given the job's version that its run records",
                  Verify.payloads(c, w, runs));
    }

    private static List<String> periodChange(List<Verify.Run> runs, long start, long end) {
        List<String> problems = new ArrayList<>();
        List<Verify.Run> v1 = runs.stream().filter(r -> r.version() == 1).toList();
        List<Verify.Run> v2 = runs.stream().filter(r -> r.version() == 2).toList();
        if (v1.isEmpty() || v2.isEmpty() || v1.size() + v2.size() != runs.size()) {
            return List.of("runs by version: " + v1.size() + " and " + v2.size() + " of " + runs.size());
        }
        for (int i = 0; i < v1.size(); i++) {
            if (v1.get(i).scheduledUs() != start + i * 500_000L) {
                problems.add("version 1's run " + i + " at " + Verify.at(v1.get(i).scheduledUs()));
            }
        }
        long last = v1.get(v1.size() - 1).scheduledUs();
        long next = start + ((last - start) / 1_000_000 + 1) * 1_000_000;
        for (Verify.Run r : v2) {
            if (r.scheduledUs() != next) {
                problems.add("version 2 ran at " + Verify.at(r.scheduledUs()) + ", not " + Verify.at(next));
            }
            next += 1_000_000;
        }
        if (next <= end) {
            problems.add("version 2 stopped before its end: " + Verify.at(next) + " did not run");
        }
        return problems;
    }

    private static boolean hasEffect(Connection c, long jobId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM test_effect WHERE job_id = ?")) {
            ps.setLong(1, jobId);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static Set<Long> generations(List<Verify.Run> runs, String node) {
        Set<Long> g = new HashSet<>();
        runs.stream().filter(r -> r.node().equals(node)).forEach(r -> g.add(r.generation()));
        return g;
    }

    // ---- nodes and waiting ----

    private List<NodeProcess> startNodes(String db, String scenario, int n, String... options) throws Exception {
        List<NodeProcess> nodes = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            nodes.add(startNode(db, scenario, "n" + i, options));
        }
        return nodes;
    }

    private NodeProcess startNode(String db, String scenario, String name, String... options) throws Exception {
        return new NodeProcess(name, pg.url(db), pg.nodePassword, out.resolve(scenario + "-" + name + ".log"),
                               options);
    }

    /** Stops the nodes (but those already dead or gone); each must exit cleanly. */
    private static void stopAll(Tap tap, List<NodeProcess> nodes, Set<NodeProcess> gone) throws Exception {
        List<String> problems = new ArrayList<>();
        for (NodeProcess n : nodes) {
            if (gone.contains(n)) {
                continue;
            }
            int status = n.stop();
            if (status != 0) {
                problems.add(n.name + " exited with status " + status);
            }
        }
        for (NodeProcess n : nodes) {
            if (!gone.contains(n)) {
                tap.note(n.log().lines().filter(l -> l.startsWith("started") || l.startsWith("stopped"))
                        .reduce((a, b) -> a + "; " + b).orElse(n.name + ": no start or stop line"));
            }
        }
        tap.check("the nodes stopped cleanly", problems);
    }

    private static void killAll(List<NodeProcess> nodes) throws InterruptedException {
        for (NodeProcess n : nodes) {
            if (n.alive()) {
                n.kill();
            }
        }
    }

    /** Waits until {@code count} nodes are live and have had time to read the ring. */
    private static void awaitLive(Connection c, int count) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        for (;;) {
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery(
                         "SELECT count(*) FROM wt_node WHERE expires_at > clock_timestamp()")) {
                rs.next();
                if (rs.getInt(1) >= count) {
                    break;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the nodes did not register within a minute");
            }
            Thread.sleep(100);
        }
        Thread.sleep(1000);
    }

    /** Waits until {@code node} is live; when it was seen so. */
    private static long awaitNode(Connection c, String node) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT 1 FROM wt_node WHERE node = ? AND expires_at > clock_timestamp()")) {
            ps.setString(1, node);
            for (;;) {
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        return Micros.now();
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(node + " did not register within a minute");
                }
                Thread.sleep(50);
            }
        }
    }

    /**
     * Waits until every due (job, time) of the workload has run, or until
     * {@link #SETTLE_MS} after {@code lastDueUs}; the runs then.
     */
    private static Map<Long, List<Verify.Run>> awaitRuns(Connection c, Workload w, Set<Long> elsewhere,
                                                         long lastDueUs) throws Exception {
        sleepUntil(lastDueUs);
        long deadline = lastDueUs + SETTLE_MS * 1000;
        Predicate<Map<Long, List<Verify.Run>>> done = runs ->
                Verify.exactlyOnce(w.jobs.values(), runs, elsewhere).isEmpty();
        for (;;) {
            Map<Long, List<Verify.Run>> runs = Verify.runs(c);
            if (done.test(runs) || Micros.now() > deadline) {
                Thread.sleep(500);   // let a stray late run show itself
                return Verify.runs(c);
            }
            Thread.sleep(500);
        }
    }

    private static void sleepUntil(long us) throws InterruptedException {
        long ms = (us - Micros.now()) / 1000;
        if (ms > 0) {
            Thread.sleep(ms);
        }
    }

    static Instant instant(long us) {
        return Micros.toInstant(us);
    }
}
