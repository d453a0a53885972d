// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * FarHold.java - a coarse wheel of one-shot adds due seconds ahead, kept
 * from the engine until their time comes near
 */
package org.wheeltimer;

import java.util.Arrays;
import java.util.function.Consumer;

/**
 * One-shot adds due {@link #MIN_AHEAD} buckets or more ahead, kept here
 * instead of being handed to the engine: most request
 * timeouts are cancelled long before they are due, and one cancelled here
 * costs its caller no push (it was never taken) and the engine nothing.
 * A bucket covers {@link #BUCKET_NANOS} of deadlines; it is released, its
 * adds handed to the engine in the order they were held, when the bucket
 * before it begins, so that the engine has each at least one bucket before
 * its deadline. Not thread-safe: the worker has one of its own, for the
 * adds it takes from the lanes, and each stripe one that its callers hold
 * their far adds in themselves, under the hold's lock ({@link Lane}).
 *
 * <p>A timeout held is not taken (its state is still INIT): its cancel()
 * only marks it, and the hold drops it when it meets it, at its release
 * or at a compaction. Compactions keep what it holds, dead or alive, below
 * twice what was alive at the last one plus {@link #SLACK}, and about a
 * thirty-first more for the adds made during one: a stream of adds
 * cancelled soon after costs each a look, amortized. Such a compaction is
 * a pass over the buckets in steps of {@link #SWEEP_STEP} looks, one every
 * {@link #SWEEP_EVERY} adds, so that no add pays for the whole hold (at a
 * million held, tens of ms); a step comes seldom enough that the JIT
 * keeps it out of line, off the path of the adds between. The worker also
 * compacts at once when fewer timeouts are pending than half what the
 * hold holds (a mass cancel), and for purge().
 *
 * <p>An idle worker sleeps until the next bucket that holds anything is
 * to be released ({@link #nextRelease}): one wake-up per such bucket, at
 * most one a bucket's width, never more than the engine's own wake-ups
 * for the deadlines the bucket holds.
 */
final class FarHold {
    /** log2 of a bucket's width in ns: about 1.07 s. */
    static final int BUCKET_SHIFT = 30;
    static final long BUCKET_NANOS = 1L << BUCKET_SHIFT;
    /** Buckets, so how far ahead the hold reaches: about 2.3 minutes. */
    static final int BUCKETS = 128;
    /** How many buckets ahead of the one now an add must be to be held. */
    static final int MIN_AHEAD = 2;
    /** What the hold may hold above twice what was alive at the last compaction. */
    static final int SLACK = 4096;
    /** The looks a step of a compaction takes: a timeout, or a slot passed. */
    static final int SWEEP_STEP = 4096;
    /** The adds held between two steps of a compaction under way. */
    static final int SWEEP_EVERY = 128;
    private static final int FIRST_CAPACITY = 64;
    /** A bucket's array larger than this is let go once released. */
    private static final int KEPT_CAPACITY = 4096;

    /**
     * A slot of the hold: one bucket's timeouts at a time. One object a
     * slot, not parallel arrays, so that an add checks one index.
     */
    private static final class Slot {
        /** What it holds, from 0 to count; null until its first add, or once let go. */
        WheelTimeout[] timeouts;
        int count;
        /**
         * The bucket it holds, while count is not 0: a stripe's callers
         * may hold a bucket a whole turn after one that the worker has
         * yet to release, in the same slot, when the worker slept through
         * many buckets; such an add is not held.
         */
        long bucket;
    }

    private final Slot[] slots = new Slot[BUCKETS];

    /** The last bucket released (all before it too); Long.MIN_VALUE before the first release. */
    private long released = Long.MIN_VALUE;
    /** What the buckets hold, cancelled or not. */
    private int size;
    /** The size at which the next add takes a step of a compaction first. */
    private int compactAt = SLACK;
    /** The first bucket after {@link #released} that holds anything, or Long.MAX_VALUE. */
    private long firstHeld = Long.MAX_VALUE;
    /*
     * The compaction under way: the slot it is in, or -1 if none. In that
     * slot, [0, sweepWrite) is kept, [sweepWrite, sweepRead) is a gap of
     * stale references, and [sweepRead, count) is still to be looked at;
     * the adds go after. Everything else that reads the slot first closes
     * the gap (closeGap()).
     */
    private int sweepBucket = -1;
    private int sweepRead;
    private int sweepWrite;

