// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * WheelTimeout.java - one timeout of a WheelTimer: its state machine,
 * which makes cancel() exact
 */
package org.wheeltimer;

import io.netty.util.Timeout;
import io.netty.util.TimerTask;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * A {@link Timeout} of a {@link WheelTimer}, one-shot or periodic.
 *
 * <h2>Exact cancel</h2>
 *
 * Whether a task runs or is cancelled is decided by one compare-and-set on
 * this object's state, made by the timer's worker before it runs the task
 * and by {@link #cancel()}: exactly one of them wins. So a one-shot task
 * runs once, or {@code cancel()} returned {@code true}, never both and
 * never neither (unless the timer was {@linkplain WheelTimer#stop()
 * stopped} first, which cancels it by the same compare-and-set and returns
 * it). A periodic task starts no run after {@code cancel()} has returned
 * {@code true}; a run already under way when it is called finishes. The
 * engine's record of a timeout that fired but was not yet read is
 * withdrawn by the cancel, never delivered.
 *
 * <p>Netty's {@code HashedWheelTimer} 4.1.48 happens to decide the same way
 * inside (a compare-and-set on its timeout), but its {@code Timeout}
 * contract does not say so, and a {@code true} from its {@code cancel()}
 * only means that the timeout is removed at the worker's next tick. Here it
 * is the contract, and the engine's resources are released at the worker's
 * next wake-up (which the cancel does not force: see {@link WheelTimer}).
 *
 * <h2>Size</h2>
 *
 * This class holds what every timeout needs: its deadline and state (the
 * engine's handle, once it has one, is in the worker's table). A one-shot
 * timeout without slack, what {@code newTimeout()} makes, adds its lane
 * and task: 32 bytes with compressed references (Netty's {@code
 * HashedWheelTimeout}: 56). Slack, a period and the counts
 * of a periodic timeout live in a subclass that only such timeouts pay
 * for; a task of {@link WheelScheduledExecutor} is its own timeout, and
 * finds its timer through its executor.
 */
public abstract sealed class WheelTimeout implements Timeout permits TaskTimeout, WheelScheduledFuture {
    /*
     * The state: a phase in the low bits, TAKEN, and the worker's slot. A
     * periodic timeout goes INIT -> RUNNING -> INIT for each run. TAKEN is
     * set once, by the worker, when it hands the timeout to the engine,
     * with the timeout's slot in the worker's table in the bits above
     * (SLOT_SHIFT), which no transition changes after; from then on a
     * cancel() must tell the worker (it pushes the timeout again), before
     * it need not (the worker drops a cancelled timeout it drains).
     */
    static final int ST_INIT = 0;
    static final int ST_RUNNING = 1;
    static final int ST_CANCELLED = 2;
    static final int ST_EXPIRED = 3;
    static final int PHASE = 3;
    static final int TAKEN = 4;
    static final int SLOT_SHIFT = 3;
    /** The most slots the state has room for: above the engine's limit of live timeouts (2^24). */
    static final int MAX_SLOT = (1 << (32 - SLOT_SHIFT)) - 1;

    /* A field updater, not a VarHandle: a third of the cost before the JIT has compiled it. */
    private static final AtomicIntegerFieldUpdater<WheelTimeout> STATE =
            AtomicIntegerFieldUpdater.newUpdater(WheelTimeout.class, "state");
    /*
     * A VarHandle, which sets a plain field: the worker reads the deadline
     * on every pass of its loops, and it changes at most once, set by
     * resolve() before the worker reads it (or, by another thread, read
     * again by the compare-and-set that loses).
     */
    private static final VarHandle DEADLINE;

