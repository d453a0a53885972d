// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Jobs.java - adding, changing and cancelling jobs, from any node or client
 */
package org.wheeltimer.scheduler;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;

/**
 * The client's side: each call is one statement on {@code wt_job}, in the
 * caller's transaction, and the owning node hears of it when it commits
 * (the table's trigger NOTIFYs). The same can be done in plain SQL from
 * any language:
 *
 * <pre>
 * INSERT INTO wt_job (handler, payload, mode, start_at, period_ms, end_at)
 *      VALUES ('invoice', '42', 'once', '2030-01-01 09:00Z', NULL, NULL) RETURNING job_id;
 * UPDATE wt_job SET start_at = '2030-01-01 10:00Z' WHERE job_id = 7;   -- reschedule
 * DELETE FROM wt_job WHERE job_id = 7;                                -- cancel
 * </pre>
 *
 * Any update makes a new version of the job (a trigger counts it): an
 * occurrence of the old version that has not yet run never will, and the
 * new version's occurrences follow from its own columns, after the job's
 * latest run (see {@code Job}): rescheduling a one-shot job that already ran
 * to a later time runs it again then, to an earlier time does not. A job
 * due in the past runs at once, once.
 */
public final class Jobs {
    private Jobs() {
    }

    /** A job that runs once, at {@code at}. */
    public static long once(Connection c, String handler, String payload, Instant at) throws SQLException {
        return insert(c, handler, payload, "once", at, null, null);
    }

    /** Runs at {@code start + k * period} up to {@code end} (null: no end), every one. */
    public static long fixedRate(Connection c, String handler, String payload, Instant start,
                                 Duration period, Instant end) throws SQLException {
        return insert(c, handler, payload, "fixed_rate", start, period, end);
    }

    /** Runs at {@code start}, then {@code delay} after each run fired, up to {@code end}. */
    public static long fixedDelay(Connection c, String handler, String payload, Instant start,
                                  Duration delay, Instant end) throws SQLException {
        return insert(c, handler, payload, "fixed_delay", start, delay, end);
    }

    /** Cancels a job: no occurrence of it runs from the commit on. False if there was none. */
    public static boolean cancel(Connection c, long jobId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("DELETE FROM wt_job WHERE job_id = ?")) {
            ps.setLong(1, jobId);
            return ps.executeUpdate() == 1;
        }
    }

    /** Moves a job's first occurrence to {@code start} (a new version). False if there was none. */
    public static boolean reschedule(Connection c, long jobId, Instant start) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("UPDATE wt_job SET start_at = ? WHERE job_id = ?")) {
            ps.setObject(1, Store.time(Micros.of(start)));
            ps.setLong(2, jobId);
            return ps.executeUpdate() == 1;
        }
    }

    private static long insert(Connection c, String handler, String payload, String mode, Instant start,
                               Duration period, Instant end) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("""
                INSERT INTO wt_job (handler, payload, mode, start_at, period_ms, end_at)
                VALUES (?, ?, ?, ?, ?, ?) RETURNING job_id""")) {
            ps.setString(1, handler);
            ps.setString(2, payload);
            ps.setString(3, mode);
            ps.setObject(4, Store.time(Micros.of(start)));
            if (period == null) {
                ps.setNull(5, Types.BIGINT);
            } else {
                ps.setLong(5, period.toMillis());
            }
            if (end == null) {
                ps.setNull(6, Types.TIMESTAMP_WITH_TIMEZONE);
            } else {
                ps.setObject(6, Store.time(Micros.of(end)));
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }
}
