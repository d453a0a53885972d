// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Job.java - a job as its row says, and the occurrences its schedule gives
 */
package org.wheeltimer.scheduler;

/**
 * One row of {@code wt_job}, checked: what to run ({@code handler},
 * {@code payload}) and when ({@code mode}, {@code start}, {@code period},
 * {@code end}), at the row's {@code version}. Times are microseconds since
 * the epoch, as PostgreSQL keeps them.
 *
 * <p>The occurrences of a job are its scheduled times, each run at most
 * once ({@code wt_run}'s key is the job and the scheduled time). The next
 * one is always after the job's latest run, whatever version that ran
 * under, and follows from it:
 * <ul>
 * <li>{@code once}: {@code start}, unless the job has run at or after it;
 * <li>{@code fixed_rate}: the first {@code start + k * period} after the
 *     latest run, up to {@code end}: every one runs, a late one at once (a
 *     node that was down catches up, in order, one run per occurrence);
 * <li>{@code fixed_delay}: {@code period} after the time the latest run
 *     fired ({@code fired_at}), up to {@code end}.
 * </ul>
 * A job with no run yet, or whose latest run is before {@code start} (it
 * was rescheduled later), starts at {@code start}. So any node computes the
 * same next occurrence from the log, two nodes racing for a job race for
 * the same key, and an occurrence found to have run moves the job on.
 */
record Job(long id, long version, String handler, String payload, Mode mode,
           long startUs, long periodUs, long endUs) {

    /** Jobs are spread over nodes by slot: the job's id modulo this. */
    static final int SLOTS = 4096;
    /** {@link #endUs} of a job without an end. */
    static final long NO_END = Long.MAX_VALUE;
    /** {@link #next} when there is no further occurrence. */
    static final long NONE = Long.MIN_VALUE;

    enum Mode {
        ONCE("once"), FIXED_RATE("fixed_rate"), FIXED_DELAY("fixed_delay");

        final String sql;

        Mode(String sql) {
            this.sql = sql;
        }

        static Mode of(String sql) {
            for (Mode m : values()) {
                if (m.sql.equals(sql)) {
                    return m;
                }
            }
            return null;
        }
    }

    /** A row that cannot be scheduled: which and why. */
    static final class MalformedException extends Exception {
        private static final long serialVersionUID = 1L;

        MalformedException(String why) {
            super(why);
        }
    }

    /**
     * The job of a row, checked: the schema leaves {@code mode} and
     * {@code period_ms} unchecked (a client, or a newer version of this
     * code, may write what this one does not know), so this is where a row
     * is found malformed.
     */
    static Job of(long id, long version, String handler, String payload, String mode,
                  long startUs, Long periodMs, Long endUs) throws MalformedException {
        Mode m = Mode.of(mode);
        if (m == null) {
            throw new MalformedException("mode '" + mode + "' is none of once, fixed_rate, fixed_delay");
        }
        long periodUs = 0;
        if (m != Mode.ONCE) {
            if (periodMs == null || periodMs <= 0) {
                throw new MalformedException(m.sql + " needs a positive period_ms, not " + periodMs);
            }
            periodUs = Math.multiplyExact(periodMs, 1000L);
        }
        return new Job(id, version, handler, payload, m, startUs, periodUs,
                       endUs == null ? NO_END : endUs);
    }

    static int slot(long jobId) {
        return (int) Math.floorMod(jobId, (long) SLOTS);
    }

    int slot() {
        return slot(id);
    }

    /**
     * The occurrence after the job's latest run, scheduled at
     * {@code lastScheduledUs} and fired at {@code lastFiredUs}
     * ({@code lastScheduledUs == NONE}: it never ran); {@link #NONE} if
     * there is none.
     */
    long next(long lastScheduledUs, long lastFiredUs) {
        long t;
        if (lastScheduledUs == NONE || lastScheduledUs < startUs) {
            t = startUs;
        } else {
            t = switch (mode) {
            case ONCE -> NONE;
            case FIXED_RATE -> startUs + (Math.floorDiv(lastScheduledUs - startUs, periodUs) + 1) * periodUs;
            case FIXED_DELAY -> lastFiredUs + periodUs;
            };
        }
        return t != NONE && t <= endUs ? t : NONE;
    }
}
