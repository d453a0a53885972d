// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Lease.java - the node's lease as the node itself counts it
 */
package org.wheeltimer.scheduler;

/**
 * This node's lease: its generation (0 while it holds none) and how long
 * it may fire under it, counted on this node's monotonic clock from the
 * moment it sent the statement that granted or renewed it. The database
 * counts the same lease from the moment it executed that statement, which
 * is later, so the node's count runs out first: a node cut off from the
 * database stops firing before its lease lapses there and another node
 * can take its jobs over. (A hundredth of the lease is kept in hand for
 * the two clocks' rates, which NTP may skew by up to 0.05%.)
 *
 * <p>That is the node's own fence. The database's is the generation in
 * every run's insert ({@link Store#recordRuns}), which refuses a run
 * under a lapsed or superseded lease whatever the node believes.
 */
final class Lease {
    private final long leaseNanos;
    private volatile long generation;
    private volatile long deadlineNanos;

    Lease(long leaseNanos) {
        this.leaseNanos = leaseNanos;
    }

    /** Granted by a statement sent at {@code sentNanos} (System.nanoTime()). */
    synchronized void granted(long gen, long sentNanos) {
        deadlineNanos = sentNanos + leaseNanos - leaseNanos / 100;
        generation = gen;
    }

    /** Renewed by a statement sent at {@code sentNanos}, if it is still generation {@code gen}. */
    synchronized void renewed(long gen, long sentNanos) {
        if (gen == generation) {
            deadlineNanos = sentNanos + leaseNanos - leaseNanos / 100;
        }
    }

    synchronized void revoke() {
        generation = 0;
    }

    long generation() {
        return generation;
    }

    /** The local deadline, for the control thread to wake at. */
    long deadlineNanos() {
        return deadlineNanos;
    }

    boolean valid() {
        return generation != 0 && System.nanoTime() - deadlineNanos < 0;
    }

    /** Whether the node may still fire under generation {@code gen}. */
    boolean valid(long gen) {
        return gen == generation && valid();
    }
}
