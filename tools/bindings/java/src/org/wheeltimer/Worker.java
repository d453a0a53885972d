// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Worker.java - a WheelTimer's worker thread: hands timeouts to the
 * library in batches, sleeps until something is due, runs the tasks
 */
package org.wheeltimer;

import io.netty.util.Timeout;
import io.netty.util.TimerTask;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.FutureTask;
import java.util.function.Consumer;

/**
 * The only thread that calls libwheeltimer for its timer, as the library
 * requires. Each round it runs the queued commands ({@code advance()},
 * {@code stats()}), drains what callers pushed to the timer's
 * {@link HandOver} and queues the cancels, then, lane by lane, the adds
 * held back by the round before and what was pushed since (holding
 * back a round the adds due {@link #HOLD_NANOS} or more later, and keeping
 * the one-shot adds due seconds ahead in its {@link FarHold} until their
 * time comes near, as the callers keep those they make with a deadline in
 * their stripes' holds, which it releases too), with the library (one JNI call per
 * 1024 operations, no system call), then waits in the library's
 * {@code wheeltimer_wait()}, which submits them in one batch, and reaps
 * what is ready or else sleeps until something is due or another thread
 * ends the wait with {@code wheeltimer_wake()}; then it runs the tasks of
 * what fired, in deadline order, chunk by chunk.
 *
 * <p>A timeout the engine holds has a slot in {@link #bySlot}, given when
 * the worker takes it and kept in the timeout's state; its add carries the
 * slot as the cookie that each of its records brings back, and a record
 * must also match the whole handle, which the slot keeps in {@link
 * #handleBySlot} (not the timeout: 8 bytes less for each of the many that
 * never reach the engine). A slot is freed when the
 * timeout's cancel is queued or its final record is read. No operation is
 * queued while a round's records are being run, so a slot is not reused
 * under a record not yet run.
 *
 * <p>An add already due when the worker takes it (a burst made while a
 * task held the worker, or a delay shorter than the worker took to come
 * to it) does not go to the engine:
 * it is not taken (a cancel meanwhile needs no push; the expiry's
 * compare-and-set finds it) and runs in the same round, in deadline order with
 * the records the engine hands back (a record is run after the adds due
 * before it, and before those due at its time, which came later). Due
 * means by the last tick of the engine's resolution that has begun, as
 * the engine counts: the round's reap then finds every timeout the engine
 * holds that is due before it, and the order is the engine's own. The
 * engine would have fired it at once: this spares it an add, a fire and
 * their records. The counters count it as the engine would (added, and
 * fired or cancelled). On a virtual clock every add goes to the engine,
 * whose advance() decides what is due.
 *
 * <p>Slots are given in order, each the first free one after the last
 * given, in a table at most three quarters full. The table is old in the
 * collector's heap, and storing a young timeout into it marks the card
 * (512 bytes) it falls in for G1's refinement: slots given in order mark
 * a card per few dozen adds. The library's handle indexes, which the table
 * was indexed by before, are reused most recently freed first, as random
 * as the cancels that free them: a card per add, which G1's refinement
 * threads then scanned (see the binding's README for the figures).
 */
final class Worker implements Runnable, HandOver.Round {
    private final WheelTimer timer;
    private final HandOver handOver;
    private final long ctx;
    /** The engine's resolution, in ns. */
    private final long resolution;

    /* One apply()'s operations, their outcomes, and the timeout of each add. */
    private final long[] ops;
    private final long[] results;
    private final WheelTimeout[] opOwner;
    private final int opsMax;
    private int opWords;
    private int opCount;

    /* A chunk of a round's records (Native.REC_WORDS each). */
    private final long[] records;
    private final long[] scratch = new long[2];

    /** The timeouts the engine holds, by their slot (0 is none). */
    private WheelTimeout[] bySlot = new WheelTimeout[1024];
    /**
     * The library's handle of the timeout in each slot: 0 from when the
     * slot is given until its add is applied; what a freed slot keeps is
     * never read, its bySlot entry being null.
     */
    private long[] handleBySlot = new long[1024];
    /** Where the search for a free slot starts: after the last given. */
    private int nextSlot = 1;
    private int slotsUsed;
    /** A round's records are being run: nothing may be queued (see above). */
    private boolean inRound;

