// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Micros.java - wall-clock time in microseconds since the epoch, as
 * PostgreSQL's timestamptz keeps it
 */
package org.wheeltimer.scheduler;

import java.time.Instant;

/** The scheduler's time: microseconds since the epoch, on the node's wall clock. */
public final class Micros {
    private Micros() {
    }

    /** Now, on this node's wall clock. */
    public static long now() {
        return of(Instant.now());
    }

    public static long of(Instant t) {
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000);
    }

    public static Instant toInstant(long us) {
        return Instant.ofEpochSecond(Math.floorDiv(us, 1_000_000L), Math.floorMod(us, 1_000_000L) * 1000L);
    }
}
