// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * View.java - what a node holds at a moment: its lease's generation, its
 * slots, its window
 */
package org.wheeltimer.scheduler;

/**
 * The node's current claim, published whole by the control thread
 * ({@link Control}) and read by every other: the generation of the lease
 * it fires under, the slots it owns on the ring, and its horizon (it holds
 * in its wheel the occurrences of its jobs due before that time).
 *
 * <p>A view is published before the jobs it covers are loaded: a change
 * that a notification brings after the publication is applied by the
 * listener under the new view, and one that came before it was committed
 * before the load's snapshot, which sees it. Nothing falls between.
 */
record View(long generation, boolean[] slots, long horizonUs) {
    /** Holding no lease: nothing is armed, nothing fires. */
    static final View NONE = new View(0, new boolean[Job.SLOTS], Long.MIN_VALUE);

    boolean owns(long jobId) {
        return generation != 0 && slots[Job.slot(jobId)];
    }

    /** Whether an occurrence of job {@code jobId} due at {@code dueUs} belongs in the wheel now. */
    boolean holds(long jobId, long dueUs) {
        return owns(jobId) && dueUs < horizonUs;
    }

    View withHorizon(long horizon) {
        return new View(generation, slots, horizon);
    }

    /** The slots {@code a} owns and {@code b} does not, as an array for SQL. */
    static int[] difference(boolean[] a, boolean[] b) {
        int n = 0;
        for (int s = 0; s < Job.SLOTS; s++) {
            if (a[s] && !b[s]) {
                n++;
            }
        }
        int[] out = new int[n];
        n = 0;
        for (int s = 0; s < Job.SLOTS; s++) {
            if (a[s] && !b[s]) {
                out[n++] = s;
            }
        }
        return out;
    }
}
