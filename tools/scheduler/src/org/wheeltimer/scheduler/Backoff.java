// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Backoff.java - waits between retries of a failed database call
 */
package org.wheeltimer.scheduler;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential back-off with jitter: 10 ms, then twice as long each time up
 * to {@code maxMillis}, each wait drawn between half and all of that, so
 * that nodes cut off together do not come back in step.
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
