// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Store.java - every statement a node sends to the database
 */
package org.wheeltimer.scheduler;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The node's SQL, in one place, each statement with what it relies on.
 * Only {@link #recordRuns} runs per firing: one statement for all the
 * occurrences a runner collected together, which neither takes a lock
 * that another firing waits for nor waits for one (a new row of
 * {@code wt_run} is invisible to others until it commits, and a key that
 * another transaction is inserting is left for later).
 */
final class Store {
    private Store() {
    }

    /** Creates the tables, indexes and triggers that are missing (schema.sql). */
    static void install(Connection c) throws SQLException {
        String sql;
        try (InputStream in = Store.class.getResourceAsStream("schema.sql")) {
            if (in == null) {
                throw new IllegalStateException("schema.sql is missing from the jar");
            }
            sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read schema.sql", e);
        }
        try (Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }

    // ---- leases and membership ----

    /** A node's row: a new lease, with a generation one above any earlier one of this name. */
    static long register(Connection c, String node, long leaseMs) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("""
                INSERT INTO wt_node AS n (node, generation, expires_at, registered_at)
                VALUES (?, 1, clock_timestamp() + ? * interval '1 millisecond', clock_timestamp())
                ON CONFLICT (node) DO UPDATE
                    SET generation = n.generation + 1, expires_at = EXCLUDED.expires_at,
                        registered_at = EXCLUDED.registered_at
                RETURNING generation""")) {
            ps.setString(1, node);
            ps.setLong(2, leaseMs);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Extends the lease if it is still this generation's and has not lapsed. */
    static boolean renew(Connection c, String node, long generation, long leaseMs) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("""
                UPDATE wt_node SET expires_at = clock_timestamp() + ? * interval '1 millisecond'
                 WHERE node = ? AND generation = ? AND expires_at > clock_timestamp()""")) {
            ps.setLong(1, leaseMs);
            ps.setString(2, node);
            ps.setLong(3, generation);
            return ps.executeUpdate() == 1;
        }
    }

    /** Whether the lease is still this generation's and has not lapsed. */
    static boolean holds(Connection c, String node, long generation) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT 1 FROM wt_node
                 WHERE node = ? AND generation = ? AND expires_at > clock_timestamp()""")) {
            ps.setString(1, node);
            ps.setLong(2, generation);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    /** Leaves the ring at once (a clean stop): the others take the slots over without waiting. */
    static void leave(Connection c, String node, long generation) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "DELETE FROM wt_node WHERE node = ? AND generation = ?")) {
            ps.setString(1, node);
            ps.setLong(2, generation);
            ps.executeUpdate();
        }
    }

    /** A live node, and how long its lease has to run by the database's clock. */
    record Member(String node, long generation, long remainingMs) {
    }

    static List<Member> members(Connection c) throws SQLException {
        List<Member> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT node, generation,
                       ceil(extract(epoch FROM expires_at - clock_timestamp()) * 1000)::bigint
                  FROM wt_node WHERE expires_at > clock_timestamp()""");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(new Member(rs.getString(1), rs.getLong(2), rs.getLong(3)));
            }
        }
        return out;
    }

    /**
     * Ends the sessions of these nodes whose leases have lapsed, in this
     * database (a node's sessions are known by their application_name,
     * {@code applications}, in the same order): a node stopped, or cut
     * off, inside a run's transaction holds that run's key until its
     * transaction ends, and the others are to take its runs over once its
     * lease has lapsed. How many sessions it ended. It needs the right to
     * signal them: nodes that share one role have it; nodes of different
     * roles need {@code pg_signal_backend} (else SQLSTATE 42501).
     */
    static int endSessions(Connection c, List<String> nodes, List<String> applications) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT count(*) FILTER (WHERE pg_terminate_backend(a.pid))
                  FROM unnest(?::text[], ?::text[]) AS g(node, application)
                  JOIN wt_node n ON n.node = g.node AND n.expires_at <= clock_timestamp()
                  JOIN pg_stat_activity a ON a.application_name = g.application
                 WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()""")) {
            ps.setArray(1, c.createArrayOf("text", nodes.toArray()));
            ps.setArray(2, c.createArrayOf("text", applications.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    /** Forgets nodes dead for longer than {@code olderThanMs}. */
    static void forgetDeadNodes(Connection c, long olderThanMs) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("""
                DELETE FROM wt_node
                 WHERE expires_at < clock_timestamp() - ? * interval '1 millisecond'""")) {
            ps.setLong(1, olderThanMs);
            ps.executeUpdate();
        }
    }

    // ---- jobs ----

    /** A job's row with its latest run, or why it cannot be scheduled. */
    record Loaded(long jobId, long version, Job job, long lastScheduledUs, long lastFiredUs,
                  String malformed) {
    }

    private static final String LOAD = """
            SELECT j.job_id, j.version, j.handler, j.payload, j.mode,
                   j.start_at, j.period_ms, j.end_at, r.scheduled_at, r.fired_at
              FROM wt_job j
              LEFT JOIN LATERAL (SELECT r.scheduled_at, r.fired_at FROM wt_run r
                                  WHERE r.job_id = j.job_id
                                  ORDER BY r.scheduled_at DESC LIMIT 1) r ON true
            """;

    /** The jobs of these slots whose first occurrence is before the horizon. */
    static List<Loaded> jobsOfSlots(Connection c, int[] slots, long horizonUs) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(LOAD
                + " WHERE j.slot = ANY(?) AND j.start_at < ?")) {
            Integer[] boxed = new Integer[slots.length];
            for (int i = 0; i < slots.length; i++) {
                boxed[i] = slots[i];
            }
            ps.setArray(1, c.createArrayOf("integer", boxed));
            ps.setObject(2, time(horizonUs));
            return loaded(ps);
        }
    }

    /** These jobs, those that still exist. */
    static List<Loaded> jobs(Connection c, Set<Long> ids) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(LOAD + " WHERE j.job_id = ANY(?)")) {
            ps.setArray(1, c.createArrayOf("bigint", ids.toArray(new Long[0])));
            return loaded(ps);
        }
    }

    private static List<Loaded> loaded(PreparedStatement ps) throws SQLException {
        List<Loaded> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                long id = rs.getLong(1);
                long version = rs.getLong(2);
                OffsetDateTime last = rs.getObject(9, OffsetDateTime.class);
                try {
                    Job job = Job.of(id, version, rs.getString(3), rs.getString(4), rs.getString(5),
                                     micros(rs.getObject(6, OffsetDateTime.class)),
                                     rs.getObject(7, Long.class),
                                     rs.getObject(8) == null ? null
                                             : micros(rs.getObject(8, OffsetDateTime.class)));
                    out.add(new Loaded(id, version, job,
                                       last == null ? Job.NONE : micros(last),
                                       last == null ? Job.NONE : micros(rs.getObject(10, OffsetDateTime.class)),
                                       null));
                } catch (Job.MalformedException e) {
                    out.add(new Loaded(id, version, null, Job.NONE, Job.NONE, e.getMessage()));
                }
            }
        }
        return out;
    }

    /**
     * Deletes jobs that have no further occurrence, if unchanged since:
     * their runs stay in the log. Quietly: no node needs to hear of it.
     * Within the caller's transaction.
     */
    static void deleteFinished(Connection c, List<Job> jobs) throws SQLException {
        Long[] ids = new Long[jobs.size()];
        Long[] versions = new Long[jobs.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = jobs.get(i).id();
            versions[i] = jobs.get(i).version();
        }
        try (Statement st = c.createStatement()) {
            st.execute("SET LOCAL wt.quiet = 'on'");
        }
        try (PreparedStatement ps = c.prepareStatement("""
                DELETE FROM wt_job j USING unnest(?::bigint[], ?::bigint[]) AS f(job_id, version)
                 WHERE j.job_id = f.job_id AND j.version = f.version""")) {
            ps.setArray(1, c.createArrayOf("bigint", ids));
            ps.setArray(2, c.createArrayOf("bigint", versions));
            ps.executeUpdate();
        }
    }

    // ---- runs ----

    /** What {@link #recordRuns} did with a batch's occurrences: those it inserted, and those held by another. */
    record Recorded(Set<Occurrence> inserted, Set<Occurrence> busy) {
    }

    /**
     * The commit point of a run: inserts the run of each occurrence, all in
     * one statement, within the caller's transaction. An occurrence gets no
     * row if it already ran (the key), if its job changed or went since the
     * node loaded it (the version), or if the node's lease has lapsed or
     * was superseded (the generation): the fence that keeps a node cut off
     * from the others from running what they have taken over. {@code
     * error}: the handler's failure, for a run of one that failed.
     *
     * <p>It never waits for another transaction. Before its insert, each
     * run takes a transaction-level advisory lock on its key with
     * {@code pg_try_advisory_xact_lock} (PostgreSQL's two-key form: the
     * job's id and the scheduled time in microseconds, each modulo 2^31;
     * two keys that share a lock, one job's times 35 minutes apart both in
     * flight, only make one come back after the other's commit): a key
     * whose lock another transaction holds is one that transaction is
     * inserting and has not committed (a node racing for the same
     * occurrence during a hand-over, or one stopped inside its transaction),
     * and it is left out and returned as busy, for the runner to come back
     * to; a key locked here has no uncommitted row of another, so the
     * insert finds it free or committed at once. So no batch waits behind
     * one held key, and no node behind another's waiting batch.
     *
     * <p>A row inserted is the run of one occurrence: the one of its key
     * and version. Two occurrences of one key can come in one batch (the
     * agenda armed a newer version of a job whose occurrence had fired and
     * was waiting for a runner; or a slot moved away and back while its
     * occurrences waited): only the newest version is offered to the
     * insert, and the others are returned as neither inserted nor busy, so
     * that a handler runs once per row, whatever the batch holds.
     */
    static Recorded recordRuns(Connection c, String node, long generation,
                               List<Occurrence> runs, String error) throws SQLException {
        Map<String, Occurrence> byKey = new HashMap<>();
        for (Occurrence o : runs) {
            byKey.merge(key(o.job.id(), o.dueUs), o,
                        (a, b) -> b.job.version() > a.job.version() ? b : a);
        }
        List<Occurrence> offered = new ArrayList<>(byKey.values());
        int n = offered.size();
        Long[] ids = new Long[n];
        String[] due = new String[n];
        Long[] versions = new Long[n];
        String[] fired = new String[n];
        for (int i = 0; i < n; i++) {
            Occurrence o = offered.get(i);
            ids[i] = o.job.id();
            due[i] = Micros.toInstant(o.dueUs).toString();
            versions[i] = o.job.version();
            fired[i] = Micros.toInstant(o.firedUs).toString();
        }
        Set<Occurrence> inserted = new HashSet<>();
        Set<Occurrence> busy = new HashSet<>();
        try (PreparedStatement ps = c.prepareStatement("""
                WITH lease AS MATERIALIZED (
                    SELECT EXISTS (SELECT FROM wt_node n
                                    WHERE n.node = ? AND n.generation = ?
                                      AND n.expires_at > clock_timestamp()) AS holds),
                claim AS MATERIALIZED (
                    -- The run's lock: its job and time (µs), each modulo 2^31.
                    SELECT f.*, pg_try_advisory_xact_lock(
                               (f.job_id % 2147483648)::int,
                               ((extract(epoch FROM f.scheduled_at) * 1000000)::bigint % 2147483648)::int)
                               AS mine
                      FROM unnest(?::bigint[], ?::timestamptz[], ?::bigint[], ?::timestamptz[])
                           AS f(job_id, scheduled_at, version, fired_at), lease
                     WHERE lease.holds),
                ins AS (
                    INSERT INTO wt_run (job_id, scheduled_at, version, node, generation, fired_at, error)
                    SELECT k.job_id, k.scheduled_at, k.version, ?, ?, k.fired_at, ?
                      FROM claim k JOIN wt_job j ON j.job_id = k.job_id AND j.version = k.version
                     WHERE k.mine
                    ON CONFLICT (job_id, scheduled_at) DO NOTHING
                    RETURNING job_id, scheduled_at, version)
                SELECT k.job_id, k.scheduled_at, k.mine, i.version
                  FROM claim k LEFT JOIN ins i ON i.job_id = k.job_id AND i.scheduled_at = k.scheduled_at
                """)) {
            ps.setString(1, node);
            ps.setLong(2, generation);
            ps.setArray(3, c.createArrayOf("bigint", ids));
            ps.setArray(4, c.createArrayOf("text", due));
            ps.setArray(5, c.createArrayOf("bigint", versions));
            ps.setArray(6, c.createArrayOf("text", fired));
            ps.setString(7, node);
            ps.setLong(8, generation);
            ps.setString(9, error);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Occurrence o = byKey.get(key(rs.getLong(1), micros(rs.getObject(2, OffsetDateTime.class))));
                    if (o == null) {
                        continue;
                    }
                    if (!rs.getBoolean(3)) {
                        busy.add(o);
                    } else if (rs.getObject(4) != null && o.job.version() == rs.getLong(4)) {
                        inserted.add(o);
                    }
                }
            }
        }
        return new Recorded(inserted, busy);
    }

    private static String key(long jobId, long dueUs) {
        return jobId + "@" + dueUs;
    }

    static long micros(OffsetDateTime t) {
        return Micros.of(t.toInstant());
    }

    static OffsetDateTime time(long us) {
        return OffsetDateTime.ofInstant(Micros.toInstant(us), java.time.ZoneOffset.UTC);
    }
}