    /**
     * The adds due when drained (not taken), in deadline order once the drain
     * is over; run from {@link #dueNext}. While runDue() runs them, the
     * slots before the one whose task runs are empty, dueNext not yet
     * past them: a reader skips empty slots.
     */
    private WheelTimeout[] due = new WheelTimeout[DUE_KEPT];
    private int dueCount;
    private int dueNext;
    /** An add was taken due before one due earlier: the array needs sorting. */
    private boolean dueUnsorted;
    /** While a round's drain runs: the last tick begun, by which an add is due; else Long.MIN_VALUE. */
    private long dueBy = Long.MIN_VALUE;
    private static final int DUE_KEPT = 64;
    private static final Comparator<WheelTimeout> BY_DEADLINE =
            Comparator.comparingLong(WheelTimeout::deadlineNanos);

    private final Set<Timeout> unprocessed = new HashSet<>();

    /** One-shot adds due seconds ahead, kept from the engine until their time comes near. */
    private final FarHold farHold = new FarHold();
    private final Consumer<WheelTimeout> giveReleased = this::giveReleased;
    private final Consumer<WheelTimeout> dropCancelled = this::dropCancelled;
    /** While a round's drain runs, off a virtual clock: the time it began; else Long.MIN_VALUE. */
    private long farNow = Long.MIN_VALUE;
    /** What the callers' far holds released, from releasedNext to releasedCount not yet given. */
    private WheelTimeout[] released = new WheelTimeout[RELEASED_KEPT];
    private int releasedCount;
    private int releasedNext;
    private final Consumer<WheelTimeout> gatherReleased = this::gatherReleased;
    private static final int RELEASED_KEPT = 1024;

    /** The worker thread's kernel id, 0 until it runs. */
    private volatile int tid;
    /* Counters: this thread's alone; stats() reads them here too. */
    /** Waits in wheeltimer_wait() with leave to sleep. */
    private long wakeups;
    private long fired;
    private long tasksRun;
    private long taskFailures;
    private long refused;
    /* The adds run without the engine, counted for stats() as the engine counts its own. */
    private long addedAtOnce;
    private long firedAtOnce;
    private long cancelledAtOnce;

    Worker(WheelTimer timer) {
        this.timer = timer;
        this.handOver = timer.handOver;
        this.ctx = timer.ctx;
        this.resolution = timer.resolutionNanos();
        this.ops = new long[Native.opsWords()];
        this.opsMax = Native.opsMax();
        this.results = new long[opsMax];
        this.opOwner = new WheelTimeout[opsMax];
        this.records = new long[Native.chunkRecords() * Native.REC_WORDS];
    }

    /**
     * How far ahead an add must be due to be held back a round: at least
     * the linger, by which the next round comes, plus the margin within
     * which a newTimeout() wakes a lingering worker. A request timeout
     * cancelled within a round so costs the worker a look at it a round
     * later, and the engine nothing, as one cancelled before the worker
     * drained it; and the worker has not read it while its caller could
     * still cancel it (see {@link HandOver}).
     */
    static final long HOLD_NANOS = HandOver.DEFER_MARGIN_NANOS;

    @Override
    public void run() {
        tid = Native.gettid();
        try {
            loop();
        } catch (RuntimeException | Error e) {
            handOver.end();
            WheelTimer.LOG.log(Level.ERROR, "the wheeltimer worker failed; the timer is stopped", e);
            throw e;
        } finally {
            shutdown();
        }
    }

    private void loop() {
        boolean busy = false;
        // A stop() ends the loop at the next round, even with more due:
        // what has not run yet is returned, cancelled, as Netty's does.
        // The round is a method of its own: this loop is entered once, and
        // the JIT compiles a loop's body only after tens of thousands of
        // turns (on-stack replacement), a method after a few thousand calls.
        while (handOver.state() != HandOver.SHUTDOWN) {
            busy = round(busy);
        }
    }

