// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * HandOver.java - everything that passes between the threads that use a
 * WheelTimer and its worker thread, and the rules that make it safe
 */
package org.wheeltimer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.function.Consumer;

/**
 * The hand-over between a {@link WheelTimer}'s callers (any thread, in
 * {@code newTimeout()}, {@code cancel()}, {@code start()}, {@code stop()},
 * {@code stats()} ...) and its worker (the one thread that calls
 * libwheeltimer for the timer, {@link Worker}). Nothing else passes
 * between them. The binding's README tells the design (its "Design") and
 * the measurements that chose it ("Measured against HashedWheelTimer").
 *
 * <h2>The rules</h2>
 *
 * <pre>
 * what                     written by                     read by           on
 * ------------------------ ------------------------------ ----------------- ---------------
 * a slot of the queue      one caller, once (CAS null to  the worker        the segment's
 *                          the timeout); the worker, once  (acquire)         arrays
 *                          consumed, to CONSUMED (idle)
 * its deadline hint        that caller, after the CAS     the worker
 * Segment.fill             callers (a hint, racy)         callers, worker   the segment
 *                                                         (a round's end)
 * Segment.next             one caller, once (CAS); the    callers, worker   the segment
 *                          worker, once left (SEVERED)
 * tail                     callers (CAS, once a segment)  callers, worker   callers' line
 *                                                         (once a round)
 * pending                  callers (+1 an add, -1 a       callers           callers' line
 *                          cancel)
 * ended                    the worker (+1 an expiry, a    callers           its own line
 *                          refusal, stop())
 * urgent                   callers (0 to 1), the worker   the worker        callers' line
 *                          (1 to 0, once a round)
 * sleep                    the worker (twice a wait),     callers           shared line
 *                          one waker a sleep (CAS to
 *                          AWAKE)
 * state                    start(), stop(), the worker    callers, worker   shared line
 *                          when it fails
 * commands                 callers (offer)                the worker (poll) its own queue
 * wakers, closing          wakers; the worker at its end  the worker        shared line
 * where the worker is in   the worker                     the worker        worker's line
 * the queue (cur, held,
 * scan, clear)
 * </pre>
 *
 * <p>So a caller writes, per newTimeout() and cancel(), the callers' line and
 * its slot, and the worker only reads them: it writes the callers' line
 * only to clear {@code urgent} once a round when a caller set it. The
 * worker writes the shared line twice a wait ({@code sleep}), and the line
 * of {@code ended} once a timeout it ends (expires, most often); callers
 * only read them. Padding (128 bytes, so that an adjacent-line prefetch
 * does not pair them) keeps these lines, and the worker's own, apart from
 * each other and from whatever the heap puts beside the object. The
 * worker never looks at a timeout that it can leave alone: an add due
 * {@link Worker#HOLD_NANOS} or more later is held back a round by its
 * slot's deadline hint, without reading the timeout, so that a request
 * timeout cancelled within a round is not in the worker's cache while its
 * caller may still cancel it.
 *
 * <h2>Why the order is safe</h2>
 *
 * <ol>
 * <li><b>No push is missed by a worker going to sleep.</b> A caller's push
 *     is a volatile write (the slot's compare-and-set) followed by a
 *     volatile read of {@code sleep}; the worker's wait is a volatile
 *     write of {@code sleep} followed by a volatile read of the slot it
 *     would take next ({@link #mayNotSleep}). Volatile accesses are totally
 *     ordered: the worker sees the slot filled and does not sleep, or the
 *     caller sees it asleep and wakes it (unless the worker lingers and
 *     wakes by itself well before the timeout's deadline, see
 *     {@link #add}).
 * <li><b>Slots fill in order, without gaps.</b> A caller tries slot
 *     {@code fill}, then each next one, until its compare-and-set
 *     succeeds; {@code fill} is written only after a success, and a failure
 *     means the slot was full; so every slot below the one a caller fills
 *     is full, and the worker, which reads in order, may stop at the first
 *     empty slot; or before it, where the tail's {@code fill} was when the
 *     round began (all below it full, a bound of the round).
 * <li><b>The worker sees what the caller made.</b> It reads each slot
 *     first with acquire (the pass over a round's new pushes), which the
 *     caller's compare-and-set released: the timeout's fields, and all the
 *     caller did before (a future's task), are visible to that pass and to
 *     the next round's pass over the adds held back, which reads the slot
 *     plainly.
 * <li><b>A hint is never wrong, only missing.</b> The deadline hint is
 *     written plainly after the slot: the worker may read 0, which means
 *     "look at the timeout itself" (a cancel's push writes none; an add
 *     whose deadline is still its delay writes {@link #AHEAD}, 9). Holding
 *     back by the hint is only a way not to touch the timeout: the pass
 *     over the adds held back decides by the timeout's own state whether
 *     it still has to be handed over, however the hint was read: the
 *     round after, every add still neither taken nor cancelled is handed
 *     over. (On a JVM that splits a long's write, a torn hint can only
 *     hold an add back a round, a linger later, never lose it or run it
 *     early.)
 * <li><b>A consumed slot is never filled again.</b> The worker overwrites
 *     only slots it consumed, with {@link #CONSUMED}, which no caller's
 *     compare-and-set from null can replace.
 * <li><b>stop() racing a push.</b> A caller reads {@code state} after its
 *     push; the worker's last drain ({@link Worker}'s shutdown) comes after
 *     stop() set it. A push that the last drain missed is seen SHUTDOWN by
 *     its caller; one it found may be too: both then cancel the timeout by
 *     the same compare-and-set on it, and exactly one wins (the caller's
 *     throws, the worker's puts it in the set stop() returns).
 * <li><b>Waking a closed context.</b> A waker counts itself in
 *     {@code wakers} and checks {@code closing}; the worker sets
 *     {@code closing} and waits for {@code wakers} to drain before it
 *     closes the native side.
 * <li><b>A severed segment is behind the tail.</b> The worker unlinks a
 *     segment (its {@code next} becomes {@link #SEVERED}) once the adds
 *     it may still hand over all lie in later ones: it has gone on to a
 *     later segment, where the tail was when the round began. A caller
 *     fills a slot of a segment only after its move of {@code tail} onto
 *     it (the tail moves only forward), so the tail is past every severed
 *     segment, and a caller
 *     that reads SEVERED as a segment's link goes on from the tail: one
 *     that still held the segment (it is full), or one that lost the race
 *     to link the next segment and reads the link again (the worker may
 *     have drained the next one and severed this one meanwhile). Nothing else
 *     walks the chain from behind the worker's oldest position.
 * <li><b>A delay the worker counts.</b> A newTimeout() due
 *     {@link WheelTimer#AHEAD_NANOS} (a second) or more ahead reads no
 *     clock while the worker sleeps: its timeout's deadline holds minus
 *     its delay, and its push the hint {@link #AHEAD} ({@link #addAhead}).
 *     The worker sets the deadline to a reading of the clock taken after
 *     the pass that met the push, plus the delay: the last round's reading
 *     ({@code heldAt}) for an add that round held back, a new one for any
 *     other. The reading follows the push, so the deadline is never before
 *     the call plus the delay. A caller that finds the worker awake after
 *     its push (it may run tasks before its next pass) sets the deadline
 *     from its own reading, as does {@code deadlineNanos()}; a
 *     compare-and-set ({@link WheelTimeout#resolve}) makes them agree, the
 *     first to set it winning. So the deadline is at most the rest of a
 *     sleep, and the tasks due when it ends, after the call plus the delay.
 *     No wake is needed for a lingering worker: it takes the push by the
 *     end of its linger (1), at most {@link #LINGER_NANOS} after it went to
 *     sleep, long before the deadline; a worker that sleeps until
 *     something is due ({@link #FOREVER}) is woken.
 * </ol>
 */
