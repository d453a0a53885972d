// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * WheelScheduledExecutor.java - a ScheduledExecutorService whose delays
 * live in libwheeltimer: one WheelTimer hands due tasks to a pool
 */
package org.wheeltimer;

import io.netty.util.Timeout;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link ScheduledExecutorService} on libwheeltimer: a drop-in for
 * {@code ScheduledThreadPoolExecutor} where delays are many, long and
 * mostly cancelled (request timeouts), so that
 *
 * <pre>{@code
 * ScheduledExecutorService s = new ScheduledThreadPoolExecutor(4);
 * }</pre>
 *
 * becomes
 *
 * <pre>{@code
 * ScheduledExecutorService s = new WheelScheduledExecutor(4);
 * }</pre>
 *
 * <h2>How it works</h2>
 *
 * One {@link WheelTimer} keeps the delays: one engine context and one
 * worker thread that owns it. At a deadline that worker only hands the task
 * to the pool ({@code execute}, a queue's offer), and never runs the
 * caller's code. The pool is a fixed {@link ThreadPoolExecutor} of the size
 * given (as {@code ScheduledThreadPoolExecutor(corePoolSize)}: the threads
 * start as tasks come), or an {@link Executor} given to the
 * {@linkplain #builder() builder}, which must not block in
 * {@code execute}. A task with no delay goes straight to the pool.
 *
 * <p>A delayed task is one object: its future is the timer's timeout. A
 * schedule allocates it, counts it live (a striped counter) and pushes it
 * to the timer (lock-free, as {@code newTimeout()}); a cancel is the
 * reverse, also O(1) with no lookup, and the cancelled task leaves the
 * timer and the engine at once (at the worker's next round, which the
 * cancels ask for every 1024): nothing of it stays behind until its delay
 * would have passed ({@code ScheduledThreadPoolExecutor} keeps it unless
 * {@code setRemoveOnCancelPolicy(true)}; here that policy is always on).
 * {@code shutdown()}'s policies walk the timer's pending timeouts.
 *
 * <h2>As ScheduledThreadPoolExecutor</h2>
 *
 * Delays are never cut short; periodic runs never overlap; fixed-rate runs
 * that come late are made up back to back, not skipped; fixed-delay runs
 * start the delay after the end of the one before; a periodic task that
 * throws runs no more; {@code shutdown()} runs delayed tasks and cancels
 * periodic ones by default, as the two policies say
 * ({@link #setExecuteExistingDelayedTasksAfterShutdownPolicy},
 * {@link #setContinueExistingPeriodicTasksAfterShutdownPolicy}, same
 * defaults); {@code shutdownNow()} interrupts what runs and returns what
 * never ran; after shutdown every submission is rejected with
 * {@link RejectedExecutionException}. Where it differs, the binding's
 * README says so and why: chiefly, a task runs up to one resolution (1 ms by
 * default) plus the hand-over after its delay, and more than
 * {@code maxPendingTimeouts} delayed tasks are refused.
 */
public final class WheelScheduledExecutor extends AbstractExecutorService
        implements ScheduledExecutorService {
    /* The run states, in order: each only moves forward. */
    private static final int RUNNING = 0;
    private static final int SHUTDOWN = 1;
    private static final int STOP = 2;
    private static final int TERMINATED = 3;

    private static final VarHandle STATE;
    private static final VarHandle TERMINATING;
    private static final AtomicInteger EXECUTORS = new AtomicInteger();
    private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(long[].class);
    /** 128 bytes: a cell of the live count and its neighbour never share a cache line (nor prefetched pair). */
    private static final int CELL_LONGS = 16;
    /** Cancels counted in a cell after which the timer's worker is woken to release them. */
    static final int CANCELS_PER_WAKE = 1024;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            STATE = l.findVarHandle(WheelScheduledExecutor.class, "state", int.class);
            TERMINATING = l.findVarHandle(WheelScheduledExecutor.class, "terminating", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final WheelTimer timer;
    /** The timer's worker, made by our factory: termination never runs on it. */
    private final Thread timerThread;
    private final ThreadFactory threadFactory;
    /** Our own pool, or null when the caller gave an Executor. */
    private final Pool pool;
    /** Where due tasks run: {@link #pool}, or the caller's. */
    private final Executor runner;
    /**
     * The live tasks' count (see {@link #liveTasks()}), in cells
     * {@link #CELL_LONGS} apart from index {@code CELL_LONGS}: a cell's
     * count, then its cancels since the last wake (see noteCancel()).
     */
    private final long[] live;
    private final int liveMask;
    private final CountDownLatch terminated = new CountDownLatch(1);

    @SuppressWarnings("unused")
    private volatile int state;
    /** Set once, by whoever stops the timer for termination. */
    @SuppressWarnings("unused")
    private volatile boolean terminating;
    private volatile boolean executeDelayedAfterShutdown = true;
    private volatile boolean continuePeriodicAfterShutdown;

    /**
     * As {@code ScheduledThreadPoolExecutor(corePoolSize)}: {@code corePoolSize}
     * threads (from {@link Executors#defaultThreadFactory()}) run the tasks;
     * the engine is the system property {@code wheeltimer.engine}'s choice,
     * the resolution 1 ms.
     *
     * @throws IllegalArgumentException if {@code corePoolSize} is less than 1
     * @throws WheelTimerException      if the engine cannot be opened
     */
    public WheelScheduledExecutor(int corePoolSize) {
        this(builder().poolSize(corePoolSize));
    }

    /** As {@code ScheduledThreadPoolExecutor(corePoolSize, threadFactory)}; the factory also makes the timer's thread. */
    public WheelScheduledExecutor(int corePoolSize, ThreadFactory threadFactory) {
        this(builder().poolSize(corePoolSize).threadFactory(threadFactory));
    }

    private WheelScheduledExecutor(Builder b) {
        int id = EXECUTORS.incrementAndGet();
        int cells = Integer.highestOneBit(Math.max(4, 2 * Runtime.getRuntime().availableProcessors()) - 1) << 1;
        live = new long[(cells + 2) * CELL_LONGS];
        liveMask = cells - 1;
        threadFactory = b.threadFactory != null ? b.threadFactory : namedFactory(id);
        Thread[] made = new Thread[1];
        ThreadFactory timerFactory = r -> {
            Thread t = threadFactory.newThread(r);
            made[0] = t;
            return t;
        };
        WheelTimer.Builder tb = WheelTimer.builder().threadFactory(timerFactory)
                .resolution(b.resolution, TimeUnit.NANOSECONDS)
                .maxPendingTimeouts(b.maxPendingTimeouts)
                .engine(b.engine);
        timer = tb.build();
        timerThread = made[0];
        if (b.executor != null) {
            pool = null;
            runner = b.executor;
        } else {
            pool = new Pool(b.poolSize, threadFactory, this);
            runner = pool;
        }
    }

    private static ThreadFactory namedFactory(int id) {
        ThreadFactory base = Executors.defaultThreadFactory();
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = base.newThread(r);
            t.setName("wheelexec-" + id + "-" + n.incrementAndGet());
            return t;
        };
    }

    /** A builder for what the two constructors cannot say. */
    public static Builder builder() {
        return new Builder();
    }

    /** Options of a {@link WheelScheduledExecutor}; {@link #build()} opens it. */
    public static final class Builder {
        private int poolSize = 1;
        private Executor executor;
        private ThreadFactory threadFactory;
        private long resolution = WheelTimer.DEFAULT_RESOLUTION_NANOS;
        private long maxPendingTimeouts = -1;
        private Engine engine = Engine.AUTO;

        private Builder() {
        }

        /** Tasks run on a pool of this many threads (default 1). */
        public Builder poolSize(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("the pool needs a thread at least: " + threads);
            }
            this.poolSize = threads;
            this.executor = null;
            return this;
        }

        /**
         * Tasks run on {@code executor} instead of a pool of our own. Its
         * {@code execute()} is called by the timer's worker and must not block;
         * {@code shutdown()} and {@code shutdownNow()} leave it running, and
         * neither can take back nor interrupt what it was given.
         */
        public Builder executor(Executor executor) {
            this.executor = Objects.requireNonNull(executor, "executor");
            return this;
        }

        /** Makes the pool's threads and the timer's worker (default: named {@code wheelexec-N-M}). */
        public Builder threadFactory(ThreadFactory factory) {
            this.threadFactory = Objects.requireNonNull(factory, "threadFactory");
            return this;
        }

        /** The wheel's resolution, 1 us to 1 hour (default 1 ms): a task runs at most about this late. */
        public Builder resolution(long duration, TimeUnit unit) {
            long nanos = unit.toNanos(duration);
            if (nanos < 1_000L || nanos > 3_600_000_000_000L) {
                throw new IllegalArgumentException("resolution must be 1 us .. 1 hour: " + nanos + " ns");
            }
            this.resolution = nanos;
            return this;
        }

        /**
         * The most delayed tasks pending at once, beyond which a schedule is
         * rejected; 0 or negative: the engine's default (1048576), as
         * {@link WheelTimer.Builder#maxPendingTimeouts}.
         */
        public Builder maxPendingTimeouts(long max) {
            this.maxPendingTimeouts = max;
            return this;
        }

        /** The engine, as {@link WheelTimer.Builder#engine}. */
        public Builder engine(Engine engine) {
            this.engine = Objects.requireNonNull(engine, "engine");
            return this;
        }

        /** Opens the executor. @throws WheelTimerException if the engine cannot be opened */
        public WheelScheduledExecutor build() {
            return new WheelScheduledExecutor(this);
        }
    }

    /**
     * Our pool: a fixed ThreadPoolExecutor that tells us when it has
     * terminated. Its refusal is a plain exception: the JDK's AbortPolicy
     * builds its message with the pool's toString(), which takes the
     * pool's lock, and the timer's worker must never wait for that lock.
     */
    private static final class Pool extends ThreadPoolExecutor {
        private final WheelScheduledExecutor owner;

        Pool(int threads, ThreadFactory factory, WheelScheduledExecutor owner) {
            super(threads, threads, 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), factory,
                  (r, pool) -> {
                      throw new RejectedExecutionException("the executor is shut down");
                  });
            this.owner = owner;
        }

        /** Under the pool's lock: only says so. */
        @Override
        protected void terminated() {
            owner.terminate();
        }
    }

    /* Scheduling. */

    /*
     * A delayed task's time is its timeout's deadline, made by the timer
     * (deadlineIn()): one reading of the clock per schedule, the timer's, as
     * ScheduledThreadPoolExecutor's one.
     */

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        long nanos = unit.toNanos(delay);
        if (nanos <= 0) {
            return immediate(new WheelScheduledFuture<Void>(this, command, nanoTime()));
        }
        return delayed(new WheelScheduledFuture<Void>(this, command, timer.deadlineIn(nanos)), nanos);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        Objects.requireNonNull(callable, "callable");
        long nanos = unit.toNanos(delay);
        if (nanos <= 0) {
            return immediate(new WheelScheduledFuture<>(this, callable, nanoTime()));
        }
        return delayed(new WheelScheduledFuture<>(this, callable, timer.deadlineIn(nanos)), nanos);
    }

    /**
     * Runs {@code command} first after {@code initialDelay}, then every
     * {@code period} after that first deadline; runs that come late are
     * made up at once, one after the other, never at the same time.
     */
    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period,
                                                  TimeUnit unit) {
        return periodic(command, initialDelay, period, unit, true);
    }

    /** Runs {@code command} first after {@code initialDelay}, then {@code delay} after the end of each run. */
    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay,
                                                     TimeUnit unit) {
        return periodic(command, initialDelay, delay, unit, false);
    }

    private ScheduledFuture<?> periodic(Runnable command, long initialDelay, long period,
                                        TimeUnit unit, boolean fixedRate) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(unit, "unit");
        if (period <= 0) {
            throw new IllegalArgumentException("period must be positive: " + period);
        }
        long now = nanoTime();
        long initial = Math.max(0, unit.toNanos(initialDelay));
        long p = unit.toNanos(period);
        PeriodicFuture f = new PeriodicFuture(this, command, PeriodicFuture.saturatedAdd(now, initial),
                                              fixedRate ? p : -p);
        admit(f, false);
        WheelTimeout t;
        try {
            t = fixedRate ? timer.scheduleAtFixedRate(f, initial, p, TimeUnit.NANOSECONDS)
                    : timer.newTimeout(f, initial, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException | IllegalStateException e) {
            throw unregisterAndReject(f, e);
        }
        f.armed(t);
        recheckAfterShutdown(f);
        return f;
    }

    /**
     * A task with a delay, its deadline made: counted live, then given to the
     * timer as its own timeout.
     */
    private <V> ScheduledFuture<V> delayed(WheelScheduledFuture<V> f, long delay) {
        admit(f, true);
        try {
            timer.add(f, delay);
        } catch (RejectedExecutionException | IllegalStateException e) {
            throw unregisterAndReject(f, e);
        }
        recheckAfterShutdown(f);
        return f;
    }

    /**
     * A task with no delay: straight to the pool. Our own pool's queue holds
     * it (and shutdownNow() takes it back); a caller's executor is out of our
     * sight, so the task is counted live until it ends.
     */
    private <V> ScheduledFuture<V> immediate(WheelScheduledFuture<V> f) {
        if (pool == null) {
            admit(f, false);
        } else {
            rejectUnlessRunning();
        }
        try {
            runner.execute(f);
        } catch (RejectedExecutionException e) {
            throw unregisterAndReject(f, e);
        }
        if (pool == null) {
            recheckAfterShutdown(f);
        }
        return f;
    }

    private void rejectUnlessRunning() {
        if (state != RUNNING) {
            throw new RejectedExecutionException("the executor is shut down");
        }
    }

    /**
     * Counts {@code f} live ({@code timed}: it is to be the timer's
     * timeout), then checks that the executor still takes
     * tasks: in that order, so that a shutdown() that did not see the count
     * is seen here (see {@link #liveTasks()}).
     */
    private void admit(WheelScheduledFuture<?> f, boolean timed) {
        f.register(timed);
        count(1);
        if (state != RUNNING) {
            throw unregisterAndReject(f, new RejectedExecutionException("the executor is shut down"));
        }
    }

    /** {@code f} is no longer counted live; true if it was until now (once only). */
    private boolean unregister(WheelScheduledFuture<?> f) {
        if (f.unregister()) {
            count(-1);
            return true;
        }
        return false;
    }

    /* The count of live tasks: striped, each cell on a cache line of its own. */

    /** This thread's cell in {@link #live}: the same one each time. */
    private int cell() {
        long id = Thread.currentThread().getId();
        return (((int) (id ^ (id >>> 16)) & liveMask) + 1) * CELL_LONGS;
    }

    private void count(long delta) {
        CELL.getAndAdd(live, cell(), delta);
    }

    /**
     * The tasks counted live: registered and neither done nor given back by
     * shutdownNow(). Exact once no schedule can succeed any more (after
     * shutdown()): every task that was admitted counted itself before it
     * read the state, so a sum that reads the state's change after it sees
     * its count; a task refused by the state takes its count back in its
     * own thread's cell, so that a sum never sees the taking back without
     * the count.
     */
    private long liveTasks() {
        long n = 0;
        for (int i = CELL_LONGS; i < live.length; i += CELL_LONGS) {
            n += (long) CELL.getVolatile(live, i);
        }
        return n;
    }

    /**
     * A cancel: every {@link #CANCELS_PER_WAKE} in a cell, or when the timer
     * has nothing left pending, wake the timer's worker so that it takes the
     * cancels (a cancel does not), and no cancelled task (this future, the
     * timer's timeout) stays on the heap until a deadline. The count is
     * plain, and racy: a lost count only delays a wake.
     */
    private void noteCancel() {
        int i = cell() + 1;
        long n = live[i] + 1;
        if (n >= CANCELS_PER_WAKE || timer.pendingTimeouts() == 0) {
            n = 0;
            timer.wakeWorker();
        }
        live[i] = n;
    }

    /** A schedule failed after registering {@code f}: undo it, and say why. */
    private RejectedExecutionException unregisterAndReject(WheelScheduledFuture<?> f, RuntimeException e) {
        if (unregister(f)) {
            tryTerminate();
        }
        if (e instanceof RejectedExecutionException r && state == RUNNING) {
            // The timer's limit, maxPendingTimeouts, or the caller's executor.
            return r;
        }
        RejectedExecutionException r = new RejectedExecutionException("the executor is shut down");
        r.initCause(e);
        return r;
    }

    /**
     * A shutdown() that came while {@code f} was being scheduled may have
     * missed it: apply its policy now, as it would have.
     */
    private void recheckAfterShutdown(WheelScheduledFuture<?> f) {
        if (state != RUNNING && !canRun(f)) {
            f.cancel(false);
        }
    }

    @Override
    public void execute(Runnable command) {
        schedule(command, 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public Future<?> submit(Runnable task) {
        return schedule(task, 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public <T> Future<T> submit(Runnable task, T result) {
        Objects.requireNonNull(task, "task");
        return schedule(Executors.callable(task, result), 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public <T> Future<T> submit(Callable<T> task) {
        return schedule(task, 0, TimeUnit.NANOSECONDS);
    }

    /* What the futures call. */

    /** The timer's worker: a task is due; give it to the pool. */
    void handOver(WheelScheduledFuture<?> f) {
        try {
            runner.execute(f);
        } catch (RejectedExecutionException e) {
            f.refused(e);
        }
    }

    /**
     * Whether {@code f} may run now: always while running; after
     * {@code shutdown()}, as the policies say (a one-shot task that is due
     * runs in any case, as ScheduledThreadPoolExecutor's does); never after
     * {@code shutdownNow()}.
     */
    boolean canRun(WheelScheduledFuture<?> f) {
        int s = state;
        if (s == RUNNING) {
            return true;
        }
        if (s >= STOP) {
            return false;
        }
        return f.isPeriodic() ? continuePeriodicAfterShutdown
                : executeDelayedAfterShutdown || f.getDelay(TimeUnit.NANOSECONDS) <= 0;
    }

    boolean isStopping() {
        return state >= STOP;
    }

    /** From a future's done(): it is no longer live; perhaps the executor can terminate. */
    void finished(WheelScheduledFuture<?> f) {
        boolean was = unregister(f);
        if (f.isCancelled()) {
            noteCancel();
        }
        if (was && state != RUNNING) {
            tryTerminate();
        }
    }

    WheelTimer timer() {
        return timer;
    }

    long nanoTime() {
        return timer.nanoTime();
    }

    boolean sameClock(WheelScheduledExecutor other) {
        return other == this || !timer.isVirtualClock() && !other.timer.isVirtualClock();
    }

    /* Shutdown. */

    /**
     * Starts an orderly shutdown: no new task is taken; delayed tasks still
     * run (unless {@link #setExecuteExistingDelayedTasksAfterShutdownPolicy}
     * was set to false: they are cancelled) and periodic ones are cancelled
     * (unless {@link #setContinueExistingPeriodicTasksAfterShutdownPolicy}
     * was set to true), a run under way finishing. Does not wait: see
     * {@link #awaitTermination}.
     */
    @Override
    public void shutdown() {
        advanceState(SHUTDOWN);
        applyShutdownPolicies();
        tryTerminate();
    }

    /**
     * Stops: no new task is taken, the pool's threads are interrupted, and
     * the tasks that never started are returned (delayed, periodic between
     * runs, and queued in our pool), neither done nor cancelled. A task
     * already given to a caller's executor is not returned: it is cancelled
     * when that executor runs it.
     */
    @Override
    public List<Runnable> shutdownNow() {
        advanceState(STOP);
        Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Runnable> never = new ArrayList<>();
        // The timer first: its worker hands what is due to the pool until it
        // stops, and the pool's queue is taken after.
        for (Timeout t : timer.stop()) {
            WheelScheduledFuture<?> f = (WheelScheduledFuture<?>) t.task();
            if (!f.isDone() && f.isIdle() && seen.add(f)) {
                never.add(f);
            }
        }
        if (pool != null) {
            for (Runnable r : pool.shutdownNow()) {
                if (!(r instanceof WheelScheduledFuture<?> f) || !f.isDone() && seen.add(f)) {
                    never.add(r);
                }
            }
        }
        for (Runnable r : never) {
            if (r instanceof WheelScheduledFuture<?> f) {
                unregister(f);
            }
        }
        tryTerminate();
        return never;
    }

    private void advanceState(int to) {
        for (;;) {
            int s = state;
            if (s >= to || STATE.compareAndSet(this, s, to)) {
                return;
            }
        }
    }

    /**
     * shutdown()'s policies, on every task the timer holds. The others are
     * due (a one-shot task then runs in any case), or are periodic tasks
     * queued, running or re-arming, which check canRun() before they run
     * and after they re-arm; a task being scheduled checks it after the
     * timer has it (recheckAfterShutdown).
     */
    private void applyShutdownPolicies() {
        if (state != SHUTDOWN) {
            return;
        }
        boolean keepDelayed = executeDelayedAfterShutdown;
        boolean keepPeriodic = continuePeriodicAfterShutdown;
        if (keepDelayed && keepPeriodic) {
            return;
        }
        List<WheelTimeout> pending;
        try {
            pending = timer.pendingList();
        } catch (IllegalStateException stopped) {
            // The timer has stopped: it holds nothing.
            return;
        }
        for (WheelTimeout t : pending) {
            if (!(t.task() instanceof WheelScheduledFuture<?> f)) {
                continue;
            }
            boolean cancel = f.isPeriodic() ? !keepPeriodic && !f.isRunning()
                    : !keepDelayed && f.getDelay(TimeUnit.NANOSECONDS) > 0;
            if (cancel) {
                f.cancel(false);
            }
        }
    }

    /**
     * Once shut down with no task live, the timer has nothing left to
     * do: stop it (waiting for its worker, so never from the worker itself,
     * nor under the pool's lock, which the worker may need to start a pool
     * thread), then let our pool run what it holds and end.
     */
    private void tryTerminate() {
        int s = state;
        if (s == RUNNING || s == TERMINATED || liveTasks() != 0
                || !TERMINATING.compareAndSet(this, false, true)) {
            return;
        }
        if (Thread.currentThread() == timerThread) {
            threadFactory.newThread(this::stopTimerThenPool).start();
        } else {
            stopTimerThenPool();
        }
    }

    private void stopTimerThenPool() {
        timer.stop();
        if (pool != null) {
            // Its terminated() calls terminate() once its queue is run.
            pool.shutdown();
        } else {
            terminate();
        }
    }

    /** The timer has stopped and the pool ended: the executor has terminated. */
    void terminate() {
        advanceState(TERMINATED);
        terminated.countDown();
    }

    @Override
    public boolean isShutdown() {
        return state != RUNNING;
    }

    @Override
    public boolean isTerminated() {
        return state == TERMINATED;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return terminated.await(timeout, unit);
    }

    /* The two policies of ScheduledThreadPoolExecutor, with its defaults. */

    /** Whether periodic tasks go on after {@code shutdown()} (default false). */
    public boolean getContinueExistingPeriodicTasksAfterShutdownPolicy() {
        return continuePeriodicAfterShutdown;
    }

    /** Sets it; set to false after {@code shutdown()}, it cancels the periodic tasks then. */
    public void setContinueExistingPeriodicTasksAfterShutdownPolicy(boolean value) {
        continuePeriodicAfterShutdown = value;
        if (!value && isShutdown()) {
            applyShutdownPolicies();
            tryTerminate();
        }
    }

    /** Whether delayed tasks still run after {@code shutdown()} (default true). */
    public boolean getExecuteExistingDelayedTasksAfterShutdownPolicy() {
        return executeDelayedAfterShutdown;
    }

    /** Sets it; set to false after {@code shutdown()}, it cancels the delayed tasks then. */
    public void setExecuteExistingDelayedTasksAfterShutdownPolicy(boolean value) {
        executeDelayedAfterShutdown = value;
        if (!value && isShutdown()) {
            applyShutdownPolicies();
            tryTerminate();
        }
    }

    /**
     * Always true: a cancelled task leaves at once ({@code
     * ScheduledThreadPoolExecutor}'s {@code setRemoveOnCancelPolicy(true)},
     * whose default is false). There is no setter: nothing is gained here by
     * keeping cancelled tasks.
     */
    public boolean getRemoveOnCancelPolicy() {
        return true;
    }

    /* What ScheduledThreadPoolExecutor's interface cannot say. */

    /**
     * The delayed and periodic tasks neither done, cancelled nor given back
     * by {@code shutdownNow()}, those due and not yet run included (with a
     * caller's executor, also the tasks with no delay given to it).
     */
    public long pendingTasks() {
        return liveTasks();
    }

    /** The most delayed tasks pending at once ({@code maxPendingTimeouts}). */
    public long maxPendingTimeouts() {
        return timer.maxPendingTimeouts();
    }

    /** The engine that keeps the delays. */
    public Engine engine() {
        return timer.engine();
    }

    /** The wheel's resolution in ns. */
    public long resolutionNanos() {
        return timer.resolutionNanos();
    }

    /** The timer's counters: the engine's and its worker's (wake-ups, tasks handed over). */
    public WheelTimerStats stats() {
        return timer.stats();
    }

    /** The timer worker's kernel thread id, 0 until it started. */
    public int timerThreadId() {
        return timer.workerThreadId();
    }

    @Override
    public String toString() {
        String[] names = {"running", "shutdown", "stop", "terminated"};
        return "WheelScheduledExecutor(" + names[state] + ", " + timer + ", "
                + (pool != null ? "pool of " + pool.getMaximumPoolSize() : "executor " + runner) + ")";
    }
}