    /**
     * One round: hands over what callers pushed, runs the commands, waits
     * in the library, and runs what it returns. {@code busy}: a round
     * since the worker last went to sleep took new adds; returns the same
     * after this round.
     */
    private boolean round(boolean busy) {
        handOver.beginRound();
        busy |= handOver(true) > 0;
        runCommands();
        // Wait in the library: it returns what is ready, else sleeps
        // until something is due or a caller ends the wait with
        // wheeltimer_wake(). After a round that took timeouts, or while
        // adds are held back (handed over at the next round), linger:
        // sleep at most LINGER_NANOS, and tell callers so. From here on
        // a caller that pushes sees the sleep and wakes us if its
        // timeout is due soon; one that pushed before is seen by
        // mayNotSleep(), and then the wait only reaps (HandOver's
        // rules, 1). A lingering worker so takes what a stream of
        // callers pushes once per linger, not as fast as it can: each
        // round costs it, and the callers too. Idle, it sleeps until
        // something is due, and any push wakes it; if it holds far
        // adds, which the engine does not know, the wait also ends at
        // the next one's release.
        boolean lingering = busy || handOver.holding();
        long timeout = lingering ? HandOver.LINGER_NANOS : -1;
        long release = Math.min(farHold.nextRelease(), handOver.nextFarRelease());
        long now = lingering || release != Long.MAX_VALUE ? timer.nanoTime() : 0;
        if (release != Long.MAX_VALUE) {
            long in = Math.max(0, release - now);
            timeout = timeout < 0 ? in : Math.min(timeout, in);
        }
        if (dueCount > 0) {
            // Tasks to run now: only reap what the engine has ready.
            timeout = 0;
        } else {
            long wakesBy = timeout < 0 ? Long.MAX_VALUE : now + timeout;
            handOver.sleep(lingering ? wakesBy : HandOver.FOREVER, lingering, wakesBy);
            if (handOver.mayNotSleep(lingering)) {
                handOver.awake();
                timeout = 0;
            } else {
                busy = false;
                wakeups++;
            }
        }
        int n = Native.waitRound(ctx, timeout, records);
        handOver.awake();
        if (n == -Native.EINTR) {
            // A producer's wake (or a signal): its push is on the stack.
            n = 0;
        }
        if (n < 0) {
            throw Native.error("wheeltimer_wait", n);
        }
        if (n > 0 || dueCount > 0) {
            runRound(n);
        }
        return busy;
    }

    private void runCommands() {
        FutureTask<?> f;
        while ((f = handOver.nextCommand()) != null) {
            f.run();
        }
    }

    /**
     * Hands what was pushed to the library: the cancels of timeouts the
     * engine holds, then, lane by lane, the adds held back a round and the
     * new adds, in push order; with {@code hold}, a new add due
     * {@link #HOLD_NANOS} or more from now is held back instead
     * ({@link HandOver#drain}). Returns the number of new adds given.
     */
    private int handOver(boolean hold) {
        // Not on a virtual clock: advance() hands everything over.
        long horizon = Long.MAX_VALUE;
        int given;
        try {
            if (!handOver.isVirtualClock()) {
                long now = timer.nanoTime();
                if (hold) {
                    horizon = now + HOLD_NANOS;
                    dueBy = now - Math.floorMod(now, resolution);
                }
                if (farHold.size() + handOver.farSize(true) > 2 * handOver.pending()) {
                    // Most of it was cancelled meanwhile: let it go now.
                    compactFarHolds();
                }
                // Older than what was pushed since: to the engine first.
                farHold.release(now, giveReleased);
                releaseCallersHolds(now);
                farNow = now;
            }
            given = handOver.drain(horizon, this);
            if (handOver.holding() && farNow != Long.MIN_VALUE) {
                // After the pass: the adds it held were pushed before.
                handOver.heldAt = timer.nanoTime();
            }
        } finally {
            dueBy = Long.MIN_VALUE;
            farNow = Long.MIN_VALUE;
        }
        if (dueUnsorted) {
            // In push order, which is deadline order for each caller alone.
            Arrays.sort(due, dueNext, dueCount, BY_DEADLINE);
            dueUnsorted = false;
        }
        flush();
        return given;
    }

    /** HandOver's: the engine has {@code t}, which was cancelled: queue its cancel. */
    @Override
    public void cancel(WheelTimeout t) {
        queueCancel(t);
    }

