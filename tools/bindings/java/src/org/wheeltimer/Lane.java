// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Lane.java - one queue of a WheelTimer's hand-over: the pushes of the
 * callers of one stripe, in order, to the worker
 */
package org.wheeltimer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.function.Consumer;

/**
 * A queue of the hand-over ({@link HandOver}, whose rules it keeps): the
 * pushes of the callers of one stripe (threads, by their id, see
 * {@link Stripes}), adds or cancels, which the worker drains in push order.
 * Callers fill its slots, the worker reads them; a lane's callers write
 * only their own lines, which no caller of another stripe touches. The
 * lane of a stripe's adds also holds that stripe's part of the count of
 * pending timeouts ({@link HandOver#admit}), and its far hold, where its
 * callers keep the adds they make seconds ahead (HandOver's rules, 11).
 */
final class Lane extends LaneWorkerLine {
    /* Nothing the heap puts after the lane shares the worker's line. */
    @SuppressWarnings("unused")
    private long pad40, pad41, pad42, pad43, pad44, pad45, pad46, pad47;
    @SuppressWarnings("unused")
    private long pad48, pad49, pad4a, pad4b, pad4c, pad4d, pad4e, pad4f;

    /**
     * Slots per segment: a new segment (a reference and a long a slot,
     * about 3 KiB) every 256 pushes, made by the caller that finds the last
     * one full.
     */
    static final int SLOTS = 256;

    /** The most slots a pass of the worker's drain takes in one call. */
    private static final int RUN = 64;

    /** A slot the worker consumed and cleared: no push fills it again. */
    static final WheelTimeout CONSUMED = new TaskTimeout(null, null, 0);

    /** The hand-over the lane is part of. */
    final HandOver handOver;

    /** The stripe's far hold, in a lane of adds (else null): the rest of its state is under its lock. */
    private final FarHold far;
    /** Once the worker has ended: holdFar() holds nothing. Under the hold's lock. */
    private boolean farClosed;
    /** The cancelled timeouts the far hold dropped. Under the hold's lock. */
    private long farDropped;
    private final Consumer<WheelTimeout> countDropped = t -> farDropped++;

    /*
     * Field updaters, not VarHandles, where a field will do: before the JIT
     * has compiled them, a third of the cost (about 240 ns against 800 for a
     * compare-and-set), which a fresh JVM's first burst pays on every call.
     * The slots are array elements, which only a VarHandle reaches.
     */
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(WheelTimeout[].class);
    private static final AtomicReferenceFieldUpdater<Segment, Segment> NEXT =
            AtomicReferenceFieldUpdater.newUpdater(Segment.class, Segment.class, "next");
    private static final AtomicReferenceFieldUpdater<LaneCallersLine, Segment> TAIL =
            AtomicReferenceFieldUpdater.newUpdater(LaneCallersLine.class, Segment.class, "tail");
    private static final AtomicLongFieldUpdater<LaneCallersLine> ADDS =
            AtomicLongFieldUpdater.newUpdater(LaneCallersLine.class, "adds");
    private static final AtomicLongFieldUpdater<LaneCallersLine> CANCELS =
            AtomicLongFieldUpdater.newUpdater(LaneCallersLine.class, "cancels");
    private static final AtomicLongFieldUpdater<LaneCallersLine> GRANTED =
            AtomicLongFieldUpdater.newUpdater(LaneCallersLine.class, "granted");
    private static final AtomicLongFieldUpdater<LaneCallersLine> SWEPT =
            AtomicLongFieldUpdater.newUpdater(LaneCallersLine.class, "swept");

    /** The link of a segment the worker has left for good (rules, 8). */
    private static final Segment SEVERED = new Segment(-1);

    /**
     * A run of the lane's slots: filled in order by callers, read in order
     * by the worker, left to the collector once both have moved on.
     */
    static final class Segment {
        final WheelTimeout[] timeouts = new WheelTimeout[SLOTS];
        /** Each slot's deadline, or 0: see the rules, 4. */
        final long[] hints = new long[SLOTS];
        /** Callers': the slots below are full (a hint: it may lag). */
        int fill;
        volatile Segment next;
        /** Its place in the chain: the first is 0. */
        final long number;

