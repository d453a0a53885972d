// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * TaskRegistry.java - the tasks a WheelScheduledExecutor holds, in striped
 * arrays: O(1) in and out, walked only at shutdown
 */
package org.wheeltimer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The futures of a {@link WheelScheduledExecutor} that are neither done nor
 * given back by {@code shutdownNow()}: what {@code shutdown()} walks to apply
 * its policies and what termination waits for. The timer keeps the
 * deadlines; this keeps only membership.
 *
 * <p>A future is kept in one of several stripes, chosen by the thread that
 * adds it, each an array under the stripe's lock: adding appends, removing
 * moves the last one into the hole (the future knows its index), so both
 * are a lock and a few stores, touching the hole and the array's hot end,
 * never a neighbouring future (a linked list's removal would touch two,
 * cache misses at a million pending, and old objects made to point at new
 * ones, which the collector must scan). An array shrinks when it is a
 * quarter full, so that a burst leaves nothing behind. Threads that
 * schedule at once mostly take different locks. Each stripe also numbers
 * its futures (the tie-break of {@code compareTo}) and counts the cancels
 * since the timer's worker was last asked to take them (see {@link
 * WheelScheduledExecutor#finished}).
 */
final class TaskRegistry {
    /** Cancels per stripe after which the timer's worker is woken to release them. */
    static final int CANCELS_PER_WAKE = 1024;
    private static final int MIN_CAPACITY = 64;

    /** One array and its lock; the padding keeps stripes off each other's cache lines. */
    static final class Stripe {
        @SuppressWarnings("unused")
        private long p0, p1, p2, p3, p4, p5, p6;
        WheelScheduledFuture<?>[] tasks = new WheelScheduledFuture<?>[MIN_CAPACITY];
        int size;
        long seq;
        int cancels;
        @SuppressWarnings("unused")
        private long q0, q1, q2, q3, q4, q5, q6;
    }

    private final Stripe[] stripes;
    private final int mask;

    TaskRegistry() {
        int want = Math.max(4, 2 * Runtime.getRuntime().availableProcessors());
        int n = Integer.highestOneBit(want - 1) << 1;
        stripes = new Stripe[n];
        for (int i = 0; i < n; i++) {
            stripes[i] = new Stripe();
        }
        mask = n - 1;
    }

    private int stripeOfThisThread() {
        long id = Thread.currentThread().getId();
        return (int) (id ^ (id >>> 16)) & mask;
    }

    /** Adds {@code f} and gives it its sequence number. */
    void add(WheelScheduledFuture<?> f) {
        int i = stripeOfThisThread();
        Stripe s = stripes[i];
        synchronized (s) {
            if (s.size == s.tasks.length) {
                s.tasks = Arrays.copyOf(s.tasks, s.size * 2);
            }
            f.index = s.size;
            s.tasks[s.size++] = f;
            f.seq = (s.seq++ << 8) | i;
            f.stripe = i;
        }
    }

    /**
     * Removes {@code f} if it is here. Returns -1 if it was not, else 1 if
     * it was cancelled and its stripe has now counted {@link
     * #CANCELS_PER_WAKE} cancels since the last such answer, or has emptied
     * with cancels counted (the caller wakes the timer's worker), else 0.
     */
    int remove(WheelScheduledFuture<?> f, boolean cancelled) {
        int i = f.stripe;
        if (i < 0) {
            return -1;
        }
        Stripe s = stripes[i];
        synchronized (s) {
            if (f.stripe < 0) {
                return -1;
            }
            WheelScheduledFuture<?>[] a = s.tasks;
            int last = --s.size;
            WheelScheduledFuture<?> moved = a[last];
            a[f.index] = moved;
            moved.index = f.index;
            a[last] = null;
            f.stripe = -1;
            if (last < a.length / 4 && a.length > MIN_CAPACITY) {
                s.tasks = Arrays.copyOf(a, a.length / 2);
            }
            if (cancelled && (++s.cancels >= CANCELS_PER_WAKE || last == 0)) {
                s.cancels = 0;
                return 1;
            }
            return 0;
        }
    }

    /** Every future here, stripe by stripe (each stripe as of one instant). */
    List<WheelScheduledFuture<?>> snapshot() {
        List<WheelScheduledFuture<?>> all = new ArrayList<>();
        for (Stripe s : stripes) {
            synchronized (s) {
                all.addAll(Arrays.asList(s.tasks).subList(0, s.size));
            }
        }
        return all;
    }

    /** Whether no future is here. */
    boolean isEmpty() {
        for (Stripe s : stripes) {
            synchronized (s) {
                if (s.size != 0) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The number of futures here. */
    long size() {
        long n = 0;
        for (Stripe s : stripes) {
            synchronized (s) {
                n += s.size;
            }
        }
        return n;
    }
}
