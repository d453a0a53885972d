// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * WheelScheduledFuture.java - a task of a WheelScheduledExecutor: the
 * future its caller holds, the timer's timeout that hands it over, and the
 * run, in one object
 */
package org.wheeltimer;

import io.netty.util.Timeout;
import io.netty.util.TimerTask;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Map;
import java.util.Objects;
import java.util.WeakHashMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * A one-shot task of a {@link WheelScheduledExecutor}, and the base of the
 * periodic ones ({@link PeriodicFuture}). One object is at once the
 * {@link java.util.concurrent.ScheduledFuture} the caller holds, the
 * timer's {@link WheelTimeout} (its own {@link TimerTask}, which the
 * timer's worker runs only to hand the future to the pool) and the
 * {@link Runnable} the pool runs: a schedule allocates this and nothing
 * else, and a cancel reaches the timeout without a lookup.
 *
 * <p>The future's side is {@link java.util.concurrent.FutureTask}'s, state
 * for state (its states, its waiters' stack, its interrupt handshake),
 * kept apart from the timeout's state: the timeout's says whether the
 * timer hands the task over (one compare-and-set against its cancel), the
 * future's whether the task runs and how it ended. {@link #done()}, called
 * once the future completes, fails or is cancelled, cancels the timeout
 * and leaves the executor's count of live tasks: nothing else holds a
 * cancelled task once the timer's worker has let go of it.
 *
 * <p>{@link #isCancelled()} and {@link #cancel()}, which {@link Timeout}
 * and {@link java.util.concurrent.Future} share or resemble, are the
 * future's: a caller that sees the timeout still cancels the future.
 */
non-sealed class WheelScheduledFuture<V> extends WheelTimeout
        implements RunnableScheduledFuture<V>, TimerTask {
    /* The future's states, FutureTask's: NEW -> COMPLETING -> NORMAL | EXCEPTIONAL, NEW -> CANCELLED, NEW -> INTERRUPTING -> INTERRUPTED. */
    private static final int NEW = 0;
    private static final int COMPLETING = 1;
    private static final int NORMAL = 2;
    private static final int EXCEPTIONAL = 3;
    private static final int CANCELLED = 4;
    private static final int INTERRUPTING = 5;
    private static final int INTERRUPTED = 6;

    /* The bits of flags. */
    /**
     * The timer is given this future as its timeout: done() must cancel it.
     * While it waits there, the timer's count of pending timeouts counts it
     * live (see WheelScheduledExecutor's liveTasks()).
     */
    static final int ARMED = 1;
    /**
     * Counted in the executor's own count of live tasks, until
     * {@link #unregister()}: a task with no delay or a periodic one from its
     * schedule, a delayed one from its hand-over ({@link #expiring()}).
     */
    static final int LIVE = 2;
    /**
     * Out of the wheel: handed to the pool (queued or running), or to a
     * caller's executor; counted apart, so that the executor's queue is
     * the live tasks that are not out, and those queued in its pool. Set
     * only while LIVE (or with it), cleared with it.
     */
    static final int OUT = 4;
    /** Cancelled by the executor's remove(): it leaves the pool's queue too, whatever the policy. */
    static final int REMOVING = 8;
    /**
     * Given as a {@link Runnable}: run as one, whatever else it implements.
     * Set at construction, never cleared. A bit, not a type test at each
     * schedule and run: a test against an interface the class does not
     * implement scans its interfaces every time (HotSpot caches only a
     * hit).
     */
    static final int GIVEN_RUNNABLE = 16;

    private static final VarHandle FSTATE;
    private static final VarHandle RUNNER;
    private static final VarHandle WAITERS;
    private static final VarHandle FLAGS;
    /**
     * The tie-breaks compareTo gave, to futures of one time and one
     * identity hash: next to never, so not worth a field in every future.
     */
    private static final Map<WheelScheduledFuture<?>, Long> TIES = new WeakHashMap<>();
    /**
     * The runner while cancelIfNotRunning() holds the slot: never started, so
     * that a cancel(true) racing it interrupts no thread.
     */
    private static final Thread REMOVER = new Thread(() -> { }, "wheelexec-remover");
    private static long lastTie;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            FSTATE = l.findVarHandle(WheelScheduledFuture.class, "fstate", int.class);
            RUNNER = l.findVarHandle(WheelScheduledFuture.class, "runner", Thread.class);
            WAITERS = l.findVarHandle(WheelScheduledFuture.class, "waiters", WaitNode.class);
            FLAGS = l.findVarHandle(WheelScheduledFuture.class, "flags", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final WheelScheduledExecutor executor;

    /* The future. */
    private volatile int fstate;
    /**
     * The task until the future is done: a {@link Runnable} if the flags
     * say {@link #GIVEN_RUNNABLE}, else a {@link Callable}. Then the result,
     * or the exception get() reports, or null (cancelled): one field for
     * both, as FutureTask lets go of its task once done.
     */
    private Object work;
    /** The thread running the task, null when none. */
    private volatile Thread runner;
    /** Threads waiting in get(). */
    private volatile WaitNode waiters;
    /** ARMED, LIVE, OUT, REMOVING and GIVEN_RUNNABLE. */
    @SuppressWarnings("unused")
    private volatile int flags;

    /** A task due at {@code time}, the deadline of its timeout (one-shot) or of its first run. */
    WheelScheduledFuture(WheelScheduledExecutor executor, Callable<V> callable, long time) {
        super(time);
        this.executor = executor;
        this.work = callable;
    }

    WheelScheduledFuture(WheelScheduledExecutor executor, Runnable runnable, long time) {
        super(time);
        this.executor = executor;
        this.work = runnable;
        // Plain: the future is published after it.
        FLAGS.set(this, GIVEN_RUNNABLE);
    }

    /** When the (next) run is due, in ns on the timer's clock: a one-shot task's deadline. */
    long time() {
        return deadline;
    }

    /**
     * To be given to the timer as its timeout ({@code timed}), which then
     * counts it live, or else counted live by the executor: before the
     * future is seen by another thread. Nothing can complete it before the
     * timer has it (neither its caller nor the pool has it yet, and
     * shutdown() and shutdownNow() find it only in the timer), so that
     * done() finds the timeout in the timer, to cancel, or expired.
     */
    final void register(boolean timed) {
        // Plain: the timer's push (or the pool's queue) publishes it.
        FLAGS.set(this, (int) FLAGS.get(this) | (timed ? ARMED : LIVE));
    }

    /** The flags, read once. */
    final int flags() {
        return flags;
    }

    /**
     * The timer's worker, as this timeout expires, before the timer stops
     * counting it: the executor counts it instead, live and out.
     */
    @Override
    final void expiring() {
        executor.expiring(this);
    }

    /** From the timer's count to the executor's: live and out, and returns the flags it had. */
    final int markHandedOver() {
        return (int) FLAGS.getAndBitwiseOr(this, LIVE | OUT);
    }

    /** No longer counted live, nor out; returns the flags it had (LIVE and OUT once only, REMOVING). */
    final int unregister() {
        return (int) FLAGS.getAndBitwiseAnd(this, ~(LIVE | OUT));
    }

    /**
     * The timer never took it (its schedule was refused), or gave it back
     * (shutdownNow()): no longer counted, and done() has no timeout to
     * cancel, nor is it in the wheel.
     */
    final int withdraw() {
        return (int) FLAGS.getAndBitwiseAnd(this, ~(LIVE | OUT | ARMED));
    }

    /** Handed over, out of the wheel: true if it was live and not out until now. */
    final boolean markOut() {
        for (;;) {
            int f = flags;
            if ((f & (LIVE | OUT)) != LIVE) {
                return false;
            }
            if (FLAGS.compareAndSet(this, f, f | OUT)) {
                return true;
            }
        }
    }

    /** Back in the wheel (a periodic task between runs): true if it was out until now. */
    final boolean clearOut() {
        for (;;) {
            int f = flags;
            if ((f & OUT) == 0) {
                return false;
            }
            if (FLAGS.compareAndSet(this, f, f & ~OUT)) {
                return true;
            }
        }
    }

    /** Cancelled by the executor's remove(). */
    final boolean isRemoved() {
        return (flags & REMOVING) != 0;
    }

    /**
     * Waiting in the wheel for its time, live: the timer's timeout or a
     * periodic task between runs, neither handed over, given back nor done.
     */
    final boolean isInWheel() {
        int f = flags;
        return (f & (ARMED | LIVE)) != 0 && (f & OUT) == 0 && fstate == NEW;
    }

    /**
     * Cancels it if no run has started (one-shot) or none is under way
     * (periodic), so that none starts: the remover holds the runner's slot
     * meanwhile, which a run must take first. What the executor's
     * {@code remove()} does.
     */
    final boolean cancelIfNotRunning() {
        if (fstate != NEW || !RUNNER.compareAndSet(this, null, REMOVER)) {
            return false;
        }
        try {
            FLAGS.getAndBitwiseOr(this, REMOVING);
            return cancel(false);
        } finally {
            runner = null;
        }
    }

    /** Its timeout is the timer's: done() cancels it. */
    void cancelTimeout() {
        if ((flags & ARMED) != 0) {
            cancelVia(executor.timer().handOver, null);
        }
    }

    /** The timeout's timer: the executor's. */
    @Override
    public WheelTimer timer() {
        return executor.timer();
    }

    /** The timeout's task is the future itself. */
    @Override
    public TimerTask task() {
        return this;
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
     * By time, then by identity hash, then by a number each of the two gets
     * when first needed (unique, a tie-break; the order of runs is the
     * engine's, by deadline, whatever this says). Against a future of another executor on the
     * same clock (every executor not on a virtual clock reads
     * CLOCK_MONOTONIC), by time as well; against any other {@link Delayed},
     * by {@code getDelay}.
     */
    @Override
    public int compareTo(Delayed other) {
        if (other == this) {
            return 0;
        }
        if (other instanceof WheelScheduledFuture<?> x && executor.sameClock(x.executor)) {
            int c = Long.compare(time(), x.time());
            if (c == 0) {
                c = Integer.compare(System.identityHashCode(this), System.identityHashCode(x));
            }
            if (c == 0) {
                c = Long.compare(tie(this), tie(x));
            }
            return c;
        }
        return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
    }

    private static long tie(WheelScheduledFuture<?> f) {
        synchronized (TIES) {
            return TIES.computeIfAbsent(f, k -> ++lastTie);
        }
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
        if (fstate != NEW || !RUNNER.compareAndSet(this, null, Thread.currentThread())) {
            return;
        }
        try {
            Object w = work;
            if (w != null && fstate == NEW) {
                V v;
                try {
                    v = call(w);
                } catch (Throwable e) {
                    setException(e);
                    return;
                }
                set(v);
            }
        } finally {
            // Non-null until the state is settled, so that no second run starts.
            runner = null;
            int s = fstate;
            if (s >= INTERRUPTING) {
                awaitInterrupt(s);
            }
        }
    }

    /**
     * A periodic run: runs the task without setting a result and leaves the
     * future NEW. Returns false if the task threw (the future failed with its
     * exception) or the future is done (cancelled).
     */
    final boolean runAndReset() {
        if (fstate != NEW || !RUNNER.compareAndSet(this, null, Thread.currentThread())) {
            return false;
        }
        boolean ran = false;
        int s = fstate;
        try {
            Object w = work;
            if (w != null && s == NEW) {
                try {
                    call(w);
                    ran = true;
                } catch (Throwable e) {
                    setException(e);
                }
            }
        } finally {
            runner = null;
            s = fstate;
            if (s >= INTERRUPTING) {
                awaitInterrupt(s);
            }
        }
        return ran && s == NEW;
    }

    @SuppressWarnings("unchecked")
    private V call(Object w) throws Exception {
        if (((int) FLAGS.get(this) & GIVEN_RUNNABLE) != 0) {
            ((Runnable) w).run();
            return null;
        }
        return ((Callable<V>) w).call();
    }

    /** A cancel(true) interrupts the runner: wait until it has, so that the interrupt stays in its run. */
    private void awaitInterrupt(int s) {
        if (s == INTERRUPTING) {
            while (fstate == INTERRUPTING) {
                Thread.yield();
            }
        }
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

    private void set(V v) {
        if (FSTATE.compareAndSet(this, NEW, COMPLETING)) {
            work = v;
            FSTATE.setRelease(this, NORMAL);
            finishCompletion();
        }
    }

    private void setException(Throwable e) {
        if (FSTATE.compareAndSet(this, NEW, COMPLETING)) {
            work = e;
            FSTATE.setRelease(this, EXCEPTIONAL);
            finishCompletion();
        }
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        if (!(fstate == NEW && FSTATE.compareAndSet(this, NEW,
                                                    mayInterruptIfRunning ? INTERRUPTING : CANCELLED))) {
            return false;
        }
        // Let go of the task: a run under way holds its own reference.
        work = null;
        try {
            if (mayInterruptIfRunning) {
                try {
                    Thread t = runner;
                    if (t != null) {
                        t.interrupt();
                    }
                } finally {
                    FSTATE.setRelease(this, INTERRUPTED);
                }
            }
        } finally {
            finishCompletion();
        }
        return true;
    }

    /** The timeout's cancel, as seen by a caller: the future's, {@code cancel(false)}. */
    @Override
    public boolean cancel() {
        return cancel(false);
    }

    /** The future's: cancelled by {@link #cancel(boolean)} (also for {@link Timeout}). */
    @Override
    public boolean isCancelled() {
        return fstate >= CANCELLED;
    }

    @Override
    public boolean isDone() {
        return fstate != NEW;
    }

    @Override
    public V get() throws InterruptedException, ExecutionException {
        int s = fstate;
        if (s <= COMPLETING) {
            s = awaitDone(false, 0L);
        }
        return report(s);
    }

    @Override
    public V get(long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        Objects.requireNonNull(unit, "unit");
        long nanos = unit.toNanos(timeout);
        int s = fstate;
        if (s <= COMPLETING && (s = awaitDone(true, nanos)) <= COMPLETING) {
            throw new TimeoutException();
        }
        return report(s);
    }

    @SuppressWarnings("unchecked")
    private V report(int s) throws ExecutionException {
        Object x = work;
        if (s == NORMAL) {
            return (V) x;
        }
        if (s >= CANCELLED) {
            throw new CancellationException();
        }
        throw new ExecutionException((Throwable) x);
    }

    /** Wakes the waiters and calls done(). */
    private void finishCompletion() {
        for (WaitNode q; (q = waiters) != null; ) {
            if (WAITERS.weakCompareAndSet(this, q, null)) {
                for (;;) {
                    Thread t = q.thread;
                    if (t != null) {
                        q.thread = null;
                        LockSupport.unpark(t);
                    }
                    WaitNode next = q.next;
                    if (next == null) {
                        break;
                    }
                    q.next = null;
                    q = next;
                }
                break;
            }
        }
        done();
    }

    /** Completed, failed or cancelled: release the timeout and leave the executor. */
    void done() {
        cancelTimeout();
        executor.finished(this);
    }

    /** Waits for the future to be done, or for {@code nanos} if {@code timed}; returns the state. */
    private int awaitDone(boolean timed, long nanos) throws InterruptedException {
        long startTime = 0L;
        WaitNode q = null;
        boolean queued = false;
        for (;;) {
            int s = fstate;
            if (s > COMPLETING) {
                if (q != null) {
                    q.thread = null;
                }
                return s;
            } else if (s == COMPLETING) {
                Thread.yield();
            } else if (Thread.interrupted()) {
                removeWaiter(q);
                throw new InterruptedException();
            } else if (q == null) {
                if (timed && nanos <= 0L) {
                    return s;
                }
                q = new WaitNode();
            } else if (!queued) {
                q.next = waiters;
                queued = WAITERS.weakCompareAndSet(this, q.next, q);
            } else if (timed) {
                long parkNanos;
                if (startTime == 0L) {
                    startTime = System.nanoTime();
                    if (startTime == 0L) {
                        startTime = 1L;
                    }
                    parkNanos = nanos;
                } else {
                    long elapsed = System.nanoTime() - startTime;
                    if (elapsed >= nanos) {
                        removeWaiter(q);
                        return fstate;
                    }
                    parkNanos = nanos - elapsed;
                }
                if (fstate < COMPLETING) {
                    LockSupport.parkNanos(this, parkNanos);
                }
            } else {
                LockSupport.park(this);
            }
        }
    }

    /** Unlinks a waiter that timed out or was interrupted, and any other gone. */
    private void removeWaiter(WaitNode node) {
        if (node == null) {
            return;
        }
        node.thread = null;
        retry:
        for (;;) {
            for (WaitNode pred = null, q = waiters, s; q != null; q = s) {
                s = q.next;
                if (q.thread != null) {
                    pred = q;
                } else if (pred != null) {
                    pred.next = s;
                    if (pred.thread == null) {
                        continue retry;
                    }
                } else if (!WAITERS.compareAndSet(this, q, s)) {
                    continue retry;
                }
            }
            break;
        }
    }

    private static final class WaitNode {
        volatile Thread thread = Thread.currentThread();
        volatile WaitNode next;
    }

    @Override
    public String toString() {
        String status;
        switch (fstate) {
        case NORMAL:
            status = "[Completed normally]";
            break;
        case EXCEPTIONAL:
            status = "[Completed exceptionally: " + work + "]";
            break;
        case CANCELLED:
        case INTERRUPTING:
        case INTERRUPTED:
            status = "[Cancelled]";
            break;
        case NEW:
            status = "[Not completed, task = " + work + "]";
            break;
        default:
            status = "[Not completed]";
        }
        return getClass().getSimpleName() + "@" + Integer.toHexString(hashCode()) + status;
    }
}