        Segment(long number) {
            this.number = number;
        }
    }

    /** A lane of {@code handOver}: of adds, with the stripe's far hold, or of cancels. */
    Lane(HandOver handOver, boolean adds) {
        super(new Segment(0));
        this.handOver = handOver;
        this.far = adds ? new FarHold() : null;
    }

    /* The callers' side. */

    /** Fills the next free slot with {@code t} (see the rules, 2). */
    void push(WheelTimeout t, long hint) {
        Segment s = tail;
        int i = s.fill;
        for (;;) {
            if (i >= SLOTS) {
                s = nextSegment(s);
                i = s.fill;
            } else if (SLOT.compareAndSet(s.timeouts, i, (WheelTimeout) null, t)) {
                s.hints[i] = hint;
                s.fill = i + 1;
                return;
            } else {
                i++;
            }
        }
    }

    /**
     * The segment after the full {@code s}, made if need be, the tail moved
     * on to it; or the tail, if the link read last says the worker severed
     * {@code s} (rules, 8).
     */
    private Segment nextSegment(Segment s) {
        Segment n = s.next;
        if (n == null) {
            Segment made = new Segment(s.number + 1);
            n = NEXT.compareAndSet(s, null, made) ? made : s.next;
        }
        if (n == SEVERED) {
            return tail;
        }
        TAIL.compareAndSet(this, s, n);
        return n;
    }

    /*
     * The stripe's part of the count (the lane of its adds only). Its
     * credits are what it drew on the limit (granted) and uncounted
     * (cancels), less what it admitted (adds, which include the credits
     * it gave back, as adds that are none: swept). Every use of a credit
     * is a compare-and-set of adds, so two never take the same one.
     */

    /** Admits a timeout with one of the stripe's credits; false if it has none. */
    boolean admit() {
        for (;;) {
            long a = adds;
            // Read after adds: they only grow, so never more credits than there are.
            if (a >= granted + cancels) {
                return false;
            }
            if (ADDS.compareAndSet(this, a, a + 1)) {
                return true;
            }
        }
    }

    /** Adds {@code n} credits, drawn on the limit for the stripe. */
    void grant(long n) {
        GRANTED.getAndAdd(this, n);
    }

    /**
     * Uncounts a timeout (a cancel, or an add refused after its
     * admission); its credit comes to the stripe. Returns whether the
     * stripe may hold more than {@code most} credits now, told once every
     * {@code chunk} (a power of two) of its uncounts.
     */
    boolean uncount(long most, long chunk) {
        long c = CANCELS.incrementAndGet(this);
        return (c & (chunk - 1)) == 0 && granted + c - adds > most;
    }

    /**
     * Takes {@code n} of the stripe's credits to give back to the limit,
     * or all it has if {@code n} is 0; returns how many it took.
     */
    long takeCredits(long n) {
        for (;;) {
            long a = adds;
            long free = granted + cancels - a;
            long take = n == 0 ? free : n;
            if (free <= 0 || take > free) {
                return 0;
            }
            if (ADDS.compareAndSet(this, a, a + take)) {
                SWEPT.getAndAdd(this, take);
                return take;
            }
        }
    }

    long adds() {
        return adds;
    }

    /*
     * The stripe's far hold (a lane of adds only): its callers hold their
     * far adds there themselves, the worker releases them; all under the
     * hold's lock (HandOver's rules, 11).
     */

    /**
     * Holds {@code t}, a one-shot add made at {@code now} and not pushed,
     * in the stripe's far hold, if it is due far enough ahead
     * ({@link FarHold#offer}) and the worker has not closed the hold.
     * Returns {@link #NOT_HELD}, {@link #HELD}, or {@link #HELD_MOVED}:
     * held, and the hold's next release ({@link #farRelease}) moved.
     */
    int holdFar(WheelTimeout t, long now) {
        FarHold h = far;
        synchronized (h) {
            if (farClosed || !h.offer(t, now, countDropped)) {
                return NOT_HELD;
            }
            long r = h.nextRelease();
            if (r == farRelease) {
                return HELD;
            }
            farRelease = r;
            return HELD_MOVED;
        }
    }