    static {
        try {
            DEADLINE = MethodHandles.lookup()
                    .findVarHandle(WheelTimeout.class, "deadline", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The first deadline, absolute in ns on the timer's clock; or, below 0,
     * minus the delay of a newTimeout() made without reading the clock,
     * until {@link #resolve} sets it (see {@link WheelTimer#newTimeout}).
     */
    long deadline;
    private volatile int state;

    WheelTimeout(long deadline) {
        this.deadline = deadline;
    }

    @Override
    public abstract WheelTimer timer();

    @Override
    public abstract TimerTask task();

    /**
     * {@code true} once a one-shot task has been handed to the worker to run
     * (it may still be running), or once a periodic timeout has ended by
     * itself; never for a cancelled one.
     */
    @Override
    public boolean isExpired() {
        return (state & PHASE) == ST_EXPIRED;
    }

    @Override
    public boolean isCancelled() {
        return (state & PHASE) == ST_CANCELLED;
    }

    /**
     * Cancels the task. Returns {@code true} if this call cancelled it: a
     * one-shot task will then never run, a periodic one will start no more
     * runs. Returns {@code false} if the task was already handed to the
     * worker (a one-shot one runs, or has run) or already cancelled.
     * Never blocks and makes no system call.
     */
    @Override
    public abstract boolean cancel();

    /**
     * {@link #cancel()}, told to the hand-over of this timeout's timer: each
     * subclass passes its own, so that a cancel makes no virtual call, and
     * the lane that counts it, or null for the caller's.
     */
    final boolean cancelVia(HandOver handOver, Lane lane) {
        for (;;) {
            int s = state;
            int phase = s & PHASE;
            if (phase != ST_INIT && phase != ST_RUNNING) {
                return false;
            }
            if (STATE.compareAndSet(this, s, (s & ~PHASE) | ST_CANCELLED)) {
                handOver.cancelled(this, (s & TAKEN) != 0, lane);
                return true;
            }
        }
    }

    /** Whether this timeout repeats (FIXED_RATE or FIXED_DELAY). */
    public boolean isPeriodic() {
        return false;
    }

    /** How many times the task has started (periodic timeouts; 0 for others). */
    public long runs() {
        return 0;
    }

    /**
     * FIXED_RATE: the periods that passed without a run, because the worker
     * was late or a run took longer than the period (they are skipped, not
     * made up for). 0 for other timeouts.
     */
    public long overruns() {
        return 0;
    }

    /**
     * FIXED_RATE: the periods skipped after the deadline of the latest run,
     * because that run was collected late: its task may read this to know
     * how many beats it missed. 0 for other timeouts.
     */
    public long lastOverruns() {
        return 0;
    }

    /**
     * The first deadline, in ns on the timer's clock (see {@link
     * WheelTimer#nanoTime()}). A timeout made by {@link
     * WheelTimer#newTimeout(TimerTask, long, java.util.concurrent.TimeUnit)}
     * due a second or more ahead counts its delay
     * from when the worker takes it, or from the first call of this method,
     * whichever comes first: never before the newTimeout() call.
     */
    public long deadlineNanos() {
        long d = deadline;
        return d >= 0 ? d : resolve(timer().nanoTime());
    }

    /**
     * Sets the deadline of a timeout whose deadline is still its delay to
     * {@code now} plus that delay, {@code now} a reading of the clock made
     * after the timeout was pushed; returns the deadline, set here or before
     * (the first to set it wins).
     */
    final long resolve(long now) {
        long d = deadline;
        if (d >= 0) {
            return d;
        }
        long at = timer().deadlineAfter(now, -d);
        long was = (long) DEADLINE.compareAndExchange(this, d, at);
        return was == d ? at : was;
    }

    /* The worker's transitions. */

    int state() {
        return state;
    }

    /** Its slot in the worker's table, 0 until the worker took it. */
    final int slot() {
        return state >>> SLOT_SHIFT;
    }

    /**
     * INIT -> INIT | TAKEN, in {@code slot} (1 .. {@link #MAX_SLOT}): the
     * worker hands it to the engine. False if it was cancelled.
     */
    final boolean take(int slot) {
        return STATE.compareAndSet(this, ST_INIT, ST_INIT | TAKEN | slot << SLOT_SHIFT);
    }

    /** Taken, from phase {@code from} to {@code to}, its slot kept. False if it was not in {@code from}. */
    private boolean move(int from, int to) {
        int s = state;
        return (s & (PHASE | TAKEN)) == (from | TAKEN) && STATE.compareAndSet(this, s, (s & ~PHASE) | to);
    }

    /** One-shot: INIT -> EXPIRED. True if the task is to run now. */
    final boolean expire() {
        return move(ST_INIT, ST_EXPIRED);
    }

    /**
     * One-shot, due when the worker drained it and so never taken: INIT ->
     * EXPIRED. True if the task is to run now.
     */
    final boolean expireUntaken() {
        return STATE.compareAndSet(this, ST_INIT, ST_EXPIRED);
    }

    /** The engine refused it: INIT -> CANCELLED. True if it was not cancelled already. */
    final boolean refuse() {
        return move(ST_INIT, ST_CANCELLED);
    }

    /**
     * The timer stops, or refuses it to a newTimeout() that raced stop():
     * INIT -> CANCELLED, as {@link #cancel()} but without telling the worker,
     * which is ending. True if it was pending (and not running).
     */
    final boolean cancelOnStop() {
        int s = state;
        return (s & PHASE) == ST_INIT && STATE.compareAndSet(this, s, (s & ~PHASE) | ST_CANCELLED);
    }

    /** Periodic: INIT -> RUNNING. True if the task is to run now. */
    final boolean startRunning() {
        return move(ST_INIT, ST_RUNNING);
    }

    /**
     * Periodic, after a run: RUNNING -> INIT, or EXPIRED if it was the last
     * one. False if it was cancelled during the run.
     */
    final boolean endRunning(boolean last) {
        return move(ST_RUNNING, last ? ST_EXPIRED : ST_INIT);
    }

    /**
     * The worker's, as a one-shot timeout expires, just before the timer
     * stops counting it as pending and runs its task.
     */
    void expiring() {
    }

    /** What describes the timeout beyond its deadline, for {@link #toString()}. */
    void describe(StringBuilder b) {
    }

    @Override
    public String toString() {
        long remaining = deadlineNanos() - timer().nanoTime();
        StringBuilder b = new StringBuilder(96).append("WheelTimeout(deadline: ");
        if (remaining > 0) {
            b.append(remaining).append(" ns later");
        } else if (remaining < 0) {
            b.append(-remaining).append(" ns ago");
        } else {
            b.append("now");
        }
        describe(b);
        if (isCancelled()) {
            b.append(", cancelled");
        } else if (isExpired()) {
            b.append(", expired");
        }
        return b.append(", task: ").append(task()).append(')').toString();
    }
}