final class HandOver extends HandOverEndedLine {
    /* The line of ended ends here: nothing the heap puts after it shares it. */
    @SuppressWarnings("unused")
    private long pad40, pad41, pad42, pad43, pad44, pad45, pad46, pad47;
    @SuppressWarnings("unused")
    private long pad48, pad49, pad4a, pad4b, pad4c, pad4d, pad4e, pad4f;

    /** The lifecycle: the worker has not started, runs, or is stopped (or stopping). */
    static final int INIT = 0;
    static final int STARTED = 1;
    static final int SHUTDOWN = 2;

    /* The values of sleep besides a time by which the worker wakes. */
    /** The worker is awake: callers need not wake it. */
    static final long AWAKE = Long.MIN_VALUE;
    /** The worker sleeps until something is due: a push must wake it. */
    static final long FOREVER = Long.MAX_VALUE;

    /**
     * The hint of an add whose deadline is still its delay (rules, 9):
     * beyond every deadline the engine takes, so that a round that holds
     * adds back holds it, and below the horizon of one that holds none.
     */
    static final long AHEAD = Long.MAX_VALUE - 1;

    /** A slot the worker consumed and cleared: no push fills it again. */
    static final WheelTimeout CONSUMED = new TaskTimeout(null, null, 0);

    /**
     * Slots per segment: a new segment (a reference and a long a slot,
     * about 3 KiB) every 256 pushes, made by the caller that finds the last
     * one full.
     */
    static final int SLOTS = 256;