    static final int NOT_HELD = 0;
    static final int HELD = 1;
    static final int HELD_MOVED = 2;

    /**
     * The worker's: gives what the far hold releases at {@code now} to
     * {@code give} ({@link FarHold#release}), under the hold's lock: give
     * must not block.
     */
    void releaseFar(long now, Consumer<WheelTimeout> give) {
        if (farRelease > now) {
            return;
        }
        FarHold h = far;
        synchronized (h) {
            h.release(now, give);
            farRelease = h.nextRelease();
        }
    }

    /** The worker's: drops the cancelled timeouts the far hold holds ({@link FarHold#compact}). */
    void compactFar() {
        FarHold h = far;
        synchronized (h) {
            h.compact(countDropped);
            farRelease = h.nextRelease();
        }
    }

    /** Gives every timeout the far hold holds to {@code action}, cancelled or not. */
    void forEachFar(Consumer<WheelTimeout> action) {
        FarHold h = far;
        synchronized (h) {
            h.forEach(action);
        }
    }

    /**
     * The worker's, at its end: closes the far hold (its callers push
     * instead), gives what it holds to {@code action}, and lets it go.
     */
    void closeFar(Consumer<WheelTimeout> action) {
        FarHold h = far;
        synchronized (h) {
            farClosed = true;
            h.forEach(action);
            h.clear();
            farRelease = Long.MAX_VALUE;
        }
    }

    /** What the far hold holds, cancelled or not. */
    int farSize() {
        FarHold h = far;
        synchronized (h) {
            return h.size();
        }
    }

    /**
     * What the far hold holds, read without its lock: a count its callers
     * may be changing, for a heuristic only.
     */
    int farSizeRacy() {
        return far.size();
    }

    /** The cancelled timeouts the far hold dropped so far, never handed to the engine. */
    long farDropped() {
        FarHold h = far;
        synchronized (h) {
            return farDropped;
        }
    }

    long cancels() {
        return cancels;
    }

    long swept() {
        return swept;
    }

    /* The worker's side. */

    /**
     * Starts a drain: it will end where the tail (and its fill, a hint that
     * may lag) is now, or at the first slot still empty.
     */
    void markEnd() {
        endSegment = tail;
        endIndex = endSegment.fill;
    }

    /**
     * Drains the lane up to the end {@link #markEnd} read: first the adds
     * the last drain held back (they are older), then what was pushed
     * since, in push order. A cancel's push goes to {@code round} as a
     * cancel; an add is given as an add, or held back, left in its slot
     * for the next drain, if due at {@code horizon} or later (by its hint
     * alone when it has one: rules, 4). A timeout cancelled before it was
     * handed over is skipped. Returns the number of new adds given.
     *
     * <p>Each pass takes a run of at most {@link #RUN} slots of one
     * segment at a time, in a method of its own whose loop keeps its place
     * in locals: a fresh JVM compiles a method after a few hundred calls,
     * but a loop inside one only after tens of thousands of turns, and runs
     * it interpreted until then (most of a first burst of 100 000
     * timeouts); a run's loop over locals costs the worker fewer
     * instructions a slot than a call a slot, which had to keep the scan's
     * place in the lane's fields.
     */
    int drain(long horizon, HandOver.Round round) {
        Segment oldest = heldSegment;
        // Held back by the drain before.
        if (heldCount > 0) {
            scanFrom(heldSegment, heldIndex);
            while (scanning(curSegment, curIndex)) {
                drainHeld(curSegment, curIndex, round);
            }
        }
        // Pushed since.
        heldCount = 0;
        givenCount = 0;
        scanFrom(curSegment, curIndex);
        while (scanning(endSegment, endIndex) && drainNew(horizon, round)) {
            // Each call takes a run of slots.
        }
        heldSegment = curSegment;
        heldIndex = curIndex;
        curSegment = scanSegment;
        curIndex = scanIndex;
        if (heldCount == 0) {
            heldSegment = curSegment;
            heldIndex = curIndex;
        }
        endSegment = null;
        sever(oldest, heldSegment);
        return givenCount;
    }

