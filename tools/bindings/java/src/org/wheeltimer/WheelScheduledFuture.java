// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * WheelScheduledFuture.java - a task of a WheelScheduledExecutor: the
 * future its caller holds, the timer task that hands it over, the run
 */
package org.wheeltimer;

import io.netty.util.Timeout;
import io.netty.util.TimerTask;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A one-shot task of a {@link WheelScheduledExecutor}, and the base of the
 * periodic ones ({@link PeriodicFuture}). It is at once the
 * {@link java.util.concurrent.ScheduledFuture} the caller holds (a
 * {@link FutureTask}, so that {@code get}, {@code cancel} and their
 * waiting are the JDK's own), the {@link TimerTask} of its timeout, which
 * the timer's worker runs only to hand the future to the pool, and the
 * {@link Runnable} the pool runs.
 *
 * <p>{@link #done()} (FutureTask's hook, called once the future completes,
 * fails or is cancelled) cancels the timeout and leaves the executor's
 * registry: a cancelled task leaves the engine and the executor at once.
 */
class WheelScheduledFuture<V> extends FutureTask<V> implements RunnableScheduledFuture<V>, TimerTask {
    private static final VarHandle TIME;
    private static final VarHandle TIMEOUT;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            TIME = l.findVarHandle(WheelScheduledFuture.class, "time", long.class);
            TIMEOUT = l.findVarHandle(WheelScheduledFuture.class, "timeout", WheelTimeout.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final WheelScheduledExecutor executor;
    /**
     * When the (next) run is due, in ns on the timer's clock: a one-shot
     * task's is its timeout's deadline ({@link #armed}); the engine's
     * deadline is never before it. Written with release, read with acquire
     * (TIME): any thread may call getDelay().
     */
    @SuppressWarnings("unused")
    private long time;
    /** The timeout that will hand this over, or null: none yet, or done. */
    @SuppressWarnings("unused")
    private volatile WheelTimeout timeout;

    /* The executor's registry (TaskRegistry), under its stripe's lock. */
    /** The registry's stripe, -1 when not in it. */
    int stripe = -1;
    /** Where in that stripe's array. */
    int index;
    /** The tie-break of compareTo: unique among the executor's registered futures. */
    long seq;

    WheelScheduledFuture(WheelScheduledExecutor executor, Callable<V> callable, long time) {
        super(callable);
        this.executor = executor;
        this.time = time;
    }

    WheelScheduledFuture(WheelScheduledExecutor executor, Runnable runnable, V result, long time) {
        super(runnable, result);
        this.executor = executor;
        this.time = time;
    }

    final long time() {
        return (long) TIME.getAcquire(this);
    }

    final void setTime(long t) {
        TIME.setRelease(this, t);
    }

    /**
     * The timeout of this future is {@code t}; if the future was cancelled
     * meanwhile, so is {@code t} (whichever of this and {@link #done()} comes
     * second sees the other: both write, then read, volatile fields).
     */
    final void armed(WheelTimeout t) {
        timeout = t;
        if (isDone()) {
            t.cancel();
            TIMEOUT.setRelease(this, null);
        }
    }

    @Override
    public boolean isPeriodic() {
        return false;
    }

    /** Whether a periodic run is under way (a one-shot task never says so). */
    boolean isRunning() {
        return false;
    }

    /** Whether this periodic future is only waiting for its timeout (one-shot: true). */
    boolean isIdle() {
        return true;
    }

    @Override
    public long getDelay(TimeUnit unit) {
        return unit.convert(time() - executor.nanoTime(), TimeUnit.NANOSECONDS);
    }

    /**
     * By time, then by the executor's sequence number (the order futures
     * were registered in each stripe, then the stripe). Against a future of
     * another executor on the same clock (every executor not on a virtual
     * clock reads CLOCK_MONOTONIC), by time as well; against any other
     * {@link Delayed}, by {@code getDelay}.
     */
    @Override
    public int compareTo(Delayed other) {
        if (other == this) {
            return 0;
        }
        if (other instanceof WheelScheduledFuture<?> x && executor.sameClock(x.executor)) {
            int c = Long.compare(time(), x.time());
            if (c == 0) {
                c = Long.compare(seq, x.seq);
            }
            if (c == 0) {
                c = Integer.compare(System.identityHashCode(this), System.identityHashCode(x));
            }
            return c;
        }
        return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
    }

    /** The timer's worker, at the deadline: hand this to the pool, nothing more. */
    @Override
    public void run(Timeout t) {
        executor.handOver(this);
    }

    /** The pool's: run the task, unless the executor's state forbids it now. */
    @Override
    public void run() {
        if (!executor.canRun(this)) {
            cancel(false);
            return;
        }
        super.run();
    }

    /** The pool would not take this: the executor is stopping, or the caller's executor refused. */
    void refused(RejectedExecutionException e) {
        if (executor.isStopping()) {
            cancel(false);
        } else {
            setException(e);
        }
    }

    /** Fails this future with {@code e} (a periodic one whose timeout could not be re-armed). */
    final void fail(Throwable e) {
        setException(e);
    }

    /** Completed, failed or cancelled: release the timeout and leave the executor. */
    @Override
    protected void done() {
        WheelTimeout t = timeout;
        if (t != null) {
            // Only to let the timeout go: no ordering needed.
            TIMEOUT.setRelease(this, null);
            t.cancel();
        }
        executor.finished(this);
    }
}