    /*
     * How long the worker lingers after a round that took new timeouts, and
     * the margin within which a push wakes a lingering worker: the
     * constants of WheelTimer's protocol (see the class comment there).
     */
    static final long LINGER_NANOS = 1_000_000L;
    static final long DEFER_MARGIN_NANOS = 10_000_000L;
    /**
     * An add due this long after its newTimeout() may not wait for a
     * lingering worker that is still awake: the linger, plus the margin by
     * which a sleeping one is woken.
     */
    static final long URGENT_NANOS = LINGER_NANOS + DEFER_MARGIN_NANOS;

    /*
     * Field updaters, not VarHandles, where a field will do: before the JIT
     * has compiled them, a third of the cost (about 240 ns against 800 for a
     * compare-and-set), which a fresh JVM's first burst pays on every call.
     * The slots are array elements, which only a VarHandle reaches.
     */
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(WheelTimeout[].class);
    private static final AtomicReferenceFieldUpdater<Segment, Segment> NEXT =
            AtomicReferenceFieldUpdater.newUpdater(Segment.class, Segment.class, "next");
    private static final AtomicReferenceFieldUpdater<HandOverCallersLine, Segment> TAIL =
            AtomicReferenceFieldUpdater.newUpdater(HandOverCallersLine.class, Segment.class, "tail");
    private static final AtomicLongFieldUpdater<HandOverCallersLine> PENDING =
            AtomicLongFieldUpdater.newUpdater(HandOverCallersLine.class, "pending");
    private static final AtomicLongFieldUpdater<HandOverEndedLine> ENDED =
            AtomicLongFieldUpdater.newUpdater(HandOverEndedLine.class, "ended");
    private static final AtomicLongFieldUpdater<HandOverSharedLine> SLEEP =
            AtomicLongFieldUpdater.newUpdater(HandOverSharedLine.class, "sleep");
    private static final AtomicIntegerFieldUpdater<HandOverSharedLine> STATE =
            AtomicIntegerFieldUpdater.newUpdater(HandOverSharedLine.class, "state");

    /** The link of a segment the worker has left for good (rules, 8). */
    private static final Segment SEVERED = new Segment(-1);

    /**
     * A run of the queue's slots: filled in order by callers, read in order
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

    HandOver(long ctx, boolean virtualClock, long maxPending) {
        super(ctx, virtualClock, maxPending, new Segment(0));
    }

    /* The callers' side. */

    /**
     * The timeouts counted: newTimeout()s less cancels ({@code pending}),
     * less those the worker ended ({@code ended}), read in that order so
     * that a race counts one too many, never too few.
     */
    long pending() {
        long e = ended;
        return pending - e;
    }