    /**
     * Unlinks the segments from {@code s} up to {@code end}, which the
     * worker has left for good (rules, 8). A dead segment that the
     * collector had promoted would otherwise keep every later one, and
     * their timeouts, alive through each young collection, by its link
     * alone: a heap that grew by 180 MB a second under a stream of
     * newTimeout() and cancel() with 1000 pending.
     */
    private static void sever(Segment s, Segment end) {
        while (s != end) {
            Segment n = s.next;
            s.next = SEVERED;
            s = n;
        }
    }

    /** Whether the last drain held adds back: the next must hand them over. */
    boolean holding() {
        return heldCount > 0;
    }

    /**
     * The slots of the last drain's at the scan, a run up to the end
     * {@code end}, {@code endIndex}: each is given now if it holds an add
     * still pending, not taken nor cancelled, which the last drain held
     * back (it took, or skipped, every other).
     */
    private void drainHeld(Segment end, int endIndex, HandOver.Round round) {
        int stop = runEnd(end, endIndex);
        WheelTimeout[] slots = scanSegment.timeouts;
        for (int i = scanIndex; i < stop; i++) {
            WheelTimeout t = slots[i];
            if (t.state() == WheelTimeout.ST_INIT) {
                round.add(t, true);
            }
        }
        scanIndex = stop;
    }

    /**
     * The slots at the scan pushed since the last drain, a run up to the
     * end markEnd() read: false if the run met a slot still empty (the
     * drain ends there). Each is read first here, with acquire (rules, 3).
     * A cancel's push has no hint; an add's may not have it yet, and is
     * then told by the timeout: not TAKEN.
     */
    private boolean drainNew(long horizon, HandOver.Round round) {
        Segment s = scanSegment;
        int i = scanIndex;
        int stop = runEnd(endSegment, endIndex);
        WheelTimeout[] slots = s.timeouts;
        long[] hints = s.hints;
        int held = 0;
        int given = 0;
        boolean more = true;
        for (; i < stop; i++) {
            WheelTimeout t = (WheelTimeout) SLOT.getAcquire(slots, i);
            if (t == null) {
                more = false;
                break;
            }
            long hint = hints[i];
            if (hint >= horizon) {
                held++;
                continue;
            }
            int state = t.state();
            if (state == WheelTimeout.ST_INIT) {
                if (hint == 0 && t.deadline >= horizon) {
                    held++;
                } else {
                    round.add(t, false);
                    given++;
                }
            } else if (hint == 0 && (state & WheelTimeout.TAKEN) != 0) {
                round.cancel(t);
            }
        }
        scanIndex = i;
        heldCount += held;
        givenCount += given;
        return more;
    }

    /**
     * Where the run from the scan ends: {@link #RUN} slots on, or sooner
     * at the segment's end or at {@code end}, {@code endIndex}.
     */
    private int runEnd(Segment end, int endIndex) {
        return Math.min(scanIndex + RUN, scanSegment == end ? endIndex : SLOTS);
    }

    /** Starts a scan of slots at {@code s}, {@code i}. */
    private void scanFrom(Segment s, int i) {
        scanSegment = s;
        scanIndex = i;
    }

    /**
     * Whether the scan has slots left before {@code end}, {@code endIndex};
     * if so, the scan is at the next one (on the next segment past a full one).
     */
    private boolean scanning(Segment end, int endIndex) {
        if (scanSegment == end && scanIndex == endIndex) {
            return false;
        }
        if (scanIndex == SLOTS) {
            scanSegment = scanSegment.next;
            scanIndex = 0;
            return scanSegment != end || endIndex != 0;
        }
        return true;
    }

    /**
     * Every timeout in the lane neither handed to the engine nor
     * cancelled: the adds held back and those pushed since, oldest first.
     */
    void forEachPending(Consumer<WheelTimeout> action) {
        Segment s = heldSegment;
        int i = heldIndex;
        for (;;) {
            if (i == SLOTS) {
                s = s.next;
                if (s == null) {
                    return;
                }
                i = 0;
            }
            WheelTimeout t = (WheelTimeout) SLOT.getAcquire(s.timeouts, i++);
            if (t == null) {
                return;
            }
            if (t.state() == WheelTimeout.ST_INIT) {
                action.accept(t);
            }
        }
    }

