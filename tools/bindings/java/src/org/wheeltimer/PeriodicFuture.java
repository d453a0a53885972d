// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * PeriodicFuture.java - a periodic task of a WheelScheduledExecutor: fixed
 * rate on the engine's own FIXED_RATE timeout, fixed delay re-armed after
 * each run
 */
package org.wheeltimer;

import io.netty.util.Timeout;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A periodic task, with {@code ScheduledThreadPoolExecutor}'s semantics:
 * runs never overlap; the run that throws is the last (the future fails
 * with its exception); a cancel stops the runs, one under way finishing.
 *
 * <h2>Fixed rate</h2>
 *
 * Run k is due at {@code first + k * period}, and no period is skipped: a
 * run that starts late, because the one before took longer than the period
 * or the pool was busy, is followed at once by the runs it owes, back to
 * back, until the task is on time again. The engine's FIXED_RATE timeout
 * keeps the deadlines, without a call per period; each of its firings owes
 * one run plus the periods it reports as overrun (those that passed while
 * its record waited). {@code owed} counts the runs due and not yet
 * finished: the firing that raises it from 0 hands the future to the pool,
 * and each run that leaves it above 0 hands it over again, so that one run
 * at a time is queued or running.
 *
 * <h2>Fixed delay</h2>
 *
 * Each run is due {@code delay} after the end of the one before. The
 * engine's FIXED_DELAY re-arms when its record is read, which is before
 * the run (on the pool) starts, let alone ends, so it cannot serve: the
 * run, once ended, arms a new one-shot timeout.
 */
final class PeriodicFuture extends WheelScheduledFuture<Void> {
    private static final VarHandle OWED;
    private static final VarHandle TIMEOUT;
    private static final VarHandle TIME;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            OWED = l.findVarHandle(PeriodicFuture.class, "owed", long.class);
            TIMEOUT = l.findVarHandle(PeriodicFuture.class, "timeout", WheelTimeout.class);
            TIME = l.findVarHandle(PeriodicFuture.class, "time", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Positive: fixed rate; negative: fixed delay (as ScheduledThreadPoolExecutor's). */
    private final long period;
    /** Fixed rate: runs due and not yet finished. */
    @SuppressWarnings("unused")
    private volatile long owed;
    /** A run is under way (shutdown() cancels no periodic task mid-run). */
    private volatile boolean running;
    /**
     * The timer's timeout that hands this over, or null: none yet, or done.
     * A periodic future is not its own timeout (its one-shot part is never
     * given to the timer): the engine's FIXED_RATE timeout, or one one-shot
     * timeout per fixed-delay run.
     */
    @SuppressWarnings("unused")
    private volatile WheelTimeout timeout;

    /**
     * When the next run is due, in ns on the timer's clock. Written with
     * release, read with acquire (TIME): any thread may call getDelay().
     */
    @SuppressWarnings("unused")
    private long time;

    PeriodicFuture(WheelScheduledExecutor executor, Runnable task, long time, long period) {
        super(executor, task, time);
        this.period = period;
        this.time = time;
    }

    @Override
    long time() {
        return (long) TIME.getAcquire(this);
    }

    private void setTime(long t) {
        TIME.setRelease(this, t);
    }

    /**
     * The timeout of this future is {@code t}, which the timer counts; if
     * the future was cancelled meanwhile, so is {@code t} (whichever of
     * this and done() comes second sees the other: both write, then read,
     * volatile fields).
     */
    void armed(WheelTimeout t) {
        executor.periodicTimeouts(1);
        timeout = t;
        if (isDone()) {
            cancelArmed(t);
            TIMEOUT.setRelease(this, null);
            // Cancelled during the run that armed it: finished() counted it still.
            executor.mayTerminate();
        }
    }

    /** Never its own timeout's cancel: the timer never had that one. */
    @Override
    void cancelTimeout() {
        WheelTimeout t = timeout;
        if (t != null) {
            // Only to let the timeout go: no ordering needed.
            TIMEOUT.setRelease(this, null);
            cancelArmed(t);
        }
    }

    /** Cancels {@code t}: the timer no longer counts it, if it did until now. */
    private void cancelArmed(WheelTimeout t) {
        if (t.cancel()) {
            executor.periodicTimeouts(-1);
        }
    }

    boolean isFixedRate() {
        return period > 0;
    }

    /** The period (fixed rate) or the delay (fixed delay), in ns. */
    long periodNanos() {
        return Math.abs(period);
    }

    @Override
    public boolean isPeriodic() {
        return true;
    }

    @Override
    boolean isRunning() {
        return running;
    }

    @Override
    boolean isIdle() {
        return !running && owed == 0;
    }

    /** The timer's worker, at each firing. */
    @Override
    public void run(Timeout t) {
        if (period < 0) {
            // A fixed delay's one-shot timeout: the timer no longer counts it.
            executor.periodicTimeouts(-1);
        }
        if (period > 0) {
            long due = 1 + ((WheelTimeout) t).lastOverruns();
            if ((long) OWED.getAndAdd(this, due) != 0) {
                // A run is queued or under way: it hands the next over.
                return;
            }
        }
        executor.handOver(this);
    }

    /** The pool's: one run, then the next hand-over or the re-arm. */
    @Override
    public void run() {
        if (!executor.canRun(this)) {
            cancel(false);
            return;
        }
        running = true;
        boolean again;
        try {
            again = runAndReset();
        } finally {
            running = false;
        }
        // False: the task threw (the future failed with it) or was cancelled.
        if (!again) {
            return;
        }
        if (!executor.canRun(this)) {
            cancel(false);
            return;
        }
        if (period > 0) {
            setTime(saturatedAdd(time(), period));
            // Back in the wheel before the count of owed runs says so: a
            // firing that then finds none owed hands it over again.
            executor.backInWheel(this);
            if ((long) OWED.getAndAdd(this, -1L) > 1) {
                executor.handOver(this);
            }
        } else {
            rearm();
        }
    }

    /**
     * Fixed rate, first due at once: its first run is owed from the start
     * (the executor hands it over itself, and the timer's first firing is a
     * period later). Before the future is seen by another thread.
     */
    void oweFirstRun() {
        OWED.set(this, 1L);
    }

    /** Fixed delay: the next run, {@code -period} from now. */
    private void rearm() {
        long delay = -period;
        // Before the timeout exists: getDelay() never says more than the
        // truth, and its firing finds the future back in the wheel.
        setTime(saturatedAdd(executor.nanoTime(), delay));
        executor.backInWheel(this);
        WheelTimeout t;
        try {
            t = executor.timer().newTimeout(this, delay, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // The engine is full (maxPendingTimeouts): the task cannot go on.
            fail(e);
            return;
        } catch (IllegalStateException e) {
            // The timer has stopped: the executor is stopping.
            cancel(false);
            return;
        }
        armed(t);
        // A shutdown() that came meanwhile may have missed the new timeout.
        if (!executor.canRun(this)) {
            cancel(false);
        }
    }

    static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
    }
}