    /**
     * A caller's: counts one more timeout; returns the count with it, which
     * may be above the limit (then uncount it), and may count a timeout the
     * worker is ending just now, never one too few.
     */
    long countUp() {
        long e = ended;
        return PENDING.incrementAndGet(this) - e;
    }

    /** A caller's: uncounts a timeout it cancelled, or could not add. */
    void countDown() {
        PENDING.decrementAndGet(this);
    }

    /**
     * The worker's: uncounts a timeout that expired, was refused, ended or
     * was cancelled by stop(). The worker alone writes {@code ended}: an
     * ordered store, not a read-modify-write, on a line of its own.
     */
    void ended() {
        ENDED.lazySet(this, ended + 1);
    }

    long maxPending() {
        return maxPending;
    }

    /**
     * Hands a new timeout {@code t}, counted, made at {@code now}, to the
     * worker, and wakes the worker if it must: if it sleeps until something
     * is due, or lingers (it wakes by itself by a time) and {@code t} is due
     * within {@link #DEFER_MARGIN_NANOS} of that. Returns false, {@code t}
     * cancelled and uncounted, if stop() came first (see the rules, 6).
     */
    boolean add(WheelTimeout t, long now) {
        push(t, t.deadline);
        // Before sleep is read: a worker about to linger either sees this,
        // or is seen asleep below (both volatile).
        if ((virtualClock || t.deadline - now < URGENT_NANOS) && urgent == 0) {
            urgent = 1;
        }
        if (state == SHUTDOWN && t.cancelOnStop()) {
            countDown();
            return false;
        }
        long s = sleep;
        if (s != AWAKE && (s == FOREVER || virtualClock || t.deadline - s < DEFER_MARGIN_NANOS)) {
            wake(s);
        }
        return true;
    }

    /**
     * Hands a new timeout {@code t}, counted, whose deadline is still its
     * delay (at least {@link WheelTimer#AHEAD_NANOS}, far beyond
     * {@link #URGENT_NANOS}), to the worker (rules, 9). If the worker
     * sleeps, its next pass counts the delay; one that lingers meets
     * {@code t} by the end of its linger, long before {@code t} can be due,
     * and one that sleeps until something is due is woken. If it is awake
     * (it may run tasks before its next pass), the delay counts from now.
     * Returns false, {@code t} cancelled and uncounted, if stop() came
     * first (rules, 6).
     */
    boolean addAhead(WheelTimeout t) {
        push(t, AHEAD);
        if (state == SHUTDOWN && t.cancelOnStop()) {
            countDown();
            return false;
        }
        long s = sleep;
        if (s == AWAKE || s == FOREVER && !wake(FOREVER)) {
            t.resolve(t.timer().nanoTime());
        }
        return true;
    }

    /**
     * From {@code t.cancel()}, which cancelled it: hands the cancel to the
     * worker if the engine has the timeout ({@code taken}; else the worker
     * drops it when it meets it), then uncounts it. Never wakes the worker:
     * the timeout's own deadline bounds its sleep.
     */
    void cancelled(WheelTimeout t, boolean taken) {
        if (taken) {
            push(t, 0);
        }
        countDown();
    }