    FarHold() {
        for (int b = 0; b < BUCKETS; b++) {
            slots[b] = new Slot();
        }
    }

    /** The bucket of a time in ns. */
    static long bucketOf(long nanos) {
        return nanos >> BUCKET_SHIFT;
    }

    /** What the hold holds, cancelled or not. */
    int size() {
        return size;
    }

    /**
     * Releases the buckets that begin before one bucket after {@code now}'s
     * begins: gives each timeout they hold to {@code give}, cancelled or not,
     * in the order held. The worker's own hold: before {@link #offer} with
     * the same {@code now}.
     */
    void release(long now, Consumer<WheelTimeout> give) {
        long upTo = bucketOf(now) + 1;
        if (firstHeld > upTo) {
            released = Math.max(released, upTo);
            return;
        }
        // A clock that jumped a whole turn ahead releases everything once.
        long from = Math.max(released + 1, upTo - BUCKETS + 1);
        for (long k = from; k <= upTo; k++) {
            int b = (int) (k & (BUCKETS - 1));
            Slot s = slots[b];
            if (s.count != 0 && s.bucket <= upTo) {
                empty(b, give);
            }
        }
        released = Math.max(released, upTo);
        findFirstHeld();
    }

    /**
     * When the worker is to release the next bucket that holds anything
     * (the time the bucket before it begins), in ns; Long.MAX_VALUE if the
     * hold is empty.
     */
    long nextRelease() {
        return firstHeld == Long.MAX_VALUE ? Long.MAX_VALUE : (firstHeld - 1) << BUCKET_SHIFT;
    }

    private void findFirstHeld() {
        long first = Long.MAX_VALUE;
        if (size != 0) {
            for (Slot s : slots) {
                if (s.count != 0 && s.bucket < first) {
                    first = s.bucket;
                }
            }
        }
        firstHeld = first;
    }

    /**
     * Gives bucket {@code b}'s timeouts to {@code give}, in the order held.
     * If {@code give} throws (the worker is failing), the timeout it was
     * given and those after it stay held, for {@link #forEach} (stop()).
     */
    private void empty(int b, Consumer<WheelTimeout> give) {
        if (b == sweepBucket) {
            closeGap();
        }
        Slot s = slots[b];
        int n = s.count;
        if (n == 0) {
            return;
        }
        WheelTimeout[] a = s.timeouts;
        int i = 0;
        try {
            for (; i < n; i++) {
                give.accept(a[i]);
                a[i] = null;
            }
        } finally {
            int rest = n - i;
            System.arraycopy(a, i, a, 0, rest);
            Arrays.fill(a, rest, n, null);
            s.count = rest;
            size -= i;
            if (rest == 0 && a.length > KEPT_CAPACITY) {
                s.timeouts = null;
            }
            if (b == sweepBucket) {
                // What stays is kept as it is: the compaction goes on after it.
                sweepRead = rest;
                sweepWrite = rest;
            }
        }
    }

    /**
     * Holds {@code t}, a one-shot add not yet taken, if it is due
     * {@link #MIN_AHEAD} buckets or more after {@code now} and within
     * reach; {@code dropped} is given the cancelled timeouts a compaction
     * drops first. False if it is not held (the engine is to have it).
     */
    boolean offer(WheelTimeout t, long now, Consumer<WheelTimeout> dropped) {
        long k = bucketOf(t.deadline);
        long ahead = k - bucketOf(now);
        if (ahead < MIN_AHEAD || ahead >= BUCKETS || k <= released) {
            return false;
        }
        if (size >= compactAt) {
            sweep(dropped);
        }
        Slot s = slots[(int) (k & (BUCKETS - 1))];
        int n = s.count;
        if (n == 0) {
            s.bucket = k;
        } else if (s.bucket != k) {
            return false;
        }
        WheelTimeout[] a = s.timeouts;
        if (a == null) {
            a = s.timeouts = new WheelTimeout[FIRST_CAPACITY];
        } else if (n == a.length) {
            a = s.timeouts = Arrays.copyOf(a, n * 2);
        }
        a[n] = t;
        s.count = n + 1;
        size++;
        if (k < firstHeld) {
            firstHeld = k;
        }
        return true;
    }

