// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Verify.java - what the run log and the effects say, checked against
 * what should have run
 */
package org.wheeltimer.scheduler.test;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.wheeltimer.scheduler.Micros;

/** Reads the run log and the effects, and lists every disagreement. */
final class Verify {
    private Verify() {
    }

    /**
     * A run as the log has it; {@code committedUs}: when its transaction
     * committed, by the database's clock (pg-run keeps commit times), where
     * {@code recordedUs} is when its row was inserted.
     */
    record Run(long jobId, long scheduledUs, long version, String node, long generation,
               long firedUs, long recordedUs, long committedUs, String error) {
    }

    /** Every run, by job, in scheduled order. */
    static Map<Long, List<Run>> runs(Connection c) throws SQLException {
        Map<Long, List<Run>> out = new HashMap<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("""
                     SELECT job_id, scheduled_at, version, node, generation, fired_at, recorded_at,
                            pg_xact_commit_timestamp(xmin), error
                       FROM wt_run ORDER BY job_id, scheduled_at""")) {
            while (rs.next()) {
                out.computeIfAbsent(rs.getLong(1), k -> new ArrayList<>()).add(new Run(
                        rs.getLong(1), us(rs, 2), rs.getLong(3), rs.getString(4), rs.getLong(5),
                        us(rs, 6), us(rs, 7), us(rs, 8), rs.getString(9)));
            }
        }
        return out;
    }

    /** Times in the log as the test prints them. */
    static String at(long us) {
        return Micros.toInstant(us).toString();
    }

    private static long us(ResultSet rs, int i) throws SQLException {
        return Micros.of(rs.getObject(i, OffsetDateTime.class).toInstant());
    }

    /**
     * Each job's runs are exactly its expected times, each once, and the
     * log holds no run of a job the test does not know, but those of
     * {@code checkedElsewhere}.
     */
    static List<String> exactlyOnce(Collection<Workload.Spec> specs, Map<Long, List<Run>> runs,
                                    Set<Long> checkedElsewhere) {
        List<String> problems = new ArrayList<>();
        Set<Long> known = new HashSet<>(checkedElsewhere);
        for (Workload.Spec s : specs) {
            known.add(s.id());
            List<Run> got = runs.getOrDefault(s.id(), List.of());
            List<Long> want = s.expected(got);
            List<Long> gotTimes = got.stream().map(Run::scheduledUs).toList();
            if (!gotTimes.equals(want)) {
                Set<Long> missing = new HashSet<>(want);
                gotTimes.forEach(missing::remove);
                Set<Long> extra = new HashSet<>(gotTimes);
                want.forEach(extra::remove);
                problems.add("job " + s.id() + " (" + s.mode() + "): " + missing.size() + " missing "
                        + missing.stream().sorted().limit(3).map(Verify::at).toList() + ", "
                        + extra.size() + " not expected "
                        + extra.stream().sorted().limit(3).map(Verify::at).toList()
                        + " (" + got.size() + " runs, " + want.size() + " expected)");
            }
        }
        for (Long id : runs.keySet()) {
            if (!known.contains(id)) {
                problems.add("job " + id + " ran but was never added, or should not have run");
            }
        }
        return problems;
    }

    /** How many (job, time)s should have run. */
    static long expectedCount(Collection<Workload.Spec> specs, Map<Long, List<Run>> runs) {
        long n = 0;
        for (Workload.Spec s : specs) {
            n += s.expected(runs.getOrDefault(s.id(), List.of())).size();
        }
        return n;
    }

    /** No run fired or was recorded before its time. */
    static List<String> noneEarly(Map<Long, List<Run>> runs) {
        List<String> problems = new ArrayList<>();
        for (List<Run> rs : runs.values()) {
            for (Run r : rs) {
                if (r.firedUs() < r.scheduledUs() || r.recordedUs() < r.scheduledUs()) {
                    problems.add("job " + r.jobId() + " at " + at(r.scheduledUs()) + " fired at "
                            + at(r.firedUs()) + ", recorded at " + at(r.recordedUs()) + " by " + r.node());
                }
            }
        }
        return problems;
    }

    /**
     * The effect of each run of a database job (a row of test_effect, which
     * has no key that could hide a second one) happened exactly once, and
     * none happened without its run; {@code alsoDb}: database jobs that
     * are not among the specs.
     */
    static List<String> effectsOnce(Connection c, Collection<Workload.Spec> specs,
                                    Map<Long, List<Run>> runs, Set<Long> alsoDb) throws SQLException {
        Map<String, Integer> effects = new HashMap<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(
                     "SELECT job_id, scheduled_at, count(*) FROM test_effect GROUP BY 1, 2")) {
            while (rs.next()) {
                effects.put(rs.getLong(1) + "@" + us(rs, 2), rs.getInt(3));
            }
        }
        List<String> problems = new ArrayList<>();
        Set<Long> db = new HashSet<>(alsoDb);
        specs.stream().filter(s -> Workload.EFFECT_HANDLERS.contains(s.handler())).forEach(s -> db.add(s.id()));
        for (long id : db) {
            for (Run r : runs.getOrDefault(id, List.of())) {
                Integer n = effects.remove(r.jobId() + "@" + r.scheduledUs());
                if (n == null || n != 1) {
                    problems.add("job " + r.jobId() + " at " + at(r.scheduledUs()) + ": effect "
                            + (n == null ? 0 : n) + " times");
                }
            }
        }
        effects.forEach((k, n) -> problems.add("effect " + k + " (" + n + " times) without its run"));
        return problems;
    }

    /**
     * Each effect was made with the payload of the job's version that its
     * run records: a run's handler was given the job as its run row says.
     */
    static List<String> payloads(Connection c, Workload w, Map<Long, List<Run>> runs) throws SQLException {
        Map<String, Long> versions = new HashMap<>();
        for (Run r : all(runs)) {
            versions.put(r.jobId() + "@" + r.scheduledUs(), r.version());
        }
        List<String> problems = new ArrayList<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT job_id, scheduled_at, payload FROM test_effect")) {
            while (rs.next()) {
                long id = rs.getLong(1);
                long at = us(rs, 2);
                Long version = versions.get(id + "@" + at);
                if (version == null || !w.jobs.containsKey(id)) {
                    continue;   // an effect without its run: effectsOnce says so
                }
                String want = w.payloadOf(id, version);
                if (!want.equals(rs.getString(3))) {
                    problems.add("job " + id + " at " + at(at) + " (version " + version + ") ran with payload '"
                            + rs.getString(3) + "', not its version's '" + want + "'");
                }
            }
        }
        return problems;
    }

    /** Runs, and effects of runs made more than once, of the jobs of handlers with an effect. */
    static String effectCounts(Connection c) throws SQLException {
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("""
                     SELECT (SELECT count(*) FROM wt_run), (SELECT count(*) FROM test_effect),
                            (SELECT count(*) FROM (SELECT FROM test_effect GROUP BY job_id, scheduled_at
                                                    HAVING count(*) > 1) d)""")) {
            rs.next();
            return rs.getLong(1) + " runs in the log, " + rs.getLong(2) + " handler effects, "
                    + rs.getLong(3) + " runs with more than one effect";
        }
    }

    /** All runs, flat. */
    static List<Run> all(Map<Long, List<Run>> runs) {
        List<Run> out = new ArrayList<>();
        runs.values().forEach(out::addAll);
        return out;
    }
}