    /**
     * HandOver's: {@code t} is taken for the engine and queued, unless it
     * was cancelled since; or, due already and one-shot, kept to run this
     * round.
     */
    @Override
    public void add(WheelTimeout t, boolean held) {
        if (t.deadline < 0) {
            // Its delay counts from a reading after the pass that met its
            // push: the last round's, if that round held it back.
            t.resolve(held ? handOver.heldAt : timer.nanoTime());
        }
        if (t.deadline <= dueBy && !(t instanceof SlackOrPeriodicTimeout p && p.period != 0)) {
            // Not taken: a cancel() meanwhile needs no push, and runDue()'s
            // expiry finds it cancelled.
            if (dueCount == due.length) {
                due = Arrays.copyOf(due, dueCount * 2);
            }
            if (dueCount > dueNext && t.deadline < due[dueCount - 1].deadline) {
                dueUnsorted = true;
            }
            due[dueCount++] = t;
            addedAtOnce++;
            return;
        }
        if (farNow != Long.MIN_VALUE && !(t instanceof SlackOrPeriodicTimeout)
                && farHold.offer(t, farNow, dropCancelled)) {
            // Not taken: a cancel() meanwhile needs no push.
            return;
        }
        int slot = freeSlot();
        if (t.take(slot)) {
            // From here cancel() pushes it again.
            bySlot[slot] = t;
            handleBySlot[slot] = 0;
            nextSlot = slot + 1;
            slotsUsed++;
            queueAdd(t, slot);
        }
    }

    /**
     * Hands to the engine what the callers' far holds release at {@code now}:
     * gathered under each hold's lock, given after it. If giving throws
     * (the worker is failing), what is left is stop()'s.
     */
    private void releaseCallersHolds(long now) {
        handOver.releaseFar(now, gatherReleased);
        try {
            for (; releasedNext < releasedCount; releasedNext++) {
                giveReleased(released[releasedNext]);
                released[releasedNext] = null;
            }
        } finally {
            if (releasedNext == releasedCount) {
                releasedNext = releasedCount = 0;
                if (released.length > RELEASED_KEPT) {
                    released = new WheelTimeout[RELEASED_KEPT];
                }
            }
        }
    }

    private void gatherReleased(WheelTimeout t) {
        if (releasedCount == released.length) {
            released = Arrays.copyOf(released, releasedCount * 2);
        }
        released[releasedCount++] = t;
    }

    /** A far add whose bucket is released: to the engine (or run, if due), unless cancelled. */
    private void giveReleased(WheelTimeout t) {
        if (t.state() == WheelTimeout.ST_INIT) {
            add(t, true);
        } else {
            dropCancelled(t);
        }
    }

    /** A far add cancelled before the engine had it: counted as the engine would have. */
    private void dropCancelled(WheelTimeout t) {
        addedAtOnce++;
        cancelledAtOnce++;
    }

    /** The first free slot from {@link #nextSlot} on, the table grown first if it is 3/4 full. */
    private int freeSlot() {
        if (slotsUsed >= bySlot.length / 4 * 3) {
            if (bySlot.length > WheelTimeout.MAX_SLOT / 2) {
                throw new IllegalStateException("more timeouts than the worker's table has slots: "
                                                + slotsUsed);
            }
            bySlot = Arrays.copyOf(bySlot, bySlot.length * 2);
            handleBySlot = Arrays.copyOf(handleBySlot, bySlot.length);
        }
        WheelTimeout[] table = bySlot;
        int i = nextSlot;
        for (;;) {
            if (i >= table.length) {
                i = 1;
            }
            if (table[i] == null) {
                return i;
            }
            i++;
        }
    }

    /** Frees the slot of {@code t}, which the engine no longer holds. */
    private void release(WheelTimeout t) {
        bySlot[t.slot()] = null;
        slotsUsed--;
    }

    private void queueAdd(WheelTimeout a, int slot) {
        if (opWords + Native.OP_MAX_WORDS > ops.length || opCount == opsMax) {
            flush();
        }
        int w = opWords;
        long head = (long) Native.ABSTIME << Native.OP_FLAGS_SHIFT;
        if (a instanceof SlackOrPeriodicTimeout p) {
            if (p.period != 0) {
                ops[w] = Native.OP_ADD_PERIODIC
                         | (long) (Native.ABSTIME | p.mode) << Native.OP_FLAGS_SHIFT;
                ops[w + 1] = p.deadline;
                ops[w + 2] = p.period;
                ops[w + 3] = p.slack;
                opWords = w + 4;
            } else {
                ops[w] = Native.OP_ADD_SLACK | head;
                ops[w + 1] = p.deadline;
                ops[w + 2] = p.slack;
                opWords = w + 3;
            }
        } else {
            ops[w] = Native.OP_ADD | head;
            ops[w + 1] = a.deadline;
            opWords = w + 2;
        }
        ops[w] |= (long) slot << Native.OP_COOKIE_SHIFT;
        opOwner[opCount++] = a;
    }

