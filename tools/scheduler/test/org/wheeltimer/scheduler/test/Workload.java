// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Workload.java - the jobs a scenario adds, as the test knows them
 */
package org.wheeltimer.scheduler.test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.wheeltimer.scheduler.Micros;

/**
 * Jobs as the test added them (their ids once inserted), from which it
 * knows what should run: {@link Spec#expected} gives the scheduled times.
 */
final class Workload {
    /** A job; periodUs 0 for once, endUs Long.MAX_VALUE for none. */
    record Spec(long id, String handler, String mode, long startUs, long periodUs, long endUs) {
        Spec withId(long newId) {
            return new Spec(newId, handler, mode, startUs, periodUs, endUs);
        }

        /**
         * The times that should have run, given the runs that did (a
         * fixed-delay job's times follow from when its runs fired).
         */
        List<Long> expected(List<Verify.Run> runs) {
            List<Long> out = new ArrayList<>();
            switch (mode) {
            case "once" -> out.add(startUs);
            case "fixed_rate" -> {
                for (long t = startUs; t <= endUs; t += periodUs) {
                    out.add(t);
                }
            }
            case "fixed_delay" -> {
                long t = startUs;
                for (int i = 0; t <= endUs; i++) {
                    out.add(t);
                    if (i >= runs.size() || runs.get(i).scheduledUs() != t) {
                        break;   // the chain stops being known where the runs leave it
                    }
                    t = runs.get(i).firedUs() + periodUs;
                }
            }
            default -> throw new IllegalArgumentException(mode);
            }
            return out;
        }
    }

    /** The handlers whose runs make an effect (a row of test_effect) that commits with them. */
    static final Set<String> EFFECT_HANDLERS = Set.of("db", "slow", "hold");

    final Map<Long, Spec> jobs = new LinkedHashMap<>();
    /** The payload each job was added with. */
    private final Map<Long, String> payloads = new HashMap<>();
    /** Whether {@link #editPayloads} has run: each version then has one '+' more. */
    private boolean payloadsEdited;
    private final Random random;

    Workload(long seed) {
        random = new Random(seed);
    }

    /** {@code n} one-shot jobs due uniformly in [fromUs, fromUs + spanMs). */
    List<Spec> once(int n, String handler, long fromUs, long spanMs) {
        List<Spec> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new Spec(0, handler, "once", fromUs + (long) (random.nextDouble() * spanMs * 1000), 0,
                             Long.MAX_VALUE));
        }
        return out;
    }

    /** {@code n} periodic jobs, starting in [fromUs, fromUs + startSpanMs), periods in [minMs, maxMs]. */
    List<Spec> periodic(int n, String handler, String mode, long fromUs, long startSpanMs,
                        long minMs, long maxMs, long endUs) {
        List<Spec> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long start = fromUs + (long) (random.nextDouble() * startSpanMs * 1000);
            long period = (minMs + (long) (random.nextDouble() * (maxMs - minMs + 1))) * 1000;
            out.add(new Spec(0, handler, mode, start, period, endUs));
        }
        return out;
    }

    /** Handlers alternate: half of the jobs do a database action. */
    String handler(int i) {
        return i % 2 == 0 ? "db" : "noop";
    }

    /** A job added elsewhere, with its payload. */
    void add(Spec s, String payload) {
        jobs.put(s.id(), s);
        payloads.put(s.id(), payload);
    }

    /**
     * A client's edit of every fixed-rate job that is left: its payload gets
     * a '+' (and the job a new version, which nothing else changes in the
     * scenarios that call this). How many jobs it changed.
     */
    int editPayloads(Connection c) throws SQLException {
        payloadsEdited = true;
        try (Statement st = c.createStatement()) {
            return st.executeUpdate("UPDATE wt_job SET payload = payload || '+' WHERE mode = 'fixed_rate'");
        }
    }

    /** The payload of job {@code id} at {@code version}. */
    String payloadOf(long id, long version) {
        String p = payloads.get(id);
        return payloadsEdited ? p + "+".repeat((int) (version - 1)) : p;
    }

    /** Inserts the jobs in one statement and transaction; they get their ids. */
    List<Spec> insert(Connection c, List<Spec> specs) throws SQLException {
        int n = specs.size();
        String[] handler = new String[n];
        String[] payload = new String[n];
        String[] mode = new String[n];
        String[] start = new String[n];
        Long[] period = new Long[n];
        String[] end = new String[n];
        for (int i = 0; i < n; i++) {
            Spec s = specs.get(i);
            handler[i] = s.handler();
            payload[i] = Integer.toString(i);
            mode[i] = s.mode();
            start[i] = Micros.toInstant(s.startUs()).toString();
            period[i] = s.periodUs() == 0 ? null : s.periodUs() / 1000;
            end[i] = s.endUs() == Long.MAX_VALUE ? null : Micros.toInstant(s.endUs()).toString();
        }
        List<Spec> out = new ArrayList<>(specs);
        try (PreparedStatement ps = c.prepareStatement("""
                INSERT INTO wt_job (handler, payload, mode, start_at, period_ms, end_at)
                SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::timestamptz[], ?::bigint[],
                                     ?::timestamptz[])
                RETURNING job_id, payload""")) {
            ps.setArray(1, c.createArrayOf("text", handler));
            ps.setArray(2, c.createArrayOf("text", payload));
            ps.setArray(3, c.createArrayOf("text", mode));
            ps.setArray(4, c.createArrayOf("text", start));
            ps.setArray(5, c.createArrayOf("bigint", period));
            ps.setArray(6, c.createArrayOf("text", end));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    int i = Integer.parseInt(rs.getString(2));
                    Spec s = specs.get(i).withId(rs.getLong(1));
                    out.set(i, s);
                    jobs.put(s.id(), s);
                    payloads.put(s.id(), rs.getString(2));
                }
            }
        }
        return out;
    }
}
