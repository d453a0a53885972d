// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Stripes.java - which stripe of a striped structure a thread uses
 */
package org.wheeltimer;

/**
 * The stripes of what many threads write at once (the hand-over's lanes
 * and count, the executor's live count): each thread writes the one its
 * id picks, the same one each time, so that threads apart in time or in
 * id write lines of their own.
 */
final class Stripes {
    /** A power of two: twice the processors, at least 4. */
    static final int COUNT =
            Integer.highestOneBit(Math.max(4, 2 * Runtime.getRuntime().availableProcessors()) - 1) << 1;

    private Stripes() {
    }

    /** The current thread's stripe, below {@link #COUNT}: threads' ids are given in turn. */
    static int current() {
        return (int) Thread.currentThread().getId() & (COUNT - 1);
    }
}