    /**
     * Queues the cancel of {@code t} if the engine still holds it: not if
     * its final record was read, its add failed, or it was never added.
     */
    private void queueCancel(WheelTimeout t) {
        int slot = t.slot();
        if (slot == 0 || bySlot[slot] != t) {
            return;
        }
        if (handleBySlot[slot] == 0) {
            // Its add is queued, not yet applied: apply it to learn its handle.
            flush();
            if (bySlot[slot] != t) {
                return;
            }
        }
        long handle = handleBySlot[slot];
        release(t);
        if (opWords + Native.OP_MAX_WORDS > ops.length || opCount == opsMax) {
            flush();
        }
        ops[opWords] = Native.OP_CANCEL;
        ops[opWords + 1] = handle;
        opWords += 2;
        opOwner[opCount++] = null;
    }

    /** Queues the operations written with the library and files the adds' handles. */
    private void flush() {
        int n = opCount;
        if (n == 0) {
            return;
        }
        int res = Native.apply(ctx, ops, opWords, results);
        if (res != n) {
            throw Native.error("apply", res < 0 ? res : -Native.EINVAL);
        }
        for (int i = 0; i < n; i++) {
            file(i);
        }
        opCount = 0;
        opWords = 0;
    }

    /** The outcome of operation {@code i}: an add's handle goes in the table. */
    private void file(int i) {
        WheelTimeout t = opOwner[i];
        long r = results[i];
        int err = (int) (r >>> 32);
        if (t == null) {
            if (r != 0) {
                WheelTimer.LOG.log(Level.ERROR, "wheeltimer_cancel: {0}", Native.strerror(err));
            }
            return;
        }
        opOwner[i] = null;
        if ((int) r == 0) {
            release(t);
            refuse(t, -err);
            return;
        }
        handleBySlot[t.slot()] = r;
    }

    /**
     * Runs one round: the {@code n} records of its first chunk in the
     * records array, then the next chunks, until the round is over.
     * Returns the records run.
     */
    private int runRound(int n) {
        int total = 0;
        inRound = true;
        try {
            while (n > 0) {
                dispatch(n);
                total += n;
                endChunk();
                n = Native.nextChunk(ctx, records);
            }
            total += dueCount - dueNext;
            runDue(Long.MAX_VALUE);
        } finally {
            inRound = false;
            endChunk();
        }
        return total;
    }

    /** The timer's afterChunk, if it has one. */
    private void endChunk() {
        Runnable r = timer.afterChunk;
        if (r != null) {
            r.run();
        }
    }

    /**
     * Runs the tasks of the first {@code n} records, in the order they
     * came, each after the adds taken due whose deadline is before its own.
     */
    private void dispatch(int n) {
        long[] r = records;
        for (int k = 0; k < n * Native.REC_WORDS; k += Native.REC_WORDS) {
            if (dueNext < dueCount) {
                runDue(r[k + Native.REC_DEADLINE]);
            }
            dispatchOne(r, k);
        }
    }

    /**
     * Runs the adds taken due whose deadline is before {@code before}, in
     * order; once all have run, empties the array (a burst's large one is
     * let go). The array does not change meanwhile: adds are taken due
     * only between rounds.
     */
    private void runDue(long before) {
        WheelTimeout[] d = due;
        int from = dueNext;
        // At most the array's length: the loop below need not test it for null.
        int end = Math.min(dueCount, d.length);
        if (before != Long.MAX_VALUE) {
            end = from;
            while (end < dueCount && d[end].deadline < before) {
                end++;
            }
        }
        // Counted as fired and run when taken to run, as the engine counts
        // a round's records when it reaps them; one cancelled meanwhile is
        // counted back.
        firedAtOnce += end - from;
        tasksRun += end - from;
        // A counted loop over locals that keeps as little as it can across
        // the tasks' calls: a slot is emptied as its task runs, and dueNext
        // catches up after it.
        for (int i = from; i < end; i++) {
            WheelTimeout t = d[i];
            d[i] = null;
            if (t.expireUntaken()) {
                t.expiring();
                handOver.ended();
                runTask(t);
            } else {
                // Cancelled since it was drained (its cancel pushed nothing).
                firedAtOnce--;
                tasksRun--;
                cancelledAtOnce++;
            }
        }
        dueNext = end;
        if (end == dueCount) {
            dueNext = 0;
            dueCount = 0;
            if (due.length > DUE_KEPT * 64) {
                due = new WheelTimeout[DUE_KEPT];
            }
        }
    }

