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
import java.util.function.ToLongFunction;

/**
 * The hand-over between a {@link WheelTimer}'s callers (any thread, in
 * {@code newTimeout()}, {@code cancel()}, {@code start()}, {@code stop()},
 * {@code stats()} ...) and its worker (the one thread that calls
 * libwheeltimer for the timer, {@link Worker}). Nothing else passes
 * between them. The binding's README tells the design (its "Design") and
 * the measurements that chose it ("Measured against HashedWheelTimer").
 *
 * <h2>The lanes</h2>
 *
 * <p>Callers push into lanes ({@link Lane}): each stripe of threads
 * ({@link Stripes}, by thread id) has a lane of adds and a lane of
 * cancels, made by its first caller, so that callers of different stripes
 * write no line in common. A lane is filled in push order, and the worker
 * drains each in that order; between lanes there is no order but the
 * round's: every lane of cancels first, then each lane of adds (see
 * {@link #drain}). What the worker hands over at the same deadline goes in
 * that order, and each caller's timeouts in the order it made them. A
 * one-shot add made with its deadline (an executor's task, most often)
 * seconds ahead is not pushed: its caller keeps it in its stripe's far
 * hold, which the worker releases bucket by bucket (rules, 11).
 *
 * <p>The count of pending timeouts is striped the same way, in each
 * stripe's lane of adds: counts that only grow, of what it admitted, what
 * it uncounted and the credits it drew on the limit (a chunk at a time,
 * {@code drawn}) or gave back; summed by {@link #pending}. The stripe's
 * credits, drawn, or freed by the cancels of timeouts it counted (a
 * {@code newTimeout()}'s timeout knows its lane; an executor's task is
 * uncounted by its canceller's stripe), admit without touching another
 * stripe's line (see {@link #admit}).
 *
 * <h2>The rules</h2>
 *
 * <pre>
 * what                     written by                     read by           on
 * ------------------------ ------------------------------ ----------------- ---------------
 * a slot of a lane         one caller, once (CAS null to  the worker        the segment's
 *                          the timeout); the worker, once  (acquire)         arrays
 *                          consumed, to CONSUMED (idle)
 * its deadline hint        that caller, after the CAS     the worker
 * Segment.fill             the lane's callers (a hint,    the lane's        the segment
 *                          racy)                          callers, worker
 *                                                         (a round's end)
 * Segment.next             one caller, once (CAS); the    the lane's        the segment
 *                          worker, once left (SEVERED)    callers, worker
 * a lane's tail            its callers (CAS, once a       its callers, the  the lane's
 *                          segment)                       worker (a round)  callers' line
 * a stripe's adds,         its callers and those who      its callers; any  the lane's
 * cancels, granted, swept  cancel what it counted (CAS of  caller (a sum)    callers' line
 *                          adds, +1 cancels); draws,
 *                          give-backs
 * drawn                    callers (once a chunk)         callers           callers' line
 * ended                    the worker (+1 an expiry, a    callers           its own line
 *                          refusal, stop())
 * urgent                   callers (0 to 1), the worker   the worker        callers' line
 *                          (1 to 0, once a round)
 * sleep                    the worker (twice a wait),     callers           shared line
 *                          one waker a sleep (CAS to
 *                          AWAKE)
 * state                    start(), stop(), the worker    callers, worker   shared line
 *                          when it fails
 * the lanes' arrays        a stripe's first caller, once  callers, worker   shared line
 *                          a lane (CAS null to the lane)
 * a stripe's far hold      its callers and the worker,    the same          its own, and the
 *                          under its lock                                   lane's callers'
 * its next release         the same, under the lock       the worker        line
 * wakesBy                  the worker, before sleep       callers           shared line
 * commands                 callers (offer)                the worker (poll) its own queue
 * wakers, closing          wakers; the worker at its end  the worker        shared line
 * where the worker is in   the worker                     the worker        the lane's
 * a lane (cur, held, end,                                                   worker's line
 * scan, clear)
 * </pre>
 *
 * <p>So a caller writes, per newTimeout() and cancel(), its stripe's lines
 * and its slot, and the worker only reads them; the shared callers' line
 * once a chunk of its stripe's adds, and {@code urgent} when it pushes an
 * add due soon (the worker clears it once a round). The worker writes the
 * shared line twice a wait ({@code sleep}), and the line of {@code ended}
 * once a timeout it ends (expires, most often); callers only read them.
 * Padding (128 bytes, so that an adjacent-line prefetch does not pair
 * them) keeps these lines, and the worker's own, apart from each other and
 * from whatever the heap puts beside the object. The worker never looks at
 * a timeout that it can leave alone: an add due {@link Worker#HOLD_NANOS}
 * or more later is held back a round by its slot's deadline hint, without
 * reading the timeout, so that a request timeout cancelled within a round
 * is not in the worker's cache while its caller may still cancel it.
 *
 * <h2>Why the order is safe</h2>
 *
 * <ol>
 * <li><b>No push is missed by a worker going to sleep.</b> A caller's push
 *     is a volatile write (the slot's compare-and-set) followed by a
 *     volatile read of {@code sleep}; the worker's wait is a volatile
 *     write of {@code sleep} followed by a volatile read of the slot it
 *     would take next in every lane ({@link #mayNotSleep}), the lanes'
 *     arrays read with acquire (a lane a stripe's first caller made after
 *     that read is pushed to after it). Volatile accesses are totally
 *     ordered: the worker sees the slot filled and does not sleep, or the
 *     caller sees it asleep and wakes it (unless the worker lingers and
 *     wakes by itself well before the timeout's deadline, see
 *     {@link #add}).
 * <li><b>Slots fill in order, without gaps</b>, in each lane. A caller tries slot
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
 *     only slots it consumed, with {@link Lane#CONSUMED}, which no caller's
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
 *     segment of a lane (its {@code next} becomes SEVERED) once the adds
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
 * <li><b>The count never passes the limit.</b> A stripe admits a timeout
 *     only with a credit of its own, taken by a compare-and-set of its
 *     {@code adds} below its credits drawn plus its cancels (read after,
 *     so never more than they are), as every credit given back is taken;
 *     a stripe draws credits with a compare-and-set of {@code drawn} while
 *     {@code drawn}, less {@code ended} (read first, so never more than it
 *     is), is below the limit. Every timeout counted holds a credit drawn
 *     and not given back, so the count is at most {@code drawn - ended}, at
 *     most the limit. A stripe refuses only once no credit is left to draw
 *     after it took back every stripe's ({@link #admit}): a cancel that
 *     happened before the refusal (in the order of the two threads) gave
 *     its credit to a stripe that this took back.
 * <li><b>The engine never holds more than the limit.</b> A cancel uncounts
 *     its timeout after its push; an add that its credit let in, in any
 *     lane, is pushed after that. A round reads where every lane of adds
 *     ends, then drains every lane of cancels to its end read then, so it
 *     hands over every cancel pushed before an add of the round, before
 *     that add ({@link #drain}).
 * <li><b>A far add its caller holds.</b> A one-shot add made at least a
 *     bucket of the far hold ahead ({@link FarHold}) goes, not into its
 *     stripe's lane, but into the stripe's far hold, under the hold's lock
 *     ({@link #add}): the worker never sees it unless it is still pending
 *     when its bucket is released, and a cancel before that is the
 *     timeout's compare-and-set alone. The worker releases the holds
 *     before it drains the lanes (what a hold held was made before what
 *     the lane has since), each under its lock, and wakes for the next
 *     release. A caller that moves its hold's next release (a volatile
 *     write) then reads {@code sleep}, and wakes a sleeping worker if the
 *     release is before {@code wakesBy}, when the worker's wait ends by
 *     itself; the worker writes {@code wakesBy}, then {@code sleep}, then
 *     reads every hold's next release ({@link #mayNotSleep}): it sees the
 *     move and does not sleep, or the caller sees it asleep. A stale clock
 *     can only make a caller hold an add in a bucket the worker would
 *     already release: its next release is then past, and the worker
 *     releases it at its next round, which that wake brings. The worker
 *     closes the holds at its end, and stop() takes what they hold, as it
 *     takes the lanes' (6).
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

    /**
     * The most credits a stripe draws on the limit at once (fewer near the
     * limit), and keeps: past twice this, it gives this many back.
     */
    static final long CHUNK = 32;

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

    private static final VarHandle LANE = MethodHandles.arrayElementVarHandle(Lane[].class);
    private static final AtomicLongFieldUpdater<HandOverCallersLine> DRAWN =
            AtomicLongFieldUpdater.newUpdater(HandOverCallersLine.class, "drawn");
    private static final AtomicLongFieldUpdater<HandOverEndedLine> ENDED =
            AtomicLongFieldUpdater.newUpdater(HandOverEndedLine.class, "ended");
    private static final AtomicLongFieldUpdater<HandOverSharedLine> SLEEP =
            AtomicLongFieldUpdater.newUpdater(HandOverSharedLine.class, "sleep");
    private static final AtomicIntegerFieldUpdater<HandOverSharedLine> STATE =
            AtomicIntegerFieldUpdater.newUpdater(HandOverSharedLine.class, "state");

    HandOver(long ctx, boolean virtualClock, long maxPending, WheelTimer timer) {
        super(ctx, virtualClock, maxPending, timer);
    }

    /* The lanes: each stripe's, made by its first caller. */

    /** The current thread's lane of adds (the stripe's counts are there too). */
    Lane addLane() {
        return lane(addLanes);
    }

    /** The current thread's lane of cancels. */
    Lane cancelLane() {
        return lane(cancelLanes);
    }

    private Lane lane(Lane[] lanes) {
        int i = Stripes.current();
        Lane l = (Lane) LANE.getAcquire(lanes, i);
        return l != null ? l : makeLane(lanes, i);
    }

    /** The stripe's first call: makes lane {@code i} of {@code lanes}, unless another caller did. */
    private Lane makeLane(Lane[] lanes, int i) {
        Lane made = new Lane(this, lanes == addLanes);
        Lane was = (Lane) LANE.compareAndExchange(lanes, i, (Lane) null, made);
        return was == null ? made : was;
    }

    /** A lane of {@code lanes} as the worker (or a sum) reads it: null until made. */
    private static Lane laneAt(Lane[] lanes, int i) {
        return (Lane) LANE.getAcquire(lanes, i);
    }

    /* The callers' side. */

    /**
     * The timeouts counted: those the stripes admitted, less those they
     * uncounted, less those the worker ended, read in the reverse order
     * ({@code ended}, every stripe's credits given back, which its
     * admissions count too, its uncounted, its admitted), each a count
     * that only grows: a timeout uncounted or ended was admitted before,
     * and a credit given back counted as an admission before, so a sum sees
     * the admission if it sees the end, and counts one too many, never too
     * few. Exact when nothing races it.
     */
    long pending() {
        long e = ended;
        long swept = sum(Lane::swept);
        long c = sum(Lane::cancels);
        long a = sum(Lane::adds);
        return a - swept - c - e;
    }

    /** One of the stripes' counts, summed over the lanes of adds made so far. */
    private long sum(ToLongFunction<Lane> count) {
        long n = 0;
        for (int i = 0; i < addLanes.length; i++) {
            Lane l = laneAt(addLanes, i);
            if (l != null) {
                n += count.applyAsLong(l);
            }
        }
        return n;
    }

    /**
     * Whether no timeout is counted: {@link #pending()} is 0, summed only
     * when the credits drawn on the limit, less those the worker ended, are
     * few enough that the stripes could hold them all (the count is those
     * less the stripes' credits; a stripe keeps at most three chunks, and
     * may be giving a fourth back). Two reads of lines seldom written, most
     * of the time; a sum of every stripe's under {@code 4 * CHUNK} a stripe.
     */
    boolean nonePending() {
        long e = ended;
        return drawn - e <= 4 * CHUNK * Stripes.COUNT && pending() == 0;
    }

    /**
     * A caller's: counts one more timeout, if the limit allows; returns
     * the caller's lane of adds, for its push, or null if the limit does
     * not allow it (nothing counted). A stripe admits by its own credits,
     * drawn on the limit a chunk at a time (fewer as the limit nears), so
     * that callers of different stripes write no line in common; at the
     * limit it takes back every stripe's credits before it refuses.
     */
    Lane admit() {
        Lane l = addLane();
        while (!l.admit()) {
            if (!draw(l)) {
                return null;
            }
        }
        return l;
    }

    /**
     * Draws credits on the limit for {@code l}: the limit less the credits
     * drawn, plus the timeouts the worker ended (read first: a later read
     * can only allow more), is what may still be drawn. Every timeout
     * counted holds a credit drawn, so the count never passes the limit.
     * False if none is left, even after every stripe's were taken back.
     */
    private boolean draw(Lane l) {
        for (;;) {
            long e = ended;
            long d = drawn;
            long free = maxPending - (d - e);
            if (free > 0) {
                long n = Math.min(CHUNK, Math.max(1, free / (2 * Stripes.COUNT)));
                if (DRAWN.compareAndSet(this, d, d + n)) {
                    l.grant(n);
                    return true;
                }
            } else if (!reclaim()) {
                return false;
            }
        }
    }

    /**
     * At the limit: takes back every stripe's credits, one caller at a
     * time, so that none finds the credits another is taking back neither
     * in a stripe nor in {@code drawn}. True if the caller may draw again:
     * credits were taken back, by this call or, meanwhile, another.
     */
    private boolean reclaim() {
        synchronized (addLanes) {
            long e = ended;
            if (maxPending - (drawn - e) > 0) {
                return true;
            }
            long got = 0;
            for (int i = 0; i < addLanes.length; i++) {
                Lane l = laneAt(addLanes, i);
                if (l != null) {
                    got += l.takeCredits(0);
                }
            }
            if (got == 0) {
                return false;
            }
            DRAWN.getAndAdd(this, -got);
            return true;
        }
    }

    /**
     * A caller's: uncounts a timeout it cancelled, or could not add: its
     * credit goes to the caller's stripe, which gives a chunk back if it
     * holds more than two when it looks, once a chunk of its uncounts.
     */
    void countDown() {
        countDown(addLane());
    }

    /** The same, the credit to the stripe of {@code lane}, the lane of adds that counted the timeout. */
    void countDown(Lane lane) {
        if (lane.uncount(2 * CHUNK, CHUNK) && lane.takeCredits(CHUNK) > 0) {
            DRAWN.getAndAdd(this, -CHUNK);
        }
    }

    /**
     * The worker's: uncounts a timeout that expired, was refused, ended or
     * was cancelled by stop(). The worker alone writes {@code ended}: an
     * ordered store, not a read-modify-write, on a line of its own.
     */
    void ended() {
        ENDED.lazySet(this, ended + 1);
    }

    /**
     * Hands a new timeout {@code t}, counted, made at {@code now}, to the
     * worker through {@code lane}, the lane of adds its admission returned,
     * and wakes the worker if it must: if it sleeps until something is due,
     * or lingers (it wakes by itself by a time) and {@code t} is due within
     * {@link #DEFER_MARGIN_NANOS} of that. Returns false, {@code t}
     * cancelled and uncounted, if stop() came first (see the rules, 6).
     */
    boolean add(WheelTimeout t, long now, Lane lane) {
        if (t.deadline - now > FarHold.BUCKET_NANOS && !virtualClock
                && !(t instanceof SlackOrPeriodicTimeout)) {
            int held = lane.holdFar(t, now);
            if (held != Lane.NOT_HELD) {
                return heldFar(t, lane, held == Lane.HELD_MOVED);
            }
        }
        lane.push(t, t.deadline);
        // Before sleep is read: a worker about to linger either sees this,
        // or is seen asleep below (both volatile).
        if ((virtualClock || t.deadline - now < URGENT_NANOS) && urgent == 0) {
            urgent = 1;
        }
        if (stoppedFirst(t)) {
            return false;
        }
        long s = sleep;
        if (s != AWAKE && (s == FOREVER || virtualClock || t.deadline - s < DEFER_MARGIN_NANOS)) {
            wake(s);
        }
        return true;
    }

    /**
     * After {@code t} went into the far hold of {@code lane} (rules, 11):
     * wakes the worker if the hold's next release moved ({@code moved})
     * to before the time its sleep ends by itself. Returns false, {@code t}
     * cancelled and uncounted, if stop() came first (rules, 6).
     */
    private boolean heldFar(WheelTimeout t, Lane lane, boolean moved) {
        if (stoppedFirst(t)) {
            return false;
        }
        if (moved) {
            long s = sleep;
            if (s != AWAKE && lane.farRelease < wakesBy) {
                wake(s);
            }
        }
        return true;
    }

    /**
     * After {@code t} was pushed or held: whether stop() came first and
     * this call cancelled {@code t}, then uncounted it; false too if the
     * worker's end cancelled it first, for the set stop() returns (rules, 6).
     */
    private boolean stoppedFirst(WheelTimeout t) {
        if (state == SHUTDOWN && t.cancelOnStop()) {
            countDown();
            return true;
        }
        return false;
    }

    /**
     * Hands a new timeout {@code t}, counted, whose deadline is still its
     * delay (at least {@link WheelTimer#AHEAD_NANOS}, far beyond
     * {@link #URGENT_NANOS}), to the worker through {@code lane}, as
     * {@link #add} does (rules, 9). If the worker
     * sleeps, its next pass counts the delay; one that lingers meets
     * {@code t} by the end of its linger, long before {@code t} can be due,
     * and one that sleeps until something is due is woken. If it is awake
     * (it may run tasks before its next pass), the delay counts from now.
     * Returns false, {@code t} cancelled and uncounted, if stop() came
     * first (rules, 6).
     */
    boolean addAhead(WheelTimeout t, Lane lane) {
        lane.push(t, AHEAD);
        if (stoppedFirst(t)) {
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
     * drops it when it meets it), then uncounts it, in {@code lane}, the
     * lane that counted it, or, if null, the caller's. Never wakes the
     * worker: the timeout's own deadline bounds its sleep.
     */
    void cancelled(WheelTimeout t, boolean taken, Lane lane) {
        if (taken) {
            cancelLane().push(t, 0);
        }
        countDown(lane != null ? lane : addLane());
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
     * Drains a round: what was pushed before it began. First every lane of
     * cancels, then each lane of adds: the adds its last round held back
     * (older, so first: the engine keeps the order of those due at the
     * same time), then what was pushed since, in push order; an add due at
     * {@code horizon} or later is held back for the next round (see
     * {@link Lane#drain}). A timeout cancelled before it was handed over is
     * skipped: the engine never hears of it. The engine never holds more
     * timeouts than the count allowed: an add that a cancel's uncounting
     * let in was pushed after that cancel, and the ends of the lanes of
     * adds are read before the lanes of cancels are drained, so the cancel
     * is handed over first, whatever the lanes. (A cancel's push is of a
     * timeout handed over by an earlier round, never of one of this
     * round's adds.) Returns the number of new adds given.
     *
     * <p>Each lane's round ends where its tail was when the round began
     * (or at the first slot still empty): a stream of pushes that the
     * worker cannot keep up with ends each round all the same, and what it
     * fired is run.
     */
    int drain(long horizon, Round round) {
        for (int i = 0; i < addLanes.length; i++) {
            Lane l = laneAt(addLanes, i);
            if (l != null) {
                l.markEnd();
            }
        }
        for (int i = 0; i < cancelLanes.length; i++) {
            Lane l = laneAt(cancelLanes, i);
            if (l != null) {
                l.markEnd();
                l.drain(Long.MAX_VALUE, round);
            }
        }
        int given = 0;
        boolean held = false;
        for (int i = 0; i < addLanes.length; i++) {
            Lane l = laneAt(addLanes, i);
            // A lane made since the ends were read waits for the next round.
            if (l != null && l.endSegment != null) {
                given += l.drain(horizon, round);
                held |= l.holding();
            }
        }
        holding = held;
        return given;
    }

    /** Whether the last round held adds back: the next must hand them over. */
    boolean holding() {
        return holding;
    }

    /**
     * Every timeout in the lanes neither handed to the engine nor
     * cancelled: the adds held back and those pushed since, oldest first
     * in each lane. For stop(), and for the executor's shutdown() from a
     * task, in mid-round, when the worker may not hand anything over.
     */
    void forEachPending(Consumer<WheelTimeout> action) {
        for (int i = 0; i < addLanes.length; i++) {
            Lane l = laneAt(addLanes, i);
            if (l != null) {
                l.forEachPending(action);
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
        return (lingering ? urgent != 0 : pushed()) || !commands.isEmpty() || state == SHUTDOWN
               || nextFarRelease() < wakesBy;
    }

    /**
     * Whether anything is pushed that no round drained, in any lane (a
     * lane made after this read it as null is pushed to after, and its
     * caller then sees the sleep).
     */
    private boolean pushed() {
        return pushed(addLanes) || pushed(cancelLanes);
    }

    private static boolean pushed(Lane[] lanes) {
        for (int i = 0; i < lanes.length; i++) {
            Lane l = laneAt(lanes, i);
            if (l != null && l.pushed()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Before the worker waits: from now on callers must wake it, unless
     * {@code by} is not {@link #FOREVER} and their deadline is {@link
     * #DEFER_MARGIN_NANOS} or more after it, when it wakes by itself; and
     * a caller that moves a far hold's next release before {@code wakesBy},
     * when its wait ends by itself (rules, 11). An
     * idle worker (not lingering) first clears the slots it is done with,
     * so that the lanes hold no timeout for it (rules, 5).
     */
    void sleep(long by, boolean lingering, long wakesBy) {
        if (!lingering) {
            clearDone(addLanes);
            clearDone(cancelLanes);
        }
        this.wakesBy = wakesBy;
        sleep = by;
    }

    private static void clearDone(Lane[] lanes) {
        for (int i = 0; i < lanes.length; i++) {
            Lane l = laneAt(lanes, i);
            if (l != null) {
                l.clearDone();
            }
        }
    }

    /* The stripes' far holds (rules, 11), the worker's. */

    /** The soonest of the far holds' next releases ({@link Lane#farRelease}), in ns. */
    long nextFarRelease() {
        long r = Long.MAX_VALUE;
        for (int i = 0; i < addLanes.length; i++) {
            Lane l = laneAt(addLanes, i);
            if (l != null) {
                r = Math.min(r, l.farRelease);
            }
        }
        return r;
    }

    /** Gives what each far hold releases at {@code now} to {@code give}, under its lock. */
    void releaseFar(long now, Consumer<WheelTimeout> give) {
        for (int i = 0; i < addLanes.length; i++) {
            Lane l = laneAt(addLanes, i);
            if (l != null) {
                l.releaseFar(now, give);
            }
        }
    }

    /** Drops the cancelled timeouts of every far hold. */
    void compactFar() {
        eachAddLane(Lane::compactFar);
    }

    /** Gives every timeout the far holds hold to {@code action}, cancelled or not. */
    void forEachFar(Consumer<WheelTimeout> action) {
        eachAddLane(l -> l.forEachFar(action));
    }

    /**
     * At the worker's end: closes every far hold, giving what it holds to
     * {@code action}. A lane made after this read its slot is not closed:
     * a caller that holds in it sees SHUTDOWN after (rules, 6).
     */
    void closeFar(Consumer<WheelTimeout> action) {
        eachAddLane(l -> l.closeFar(action));
    }

    /** What the far holds hold, cancelled or not; {@code racy}: read without their locks. */
    long farSize(boolean racy) {
        return sum(racy ? Lane::farSizeRacy : Lane::farSize);
    }

    /** Each lane of adds made so far, to {@code action}. */
    private void eachAddLane(Consumer<Lane> action) {
        for (int i = 0; i < addLanes.length; i++) {
            Lane l = laneAt(addLanes, i);
            if (l != null) {
                action.accept(l);
            }
        }
    }

    /** The cancelled timeouts the far holds dropped, never handed to the engine. */
    long farDropped() {
        return sum(Lane::farDropped);
    }

    /** When the worker wakes, or decides not to sleep. */
    void awake() {
        if (sleep != AWAKE) {
            sleep = AWAKE;
        }
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

/** What callers write now and then: the credits drawn on the limit, once a chunk; urgent. */
abstract class HandOverCallersLine extends HandOverPadHead {
    /** Credits the stripes drew on the limit, less those given back. */
    volatile long drawn;
    /** 1 once a caller pushed an add due soon; the worker clears it each round. */
    volatile int urgent;
}

abstract class HandOverPadMiddle extends HandOverCallersLine {
    @SuppressWarnings("unused")
    private long pad20, pad21, pad22, pad23, pad24, pad25, pad26, pad27;
    @SuppressWarnings("unused")
    private long pad28, pad29, pad2a, pad2b, pad2c, pad2d, pad2e, pad2f;
}

/** What the worker writes a few times a round and callers read: its sleep; and what never changes. */
abstract class HandOverSharedLine extends HandOverPadMiddle {
    /** {@link HandOver#AWAKE}, {@link HandOver#FOREVER}, or the time by which the worker wakes. */
    volatile long sleep = HandOver.AWAKE;
    /**
     * When the worker's wait ends by itself, Long.MAX_VALUE if it does not
     * (the engine's deadlines aside): written before {@code sleep}, read after it.
     */
    long wakesBy = Long.MAX_VALUE;
    /** {@link HandOver#INIT}, {@link HandOver#STARTED} or {@link HandOver#SHUTDOWN}. */
    volatile int state;
    /** Set by the worker before it closes the native side. */
    volatile boolean closing;
    final long ctx;
    final long maxPending;
    final boolean virtualClock;
    /** The timer whose hand-over this is (its timeouts reach it through their lanes). */
    final WheelTimer timer;
    /** Each stripe's lane of adds, and of cancels ({@link Stripes}): null until its first caller. */
    final Lane[] addLanes = new Lane[Stripes.COUNT];
    final Lane[] cancelLanes = new Lane[Stripes.COUNT];
    /** Other commands for the worker: advance(), stats(), pendingList(). */
    final ConcurrentLinkedQueue<FutureTask<?>> commands = new ConcurrentLinkedQueue<>();
    /** Threads inside signal(); the native side is closed only when none is. */
    final java.util.concurrent.atomic.AtomicInteger wakers = new java.util.concurrent.atomic.AtomicInteger();

    HandOverSharedLine(long ctx, boolean virtualClock, long maxPending, WheelTimer timer) {
        this.ctx = ctx;
        this.timer = timer;
        this.virtualClock = virtualClock;
        this.maxPending = maxPending;
    }
}

abstract class HandOverPadWorker extends HandOverSharedLine {
    @SuppressWarnings("unused")
    private long pad30, pad31, pad32, pad33, pad34, pad35, pad36, pad37;
    @SuppressWarnings("unused")
    private long pad38, pad39, pad3a, pad3b, pad3c, pad3d, pad3e, pad3f;

    HandOverPadWorker(long ctx, boolean virtualClock, long maxPending, WheelTimer timer) {
        super(ctx, virtualClock, maxPending, timer);
    }
}

/** The worker's alone (its places in the lanes are the lanes'). */
abstract class HandOverWorkerLine extends HandOverPadWorker {
    /** Whether the last round held adds back. */
    boolean holding;
    /** A reading of the clock after the last round's pass over new pushes (rules, 9). */
    long heldAt;

    HandOverWorkerLine(long ctx, boolean virtualClock, long maxPending, WheelTimer timer) {
        super(ctx, virtualClock, maxPending, timer);
    }
}

abstract class HandOverPadEnded extends HandOverWorkerLine {
    @SuppressWarnings("unused")
    private long pad50, pad51, pad52, pad53, pad54, pad55, pad56, pad57;
    @SuppressWarnings("unused")
    private long pad58, pad59, pad5a, pad5b, pad5c, pad5d, pad5e, pad5f;

    HandOverPadEnded(long ctx, boolean virtualClock, long maxPending, WheelTimer timer) {
        super(ctx, virtualClock, maxPending, timer);
    }
}

/** What the worker writes once a timeout it ends, and callers read when they draw on the limit. */
abstract class HandOverEndedLine extends HandOverPadEnded {
    /** Timeouts the worker uncounted: expired, refused, ended, or cancelled by stop(). */
    volatile long ended;

    HandOverEndedLine(long ctx, boolean virtualClock, long maxPending, WheelTimer timer) {
        super(ctx, virtualClock, maxPending, timer);
    }
}