    /**
     * Whether anything is pushed that no drain took (a volatile read of
     * the slot the next drain takes first, as drainNew() reads it). Past
     * a full segment that slot is the next segment's first: a segment
     * linked but not yet filled (its caller between the two) holds nothing.
     */
    boolean pushed() {
        Segment s = curSegment;
        int i = curIndex;
        if (i == SLOTS) {
            s = s.next;
            if (s == null) {
                return false;
            }
            i = 0;
        }
        return SLOT.getVolatile(s.timeouts, i) != null;
    }

    /** Overwrites the drained slots of the current segment, before which the worker holds none. */
    void clearDone() {
        if (heldCount > 0) {
            return;
        }
        if (clearNumber != curSegment.number) {
            clearNumber = curSegment.number;
            clearIndex = 0;
        }
        WheelTimeout[] slots = curSegment.timeouts;
        for (int i = clearIndex; i < curIndex; i++) {
            slots[i] = CONSUMED;
        }
        clearIndex = curIndex;
    }
}

/*
 * The layout, as HandOver's: HotSpot lays out a superclass's fields
 * before its subclass's, so each padding class keeps the line of the
 * class it precedes apart from the one before (128 bytes, so that an
 * adjacent-line prefetch does not pair them); the first int fills the gap
 * after the object's 12-byte header.
 */

/** Keeps what precedes the lane in the heap off its callers' line. */
abstract class LanePadHead {
    @SuppressWarnings("unused")
    private int pad00;
    @SuppressWarnings("unused")
    private long pad01, pad02, pad03, pad04, pad05, pad06, pad07, pad08;
    @SuppressWarnings("unused")
    private long pad09, pad0a, pad0b, pad0c, pad0d, pad0e, pad0f, pad10;
}

/** What the lane's callers write: its tail; and, in a lane of adds, the stripe's counts. */
abstract class LaneCallersLine extends LanePadHead {
    /** The segment callers fill. */
    volatile Lane.Segment tail;
    /** Timeouts this stripe admitted, and credits it gave back (swept): only grows. */
    volatile long adds;
    /** Timeouts this stripe uncounted (cancels, adds refused after admission): only grows. */
    volatile long cancels;
    /** Credits this stripe drew on the timer's limit: only grows. */
    volatile long granted;
    /** Credits this stripe gave back to the limit, counted in adds: only grows. */
    volatile long swept;
    /**
     * When the worker is to release the stripe's far hold next
     * ({@link FarHold#nextRelease}): written under the hold's lock, read
     * by the worker without it (HandOver's rules, 11).
     */
    volatile long farRelease = Long.MAX_VALUE;

    LaneCallersLine(Lane.Segment first) {
        tail = first;
    }
}

abstract class LanePadMiddle extends LaneCallersLine {
    @SuppressWarnings("unused")
    private long pad20, pad21, pad22, pad23, pad24, pad25, pad26, pad27;
    @SuppressWarnings("unused")
    private long pad28, pad29, pad2a, pad2b, pad2c, pad2d, pad2e, pad2f;

    LanePadMiddle(Lane.Segment first) {
        super(first);
    }
}

/**
 * The worker's alone: where it is in the lane. Each position is a segment
 * and a slot's index in it (SLOTS: past its last slot).
 */
abstract class LaneWorkerLine extends LanePadMiddle {
    /** Where the next drain starts: every slot before it was drained. */
    Lane.Segment curSegment;
    int curIndex;
    /** Where the last drain started: its adds held back lie from here to cur. */
    Lane.Segment heldSegment;
    int heldIndex;
    /** The adds the last drain held back. */
    int heldCount;
    /** During drain(): the end markEnd() read, the scan of a pass, the adds given. */
    Lane.Segment endSegment;
    int endIndex;
    Lane.Segment scanSegment;
    int scanIndex;
    int givenCount;
    /**
     * The slots below clearIndex of the segment numbered clearNumber hold
     * CONSUMED. A number: a reference would keep that segment, and every
     * later one, reachable while the worker does not idle (see sever()).
     */
    long clearNumber;
    int clearIndex;

    LaneWorkerLine(Lane.Segment first) {
        super(first);
        curSegment = first;
        heldSegment = first;
    }
}