    /** Gives {@code action} each add taken due that has yet to run, skipping the slots runDue() emptied. */
    private void forEachDueLeft(Consumer<WheelTimeout> action) {
        for (int i = dueNext; i < dueCount; i++) {
            if (due[i] != null) {
                action.accept(due[i]);
            }
        }
    }

    /** What the callers' holds released that a failed round did not give. */
    private void forEachReleasedLeft(Consumer<WheelTimeout> action) {
        for (int i = releasedNext; i < releasedCount; i++) {
            action.accept(released[i]);
        }
    }

    /** Runs the task of the record at {@code r[k]}. */
    private void dispatchOne(long[] r, int k) {
        long handle = r[k + Native.REC_HANDLE];
        long flagsRes = r[k + Native.REC_FLAGS_RES];
        int slot = (int) r[k + Native.REC_COOKIE];
        WheelTimeout t = slot > 0 && slot < bySlot.length ? bySlot[slot] : null;
        if (t == null || handleBySlot[slot] != handle) {
            WheelTimer.LOG.log(Level.ERROR, "a wheeltimer record for no timeout (handle {0})",
                               Long.toUnsignedString(handle, 16));
            return;
        }
        int flags = (int) flagsRes;
        if ((flags & (Native.EV_ADD | Native.EV_MODIFY | Native.EV_CANCEL)) != 0) {
            // Only a failed add can come: this binding neither modifies nor asks for NOTIFY.
            release(t);
            refuse(t, (int) (flagsRes >> 32));
            return;
        }
        fired++;
        if (!(t instanceof SlackOrPeriodicTimeout p) || p.period == 0) {
            release(t);
            if (t.expire()) {
                // Uncounted before it runs, as HashedWheelTimer does.
                t.expiring();
                handOver.ended();
                run(t);
            }
            return;
        }
        boolean last = (flags & Native.EV_FINAL) != 0;
        if (!p.startRun(r[k + Native.REC_OVERRUNS])) {
            // Cancelled since: stop the engine re-arming it, now. Its
            // cancel()'s push finds it gone.
            if (!last) {
                queueCancel(p);
                flush();
            } else {
                release(t);
            }
            return;
        }
        if (last) {
            release(t);
        }
        run(p);
        if (p.endRunning(last) && last) {
            handOver.ended();
        }
    }

    private void run(WheelTimeout t) {
        tasksRun++;
        runTask(t);
    }

    /** Runs the task of {@code t}, counted as run; what it throws is counted and logged. */
    private void runTask(WheelTimeout t) {
        try {
            t.task().run(t);
        } catch (Throwable e) {
            taskFailures++;
            WheelTimer.LOG.log(Level.WARNING,
                    "An exception was thrown by " + TimerTask.class.getSimpleName() + ".", e);
        }
    }

    /** The engine would not take {@code t}: it is cancelled by the timer. */
    private void refuse(WheelTimeout t, int err) {
        if (t.refuse()) {
            handOver.ended();
            refused++;
            WheelTimer.LOG.log(Level.WARNING, "the wheeltimer engine refused a timeout ({0}): "
                               + "it is cancelled: {1}", Native.strerror(err), t);
        }
    }

    /** On a virtual clock: advance, then run everything due, until nothing more is. */
    long advance(long nanos) {
        handOver(false);
        int res = Native.advance(ctx, nanos, 0, scratch);
        if (res < 0) {
            throw Native.error("wheeltimer_advance", res);
        }
        timer.virtualNow = scratch[0];
        long before = fired;
        int ran;
        int handed;
        do {
            int n = Native.reapRound(ctx, records);
            if (n < 0) {
                throw Native.error("wheeltimer_reap", n);
            }
            ran = runRound(n);
            handed = handOver(false);
            // A virtual clock's engine finds what the tasks added, due by
            // now, at its next advance: make it one of 0 ns.
            if (handed > 0) {
                res = Native.advance(ctx, 0, 0, scratch);
                if (res < 0) {
                    throw Native.error("wheeltimer_advance", res);
                }
            }
        } while (ran > 0 || handed > 0);
        return fired - before;
    }