    /** Fills the next free slot with {@code t} (see the rules, 2). */
    private void push(WheelTimeout t, long hint) {
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

    /** Posts a command (advance(), stats() ...) for the worker's next round, and wakes it. */
    void post(FutureTask<?> command) {
        commands.add(command);
        wake();
    }

    /** Wakes the worker if it is asleep; at most one wheeltimer_wake() per sleep. */
    void wake() {
        long s = sleep;
        if (s != AWAKE) {
            wake(s);
        }
    }

    /** Wakes the worker from the sleep {@code s}, unless another did; true if this call did. */
    private boolean wake(long s) {
        if (SLEEP.compareAndSet(this, s, AWAKE)) {
            signal();
            return true;
        }
        return false;
    }

    /** Calls wheeltimer_wake(), unless the native side is closing (see the rules, 7). */
    void signal() {
        wakers.incrementAndGet();
        try {
            if (!closing) {
                Native.wake(ctx);
            }
        } finally {
            wakers.decrementAndGet();
        }
    }

    /* The lifecycle. */

    int state() {
        return state;
    }

    /** start(): INIT to STARTED; true if this call did it (and must start the thread). */
    boolean begin() {
        return STATE.compareAndSet(this, INIT, STARTED);
    }

    /** stop(), or a worker that failed: to SHUTDOWN; returns the state before. */
    int end() {
        return STATE.getAndSet(this, SHUTDOWN);
    }

    /* The worker's side. */

    /** What the worker does with what a round drains: {@link Worker}'s. */
    interface Round {
        /** {@code t} was pushed by cancel() after the worker handed it to the engine. */
        void cancel(WheelTimeout t);

        /**
         * {@code t} is an add to hand to the engine now, unless it was
         * cancelled since (its take() says); {@code held}: it was held back
         * a round.
         */
        void add(WheelTimeout t, boolean held);
    }

    /** At the start of a round, before it drains what was pushed. */
    void beginRound() {
        if (urgent != 0) {
            urgent = 0;
        }
    }

    /**
     * Drains a round: what was pushed before it began. First the adds the
     * last round held back (older, so first: the engine keeps the order of
     * those due at the same time), then what was pushed since, in push
     * order: a cancel's push goes to {@code round} as a cancel, an add as
     * an add, or is held back, left in its slot for the next round, if due
     * at {@code horizon} or later (by its hint alone when it has one: rules,
     * 4). A timeout cancelled before it was handed over is skipped: the
     * engine never hears of it. In push order, the engine never holds more
     * timeouts than the count allowed: an add that a cancel's uncounting
     * let in was pushed after that cancel (see {@link #cancelled}). Returns
     * the number of new adds given.
     *
     * <p>The round ends where the callers' tail was when it began (or at
     * the first slot still empty, which the tail's {@code fill}, a hint,
     * may not yet show): a stream of pushes that the worker cannot keep up
     * with ends each round all the same, and what it fired is run.
     *
     * <p>Each pass's body is a method of its own: a fresh JVM compiles a
     * method after a few hundred calls, but a loop inside one only after
     * tens of thousands of turns, and runs it interpreted until then (most
     * of a first burst of 100 000 timeouts).
     */
    int drain(long horizon, Round round) {
        Segment oldest = heldSegment;
        Segment end = tail;
        int endIndex = end.fill;
        // Held back by the round before.
        if (heldCount > 0) {
            scanFrom(heldSegment, heldIndex);
            while (scanning(curSegment, curIndex)) {
                drainHeld(round);
            }
        }
        // Pushed since.
        heldCount = 0;
        givenCount = 0;
        scanFrom(curSegment, curIndex);
        while (scanning(end, endIndex) && drainNew(horizon, round)) {
            // Each call takes one slot.
        }
        heldSegment = curSegment;
        heldIndex = curIndex;
        curSegment = scanSegment;
        curIndex = scanIndex;
        if (heldCount == 0) {
            heldSegment = curSegment;
            heldIndex = curIndex;
        }
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

    /** Whether the last round held adds back: the next must hand them over. */
    boolean holding() {
        return heldCount > 0;
    }

    /**
     * A slot of the last round's, at the scan: given now if it holds an add
     * still pending, not taken nor cancelled, which the last round held
     * back (it took, or skipped, every other).
     */
    private void drainHeld(Round round) {
        WheelTimeout t = scanSegment.timeouts[scanIndex++];
        if (t.state() == WheelTimeout.ST_INIT) {
            round.add(t, true);
        }
    }

    /**
     * The slot at the scan, pushed since the last round: false if it is
     * still empty (the round ends there). It is read first here, with
     * acquire (rules, 3). A cancel's push has no hint; an add's may not
     * have it yet, and is then told by the timeout: not TAKEN.
     */
    private boolean drainNew(long horizon, Round round) {
        Segment s = scanSegment;
        int i = scanIndex;
        WheelTimeout t = (WheelTimeout) SLOT.getAcquire(s.timeouts, i);
        if (t == null) {
            return false;
        }
        scanIndex = i + 1;
        long hint = s.hints[i];
        if (hint >= horizon) {
            heldCount++;
            return true;
        }
        int state = t.state();
        if (state == WheelTimeout.ST_INIT) {
            if (hint == 0 && t.deadline >= horizon) {
                heldCount++;
            } else {
                round.add(t, false);
                givenCount++;
            }
        } else if (hint == 0 && (state & WheelTimeout.TAKEN) != 0) {
            round.cancel(t);
        }
        return true;
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
     * Every timeout in the queue neither handed to the engine nor
     * cancelled: the adds held back and those pushed since, oldest first.
     * For stop(), and for the executor's shutdown() from a task, in
     * mid-round, when the worker may not hand anything over.
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
     * After {@code sleep} is written (see {@link #sleep}): whether the worker
     * may not sleep. A worker that would sleep until something is due must
     * not while anything is pushed; one that would linger ({@code
     * lingering}) only if something due soon was, which set {@code urgent}:
     * the rest it takes at the linger's end (a push from then on sees it
     * asleep, as add() says). A command or stop() keeps it awake either way.
     */
    boolean mayNotSleep(boolean lingering) {
        return (lingering ? urgent != 0 : pushed()) || !commands.isEmpty() || state == SHUTDOWN;
    }

    /**
     * Whether anything is pushed that no round drained (a volatile read of
     * the slot the next round takes first, as drainNew() reads it). Past
     * a full segment that slot is the next segment's first: a segment
     * linked but not yet filled (its caller between the two) holds nothing.
     */
    private boolean pushed() {
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

    /**
     * Before the worker waits: from now on callers must wake it, unless
     * {@code by} is not {@link #FOREVER} and their deadline is {@link
     * #DEFER_MARGIN_NANOS} or more after it, when it wakes by itself. An
     * idle worker (not lingering) first clears the slots it is done with,
     * so that the queue holds no timeout for it (rules, 5).
     */
    void sleep(long by, boolean lingering) {
        if (!lingering) {
            clearDone();
        }
        sleep = by;
    }

    /** When the worker wakes, or decides not to sleep. */
    void awake() {
        if (sleep != AWAKE) {
            sleep = AWAKE;
        }
    }

    /** Overwrites the drained slots of the current segment, before which the worker holds none. */
    private void clearDone() {
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

    /** The next command posted, or null. */
    FutureTask<?> nextCommand() {
        return commands.poll();
    }

    /** The worker's, when it ends: no wake() may be under way when the native side closes (rules, 7). */
    void closing() {
        closing = true;
        while (wakers.get() != 0) {
            Thread.onSpinWait();
        }
    }

    boolean isVirtualClock() {
        return virtualClock;
    }
}

/*
 * The layout. HotSpot lays out a superclass's fields before its
 * subclass's, so each padding class keeps the line of the class it
 * precedes apart from the one before; the first int fills the gap after
 * the object's 12-byte header, where a later field could otherwise go.
 */

/** Keeps what precedes the object in the heap off the callers' line. */
abstract class HandOverPadHead {
    @SuppressWarnings("unused")
    private int pad00;
    @SuppressWarnings("unused")
    private long pad01, pad02, pad03, pad04, pad05, pad06, pad07, pad08;
    @SuppressWarnings("unused")
    private long pad09, pad0a, pad0b, pad0c, pad0d, pad0e, pad0f, pad10;
}

/** What callers write on every newTimeout() and cancel(). */
abstract class HandOverCallersLine extends HandOverPadHead {
    /** The segment callers fill. */
    volatile HandOver.Segment tail;
    /** Timeouts counted against the limit. */
    volatile long pending;
    /** 1 once a caller pushed an add due soon; the worker clears it each round. */
    volatile int urgent;

    HandOverCallersLine(HandOver.Segment first) {
        tail = first;
    }
}

abstract class HandOverPadMiddle extends HandOverCallersLine {
    @SuppressWarnings("unused")
    private long pad20, pad21, pad22, pad23, pad24, pad25, pad26, pad27;
    @SuppressWarnings("unused")
    private long pad28, pad29, pad2a, pad2b, pad2c, pad2d, pad2e, pad2f;

    HandOverPadMiddle(HandOver.Segment first) {
        super(first);
    }
}

/** What the worker writes a few times a round and callers read: its sleep; and what never changes. */
abstract class HandOverSharedLine extends HandOverPadMiddle {
    /** {@link HandOver#AWAKE}, {@link HandOver#FOREVER}, or the time by which the worker wakes. */
    volatile long sleep = HandOver.AWAKE;
    /** {@link HandOver#INIT}, {@link HandOver#STARTED} or {@link HandOver#SHUTDOWN}. */
    volatile int state;
    /** Set by the worker before it closes the native side. */
    volatile boolean closing;
    final long ctx;
    final long maxPending;
    final boolean virtualClock;
    /** Other commands for the worker: advance(), stats(), pendingList(). */
    final ConcurrentLinkedQueue<FutureTask<?>> commands = new ConcurrentLinkedQueue<>();
    /** Threads inside signal(); the native side is closed only when none is. */
    final java.util.concurrent.atomic.AtomicInteger wakers = new java.util.concurrent.atomic.AtomicInteger();

    HandOverSharedLine(long ctx, boolean virtualClock, long maxPending, HandOver.Segment first) {
        super(first);
        this.ctx = ctx;
        this.virtualClock = virtualClock;
        this.maxPending = maxPending;
    }
}

abstract class HandOverPadWorker extends HandOverSharedLine {
    @SuppressWarnings("unused")
    private long pad30, pad31, pad32, pad33, pad34, pad35, pad36, pad37;
    @SuppressWarnings("unused")
    private long pad38, pad39, pad3a, pad3b, pad3c, pad3d, pad3e, pad3f;

    HandOverPadWorker(long ctx, boolean virtualClock, long maxPending, HandOver.Segment first) {
        super(ctx, virtualClock, maxPending, first);
    }
}

/**
 * The worker's alone: where it is in the queue. Each position is a segment
 * and a slot's index in it (SLOTS: past its last slot).
 */
abstract class HandOverWorkerLine extends HandOverPadWorker {
    /** Where the next round starts: every slot before it was drained. */
    HandOver.Segment curSegment;
    int curIndex;
    /** Where the last round started: its adds held back lie from here to cur. */
    HandOver.Segment heldSegment;
    int heldIndex;
    /** The adds the last round held back. */
    int heldCount;
    /** A reading of the clock after the last round's pass over new pushes (rules, 9). */
    long heldAt;
    /** During drain(): the scan of a pass, the adds given. */
    HandOver.Segment scanSegment;
    int scanIndex;
    int givenCount;
    /**
     * The slots below clearIndex of the segment numbered clearNumber hold
     * CONSUMED. A number: a reference would keep that segment, and every
     * later one, reachable while the worker does not idle (see sever()).
     */
    long clearNumber;
    int clearIndex;

    HandOverWorkerLine(long ctx, boolean virtualClock, long maxPending, HandOver.Segment first) {
        super(ctx, virtualClock, maxPending, first);
        curSegment = first;
        heldSegment = first;
    }
}

abstract class HandOverPadEnded extends HandOverWorkerLine {
    @SuppressWarnings("unused")
    private long pad50, pad51, pad52, pad53, pad54, pad55, pad56, pad57;
    @SuppressWarnings("unused")
    private long pad58, pad59, pad5a, pad5b, pad5c, pad5d, pad5e, pad5f;

    HandOverPadEnded(long ctx, boolean virtualClock, long maxPending, HandOver.Segment first) {
        super(ctx, virtualClock, maxPending, first);
    }
}

/** What the worker writes once a timeout it ends, and callers read on every newTimeout(). */
abstract class HandOverEndedLine extends HandOverPadEnded {
    /** Timeouts the worker uncounted: expired, refused, ended, or cancelled by stop(). */
    volatile long ended;

    HandOverEndedLine(long ctx, boolean virtualClock, long maxPending, HandOver.Segment first) {
        super(ctx, virtualClock, maxPending, first);
    }
}