    /**
     * Takes a step of {@link #SWEEP_STEP} looks of the compaction under
     * way, or of one it begins: drops the cancelled timeouts it meets,
     * giving each to {@code dropped}, and keeps the order of the rest.
     * Sets when the next step comes, {@link #SWEEP_EVERY} adds later, or,
     * at the end of the last slot, when the next compaction begins.
     */
    private void sweep(Consumer<WheelTimeout> dropped) {
        int b = sweepBucket;
        int r = sweepRead;
        int w = sweepWrite;
        if (b < 0) {
            b = 0;
            r = 0;
            w = 0;
        }
        for (int looks = SWEEP_STEP; looks > 0; ) {
            Slot s = slots[b];
            WheelTimeout[] a = s.timeouts;
            int n = s.count;
            int end = Math.min(n, r + looks);
            looks -= Math.max(0, end - r);
            for (; r < end; r++) {
                WheelTimeout t = a[r];
                if (t.state() == WheelTimeout.ST_INIT) {
                    if (w != r) {
                        a[w] = t;
                    }
                    w++;
                } else {
                    size--;
                    dropped.accept(t);
                }
            }
            if (r < n) {
                break;
            }
            // The slot looked at whole: the gap at its end goes.
            if (n != w) {
                Arrays.fill(a, w, n, null);
                s.count = w;
                if (w == 0 && s.bucket == firstHeld) {
                    findFirstHeld();
                }
            }
            looks--;
            if (++b == BUCKETS) {
                sweepBucket = -1;
                compactAt = 2 * size + SLACK;
                return;
            }
            r = 0;
            w = 0;
        }
        sweepBucket = b;
        sweepRead = r;
        sweepWrite = w;
        compactAt = size + SWEEP_EVERY;
    }

    /**
     * Closes the gap the compaction under way left in its slot, whose
     * rest it looks at later, from where the gap began.
     */
    private void closeGap() {
        int gap = sweepRead - sweepWrite;
        if (gap == 0) {
            return;
        }
        Slot s = slots[sweepBucket];
        WheelTimeout[] a = s.timeouts;
        int n = s.count;
        System.arraycopy(a, sweepRead, a, sweepWrite, n - sweepRead);
        Arrays.fill(a, n - gap, n, null);
        s.count = n - gap;
        sweepRead = sweepWrite;
    }

    /**
     * Drops the cancelled timeouts at once, giving each to {@code
     * dropped}; keeps the order of the rest: a whole compaction, from the
     * first slot, in place of one under way.
     */
    void compact(Consumer<WheelTimeout> dropped) {
        if (sweepBucket >= 0) {
            closeGap();
            sweepBucket = -1;
        }
        do {
            sweep(dropped);
        } while (sweepBucket >= 0);
    }

    /** Gives every timeout held to {@code action}, cancelled or not. */
    void forEach(Consumer<WheelTimeout> action) {
        if (sweepBucket >= 0) {
            closeGap();
        }
        for (Slot s : slots) {
            for (int i = 0; i < s.count; i++) {
                action.accept(s.timeouts[i]);
            }
        }
    }

    /** Lets everything go, for the worker's end. */
    void clear() {
        for (Slot s : slots) {
            s.timeouts = null;
            s.count = 0;
        }
        size = 0;
        firstHeld = Long.MAX_VALUE;
        sweepBucket = -1;
    }
}
