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
 * stopped} first, which returns it unprocessed). A periodic task starts no
 * run after {@code cancel()} has returned {@code true}; a run already under
 * way when it is called finishes. The engine's record of a timeout that
 * fired but was not yet read is withdrawn by the cancel, never delivered.
 *
 * <p>Netty's {@code HashedWheelTimer} 4.1.48 happens to decide the same way
 * inside (a compare-and-set on its timeout), but its {@code Timeout}
 * contract does not say so, and a {@code true} from its {@code cancel()}
 * only means that the timeout is removed at the worker's next tick. Here it
 * is the contract, and the engine's resources are released at the worker's
 * next wake-up (which the cancel does not force: see {@link WheelTimer}).
 */
public final class WheelTimeout implements Timeout {
    /* The states; a periodic timeout goes INIT -> RUNNING -> INIT for each run. */
    static final int ST_INIT = 0;
    static final int ST_RUNNING = 1;
    static final int ST_CANCELLED = 2;
    static final int ST_EXPIRED = 3;

    private static final VarHandle STATE;
    private static final VarHandle CLAIMED;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            STATE = l.findVarHandle(WheelTimeout.class, "state", int.class);
            CLAIMED = l.findVarHandle(WheelTimeout.class, "claimed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final WheelTimer timer;
    private final TimerTask task;
    /** The first deadline, absolute in ns on the timer's clock. */
    final long deadline;
    /** The period in ns, 0 for a one-shot timeout. */
    final long period;
    /** The slack in ns. */
    final long slack;
    /** 0, {@link Native#FIXED_RATE} or {@link Native#FIXED_DELAY}. */
    final int mode;

    private volatile int state;
    /** Set by whoever owns this timeout once the timer is stopped (see WheelTimer). */
    @SuppressWarnings("unused")
    private volatile boolean claimed;

    /* Links of the timer's two hand-over stacks, written before publication. */
    WheelTimeout nextAdd;
    WheelTimeout nextCancel;

    /* The worker's alone: the library's handle (0: none) and the slot (the cookie). */
    long handle;
    int slot = -1;

    /* Runs and overruns of a periodic timeout; the worker writes them. */
    private volatile long runs;
    private volatile long overruns;
    private volatile long lastOverruns;

    WheelTimeout(WheelTimer timer, TimerTask task, long deadline, long period,
                 long slack, int mode) {
        this.timer = timer;
        this.task = task;
        this.deadline = deadline;
        this.period = period;
        this.slack = slack;
        this.mode = mode;
    }

    @Override
    public WheelTimer timer() {
        return timer;
    }

    @Override
    public TimerTask task() {
        return task;
    }

    /**
     * {@code true} once a one-shot task has been handed to the worker to run
     * (it may still be running), or once a periodic timeout has ended by
     * itself; never for a cancelled one.
     */
    @Override
    public boolean isExpired() {
        return state == ST_EXPIRED;
    }

    @Override
    public boolean isCancelled() {
        return state == ST_CANCELLED;
    }

    /**
     * Cancels the task. Returns {@code true} if this call cancelled it: a
     * one-shot task will then never run, a periodic one will start no more
     * runs. Returns {@code false} if the task was already handed to the
     * worker (a one-shot one runs, or has run) or already cancelled.
     * Never blocks and makes no system call.
     */
    @Override
    public boolean cancel() {
        for (;;) {
            int s = state;
            if (s != ST_INIT && s != ST_RUNNING) {
                return false;
            }
            if (STATE.compareAndSet(this, s, ST_CANCELLED)) {
                timer.cancelled(this);
                return true;
            }
        }
    }

    /** Whether this timeout repeats (FIXED_RATE or FIXED_DELAY). */
    public boolean isPeriodic() {
        return period != 0;
    }

    /** How many times the task has started. */
    public long runs() {
        return runs;
    }

    /**
     * FIXED_RATE: the periods that passed without a run, because the worker
     * was late or a run took longer than the period (they are skipped, not
     * made up for). 0 for other timeouts.
     */
    public long overruns() {
        return overruns;
    }

    /**
     * FIXED_RATE: the periods skipped after the deadline of the latest run,
     * because that run was collected late: its task may read this to know
     * how many beats it missed. 0 for other timeouts.
     */
    public long lastOverruns() {
        return lastOverruns;
    }

    /** The first deadline, in ns on the timer's clock (see {@link WheelTimer#nanoTime()}). */
    public long deadlineNanos() {
        return deadline;
    }

    /* The worker's transitions. */

    /** One-shot: INIT -> EXPIRED. True if the task is to run now. */
    boolean expire() {
        return STATE.compareAndSet(this, ST_INIT, ST_EXPIRED);
    }

    /** Periodic: INIT -> RUNNING, counting the run. True if the task is to run now. */
    boolean startRun(long newOverruns) {
        if (!STATE.compareAndSet(this, ST_INIT, ST_RUNNING)) {
            return false;
        }
        runs = runs + 1;
        lastOverruns = newOverruns;
        overruns = overruns + newOverruns;
        return true;
    }

    /**
     * Periodic, after a run: RUNNING -> INIT, or EXPIRED if it was the last
     * one. False if it was cancelled during the run.
     */
    boolean endRun(boolean last) {
        return STATE.compareAndSet(this, ST_RUNNING, last ? ST_EXPIRED : ST_INIT);
    }

    /**
     * The timer stops: INIT -> CANCELLED, as {@link #cancel()} but without
     * telling the worker, which is ending. True if it was pending.
     */
    boolean cancelOnStop() {
        return STATE.compareAndSet(this, ST_INIT, ST_CANCELLED);
    }

    /** The engine refused it: INIT -> CANCELLED. True if it was not cancelled already. */
    boolean refuse() {
        return STATE.compareAndSet(this, ST_INIT, ST_CANCELLED);
    }

    int state() {
        return state;
    }

    /** Once the timer is stopped: true for the one caller that gets this timeout. */
    boolean claim() {
        return CLAIMED.compareAndSet(this, false, true);
    }

    @Override
    public String toString() {
        long remaining = deadline - timer.nanoTime();
        StringBuilder b = new StringBuilder(96).append("WheelTimeout(deadline: ");
        if (remaining > 0) {
            b.append(remaining).append(" ns later");
        } else if (remaining < 0) {
            b.append(-remaining).append(" ns ago");
        } else {
            b.append("now");
        }
        if (period != 0) {
            b.append(mode == Native.FIXED_RATE ? ", fixed rate " : ", fixed delay ")
                    .append(period).append(" ns, runs: ").append(runs);
        }
        if (isCancelled()) {
            b.append(", cancelled");
        } else if (isExpired()) {
            b.append(", expired");
        }
        return b.append(", task: ").append(task).append(')').toString();
    }
}