    /**
     * Lets go of every timeout cancelled so far: called from outside a task,
     * it hands what is pushed to the engine (the cancels of the timeouts it
     * has) and submits it; and it drops the cancelled far adds it holds.
     * From a task (a round is being run, when nothing may be queued), only
     * the latter.
     */
    void purge() {
        if (!inRound) {
            handOver(false);
            int res = Native.submit(ctx);
            if (res < 0) {
                throw Native.error("wheeltimer_submit", res);
            }
        }
        compactFarHolds();
    }

    /** Drops the cancelled timeouts of every far hold: the worker's own and its callers'. */
    private void compactFarHolds() {
        farHold.compact(dropCancelled);
        handOver.compactFar();
    }

    /**
     * The counters, after a {@link #purge()}: the engine's include what was
     * pushed, unless called from a task, when they are as the round found
     * them.
     */
    WheelTimerStats stats() {
        purge();
        long[] s = new long[Native.STAT_WORDS];
        int res = Native.stats(ctx, s);
        if (res < 0) {
            throw Native.error("wheeltimer_stats", res);
        }
        // The far adds held count as the engine's: added, and live; those
        // the callers' holds dropped as added and cancelled.
        long held = farHold.size() + handOver.farSize(false);
        long dropped = handOver.farDropped();
        return new WheelTimerStats(timer.engine(), s[Native.STAT_RESOLUTION],
                                   s[Native.STAT_MAX_PENDING], s[Native.STAT_LIVE] + held,
                                   s[Native.STAT_ADDED] + addedAtOnce + dropped + held,
                                   s[Native.STAT_FIRED] + firedAtOnce,
                                   s[Native.STAT_CANCELLED] + cancelledAtOnce + dropped,
                                   s[Native.STAT_WITHDRAWN],
                                   s[Native.STAT_OVERRUNS], s[Native.STAT_TIMER_PROGRAMS],
                                   s[Native.STAT_SUBMITS], s[Native.STAT_SUBMITTED],
                                   s[Native.STAT_READS], timer.pendingTimeouts(), tasksRun,
                                   taskFailures, refused, wakeups);
    }

    int tid() {
        return tid;
    }

    /**
     * WheelScheduledExecutor's shutdown(): the timeouts the engine holds,
     * the far adds held (not cancelled), and those taken due that the
     * round has yet to run, the adds pushed but not yet taken first handed
     * to the engine. From a task (a round is
     * being run, when nothing may be queued), those the engine holds or the
     * round has yet to run, and the adds pushed or held back as they are:
     * one cancelled there is dropped when the next round takes it.
     */
    List<WheelTimeout> pending() {
        List<WheelTimeout> all = new ArrayList<>();
        if (!inRound) {
            handOver(false);
        } else {
            handOver.forEachPending(all::add);
        }
        forEachDueLeft(all::add);
        Consumer<WheelTimeout> ifPending = t -> {
            if (t.state() == WheelTimeout.ST_INIT) {
                all.add(t);
            }
        };
        farHold.forEach(ifPending);
        handOver.forEachFar(ifPending);
        forEachReleasedLeft(ifPending);
        for (WheelTimeout t : bySlot) {
            if (t != null) {
                all.add(t);
            }
        }
        return all;
    }

    /**
     * After the loop: cancel what is still pending and collect it for
     * stop(), fail the commands left, close the engine. Each timeout is
     * cancelled by the compare-and-set that cancel() makes, so one that a
     * caller cancels meanwhile is the caller's, not stop()'s.
     */
    private void shutdown() {
        // The adds never handed over: held back, or pushed since; and
        // those taken due that a failed round did not run.
        handOver.forEachPending(this::stopCancel);
        forEachDueLeft(this::stopCancel);
        farHold.forEach(this::stopCancel);
        farHold.clear();
        handOver.closeFar(this::stopCancel);
        forEachReleasedLeft(this::stopCancel);
        for (int i = 0; i < bySlot.length; i++) {
            WheelTimeout t = bySlot[i];
            if (t != null) {
                stopCancel(t);
                bySlot[i] = null;
            }
        }
        FutureTask<?> f;
        while ((f = handOver.nextCommand()) != null) {
            f.cancel(false);
        }
        timer.closeNative();
    }

    /** Cancels {@code t} for stop(), unless it ran, is running or was cancelled. */
    private void stopCancel(WheelTimeout t) {
        if (t.cancelOnStop()) {
            handOver.ended();
            unprocessed.add(t);
        }
    }

    Set<Timeout> unprocessed() {
        return Collections.unmodifiableSet(unprocessed);
    }
}
