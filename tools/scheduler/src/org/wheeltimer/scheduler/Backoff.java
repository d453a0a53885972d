// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Backoff.java - waits between retries of a failed database call
 */
package org.wheeltimer.scheduler;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential back-off with jitter: 10 ms, then twice as long each time up
 * to {@code maxMillis}, each wait drawn between half and all of that, so
 * that nodes cut off together do not come back in step. The node's pool
 * waits for a connection up to the same maximum ({@link Scheduler}): a
 * call that failed waiting for the pool has waited already.
 */
final class Backoff {
    private static final long FIRST_MILLIS = 10;
    private final long maxMillis;
    private long next = FIRST_MILLIS;

    Backoff(long maxMillis) {
        this.maxMillis = Math.max(FIRST_MILLIS, maxMillis);
    }

    void reset() {
        next = FIRST_MILLIS;
    }

    /**
     * After a failed database call: sleeps, unless the call failed for
     * want of a connection from the pool, which waited its timeout (the
     * back-off's maximum) trying to connect and would have handed one over
     * the moment it had it. False if interrupted (the interrupt is kept).
     */
    boolean sleepAfter(SQLException e) {
        if (e instanceof SQLTransientConnectionException) {
            return !Thread.currentThread().isInterrupted();
        }
        return sleep();
    }

    /** Sleeps; false if interrupted (the interrupt is kept). */
    boolean sleep() {
        long ms = next / 2 + ThreadLocalRandom.current().nextLong(next / 2 + 1);
        next = Math.min(maxMillis, next * 2);
        try {
            Thread.sleep(ms);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
