// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * WheelScheduledExecutor.java - a ScheduledExecutorService whose delays
 * live in libwheeltimer: one WheelTimer hands due tasks to the
 * ThreadPoolExecutor that this is
 */
package org.wheeltimer;

import io.netty.util.Timeout;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link ScheduledExecutorService} on libwheeltimer: a drop-in for
 * {@code ScheduledThreadPoolExecutor} where delays are many, long and
 * mostly cancelled (request timeouts), so that
 *
 * <pre>{@code
 * ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(4);
 * }</pre>
 *
 * becomes
 *
 * <pre>{@code
 * WheelScheduledExecutor s = new WheelScheduledExecutor(4);
 * }</pre>
 *
 * <h2>How it works</h2>
 *
 * One {@link WheelTimer} keeps the delays: one engine context and one
 * worker thread that owns it. At a deadline that worker only hands the task
 * to the pool, and never runs the caller's code: the tasks due in a chunk
 * of its round (up to 256) go to the pool's queue under one lock, so that
 * a burst of them costs the pool's threads little more than their runs.
 * The pool is this executor itself, a
 * {@link ThreadPoolExecutor} of {@code corePoolSize} threads and an
 * unbounded queue (as {@code ScheduledThreadPoolExecutor}: the threads
 * start as tasks come), or an {@link Executor} given to the
 * {@linkplain #builder() builder}, which must not block in
 * {@code execute}. A task with no delay goes straight to the pool.
 *
 * <p>A delayed task is one object: its future is the timer's timeout. A
 * schedule allocates it and pushes it to the timer (lock-free, as
 * {@code newTimeout()}), whose count of pending timeouts counts it live
 * until the hand-over at its deadline; a cancel is the
 * reverse, also O(1) with no lookup: the cancelled task leaves the count
 * and the queue at once, and the timer lets go of it at its worker's next
 * round (see {@link #setRemoveOnCancelPolicy} for when that comes).
 * {@code shutdown()}'s policies walk the timer's pending timeouts and the
 * pool's queue.
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
 * never ran; after shutdown every submission is rejected, through the
 * {@link RejectedExecutionHandler} ({@link ThreadPoolExecutor.AbortPolicy}
 * by default) with the future it would have been. As a
 * {@link ThreadPoolExecutor}: the pool's sizes, counts, thread factory and
 * hooks are the JDK's own; {@link #getQueue()} is a view of the tasks
 * waiting, for their time in the wheel or for a thread, in deadline order,
 * whose removals cancel; {@link #getTaskCount()} and {@link #remove} count
 * and reach those in the wheel too. Where it differs, the binding's README
 * says so and why: chiefly, a task runs up to one resolution (100 us by
 * default) plus the hand-over after its delay, and more than
 * {@code maxPendingTimeouts} delayed tasks are refused.
 */
public final class WheelScheduledExecutor extends ThreadPoolExecutor
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
    /* A cell's words: the live count, cancels since the last wake, the count out of the wheel. */
    private static final int CELL_CANCELS = 1;
    private static final int CELL_OUT = 2;
    /** The most due tasks the timer's worker hands to the pool's queue at once. */
    private static final int DUE_BATCH = 256;
    /** Cancels counted in a cell after which the timer's worker is woken to release them. */
    static final int CANCELS_PER_WAKE = 1024;
    /** How long a thread above the core size waits for a task (ScheduledThreadPoolExecutor's 10 ms). */
    private static final long KEEP_ALIVE_MILLIS = 10;
    /**
     * The pool's own refusal, once it is shut down: a plain exception,
     * where the JDK's AbortPolicy would build its message with toString(),
     * which takes the pool's lock that the timer's worker must never wait
     * for. The caller's handler is ours to call (see reject()).
     */
    private static final RejectedExecutionHandler REFUSE = (r, pool) -> {
        throw new RejectedExecutionException("the executor is shut down");
    };
    /**
     * The default resolution: 100 us, a tenth of WheelTimer's, so that a
     * task's lateness stays near ScheduledThreadPoolExecutor's, which waits
     * to the nanosecond. It costs nothing to tasks that are cancelled, and
     * a round of the timer's worker (its wake-up and a pool thread's) per
     * 100 us in which tasks fall due; the binding's README has the
     * measurements. {@code resolution()} sets another.
     */
    public static final long DEFAULT_RESOLUTION_NANOS = 100_000L;
    private static final Comparator<WheelScheduledFuture<?>> BY_TIME =
            (a, b) -> Long.compare(a.time(), b.time());

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
    /** The timer's worker, made by the factory of the construction: termination never runs on it. */
    private final Thread timerThread;
    /** The caller's executor, or null: due tasks run on this pool. */
    private final Executor callers;
    /** This pool's queue: due tasks waiting for a thread. */
    private final PoolQueue poolQueue;
    /**
     * The timer's worker's alone: due tasks gathered from a chunk of its
     * round, for one offerAll() to the pool's queue (see handDue()).
     */
    private final WheelScheduledFuture<?>[] due = new WheelScheduledFuture<?>[DUE_BATCH];
    private int dueCount;
    /** What getQueue() returns. */
    private final TaskQueueView queueView;
    /**
     * The count of the live tasks the timer does not count (see
     * {@link #liveTasks()}) and of the tasks out of the wheel (see
     * {@link WheelScheduledFuture#OUT}), in cells
     * {@link #CELL_LONGS} apart from index {@code CELL_LONGS}: a cell's
     * count, its cancels since the last wake (see noteCancel()), its count
     * out of the wheel; a thread's cell is its stripe's ({@link Stripes}).
     */
    private final long[] live;
    /** The periodic tasks' timeouts the timer counts (see {@link #periodicTimeouts(long)}). */
    private final AtomicLong periodicTimeouts = new AtomicLong();
    private final CountDownLatch terminated = new CountDownLatch(1);

    @SuppressWarnings("unused")
    private volatile int state;
    /** Set once, by whoever stops the timer for termination. */
    @SuppressWarnings("unused")
    private volatile boolean terminating;
    private volatile boolean executeDelayedAfterShutdown = true;
    private volatile boolean continuePeriodicAfterShutdown;
    private volatile boolean removeOnCancel;
    private volatile RejectedExecutionHandler handler;

    /**
     * As {@code ScheduledThreadPoolExecutor(corePoolSize)}: {@code corePoolSize}
     * threads (from {@link Executors#defaultThreadFactory()}) run the tasks;
     * the engine is the system property {@code wheeltimer.engine}'s choice,
     * the resolution {@link #DEFAULT_RESOLUTION_NANOS}.
     *
     * @throws IllegalArgumentException if {@code corePoolSize} is negative
     * @throws WheelTimerException      if the engine cannot be opened
     */
    public WheelScheduledExecutor(int corePoolSize) {
        this(builder().poolSize(corePoolSize));
    }

    /** As {@code ScheduledThreadPoolExecutor(corePoolSize, threadFactory)}; the factory also makes the timer's thread. */
    public WheelScheduledExecutor(int corePoolSize, ThreadFactory threadFactory) {
        this(builder().poolSize(corePoolSize).threadFactory(threadFactory));
    }

    /** As {@code ScheduledThreadPoolExecutor(corePoolSize, handler)}. */
    public WheelScheduledExecutor(int corePoolSize, RejectedExecutionHandler handler) {
        this(builder().poolSize(corePoolSize).rejectedExecutionHandler(handler));
    }

    /** As {@code ScheduledThreadPoolExecutor(corePoolSize, threadFactory, handler)}. */
    public WheelScheduledExecutor(int corePoolSize, ThreadFactory threadFactory,
                                  RejectedExecutionHandler handler) {
        this(builder().poolSize(corePoolSize).threadFactory(threadFactory)
                     .rejectedExecutionHandler(handler));
    }

    private WheelScheduledExecutor(Builder b) {
        super(b.poolSize, Integer.MAX_VALUE, KEEP_ALIVE_MILLIS, TimeUnit.MILLISECONDS,
              new PoolQueue(), threadsOf(b), REFUSE);
        poolQueue = (PoolQueue) super.getQueue();
        queueView = new TaskQueueView(this);
        handler = b.handler;
        live = new long[(Stripes.COUNT + 2) * CELL_LONGS];
        ThreadFactory threads = getThreadFactory();
        Thread[] made = new Thread[1];
        ThreadFactory timerFactory = r -> {
            Thread t = threads.newThread(r);
            made[0] = t;
            return t;
        };
        WheelTimer.Builder tb = WheelTimer.builder().threadFactory(timerFactory)
                .resolution(b.resolution, TimeUnit.NANOSECONDS)
                .maxPendingTimeouts(b.maxPendingTimeouts)
                .engine(b.engine)
                .afterChunk(this::handDue);
        timer = tb.build();
        timerThread = made[0];
        callers = b.executor;
    }

    /** The builder's factory, else one that names its threads {@code wheelexec-N-M}. */
    private static ThreadFactory threadsOf(Builder b) {
        if (b.threadFactory != null) {
            return b.threadFactory;
        }
        int id = EXECUTORS.incrementAndGet();
        ThreadFactory base = Executors.defaultThreadFactory();
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = base.newThread(r);
            t.setName("wheelexec-" + id + "-" + n.incrementAndGet());
            return t;
        };
    }

    /** A builder for what the constructors cannot say. */
    public static Builder builder() {
        return new Builder();
    }

    /** Options of a {@link WheelScheduledExecutor}; {@link #build()} opens it. */
    public static final class Builder {
        private int poolSize = 1;
        private Executor executor;
        private ThreadFactory threadFactory;
        private RejectedExecutionHandler handler = new ThreadPoolExecutor.AbortPolicy();
        private long resolution = DEFAULT_RESOLUTION_NANOS;
        private long maxPendingTimeouts = -1;
        private Engine engine = Engine.AUTO;

        private Builder() {
        }

        /**
         * Tasks run on a pool of this many core threads (default 1); 0, as
         * {@code ScheduledThreadPoolExecutor} takes it, starts a thread when
         * a task comes, which ends 10 ms after the queue is empty.
         */
        public Builder poolSize(int threads) {
            if (threads < 0) {
                throw new IllegalArgumentException("the pool's core size is negative: " + threads);
            }
            this.poolSize = threads;
            this.executor = null;
            return this;
        }

        /**
         * Tasks run on {@code executor} instead of this pool, whose threads
         * then never start (its sizes and counts stay 0). Its
         * {@code execute()} is called by the timer's worker and must not
         * block; {@code shutdown()} and {@code shutdownNow()} leave it
         * running, and neither can take back nor interrupt what it was given.
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

        /** Called with each future refused (default: {@link ThreadPoolExecutor.AbortPolicy}). */
        public Builder rejectedExecutionHandler(RejectedExecutionHandler handler) {
            this.handler = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /** The wheel's resolution, 1 us to 1 hour (default 100 us): a task runs at most about this late. */
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

    /**
     * A periodic task. Due at once, its first run goes straight to the pool
     * (as a task with no delay), and a fixed-rate one's timeout first fires
     * a period later.
     */
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
        if (initial == 0 && fixedRate) {
            f.oweFirstRun();
        }
        if (!admit(f)) {
            return reject(f, null);
        }
        if (initial > 0 || fixedRate) {
            WheelTimeout t;
            try {
                t = fixedRate ? timer.scheduleAtFixedRate(f, initial == 0 ? p : initial, p,
                                                          TimeUnit.NANOSECONDS)
                        : timer.newTimeout(f, initial, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException | IllegalStateException e) {
                return reject(f, e);
            }
            f.armed(t);
            prestart();
        }
        if (initial == 0) {
            markOut(f);
            try {
                dispatch(f);
            } catch (RejectedExecutionException e) {
                f.cancelTimeout();
                return reject(f, e);
            }
        }
        recheckAfterShutdown(f);
        return f;
    }

    /**
     * A task with a delay, its deadline made: counted live by the timer, the
     * state read (as admit() does), then given to the timer as its own
     * timeout.
     */
    private <V> ScheduledFuture<V> delayed(WheelScheduledFuture<V> f, long delay) {
        f.register(true);
        Lane lane;
        try {
            lane = timer.count();
        } catch (RejectedExecutionException | IllegalStateException e) {
            return reject(f, e);
        }
        if (state != RUNNING) {
            timer.uncount();
            return reject(f, null);
        }
        try {
            timer.add(f, delay, lane);
        } catch (IllegalStateException e) {
            return reject(f, e);
        }
        prestart();
        recheckAfterShutdown(f);
        return f;
    }

    /**
     * A delayed task starts a core thread if fewer run, as
     * ScheduledThreadPoolExecutor's schedule does: the thread then waits
     * for the task's deadline instead of being made at it, which made the
     * first tasks of a new executor late by the thread's start (1 to 2 ms
     * here). Once the core threads run it is one read of the pool's count.
     */
    private void prestart() {
        if (callers == null) {
            prestartCoreThread();
        }
    }

    /**
     * A task with no delay: straight to the pool. This pool's queue holds
     * it (and shutdownNow() takes it back); a caller's executor is out of our
     * sight, so the task is counted live, and out of the wheel, until it ends.
     */
    private <V> ScheduledFuture<V> immediate(WheelScheduledFuture<V> f) {
        if (callers != null) {
            if (!admit(f)) {
                return reject(f, null);
            }
            markOut(f);
        } else if (state != RUNNING) {
            return reject(f, null);
        }
        try {
            dispatch(f);
        } catch (RejectedExecutionException e) {
            return reject(f, e);
        }
        if (callers != null) {
            recheckAfterShutdown(f);
        }
        return f;
    }

    /**
     * Counts {@code f} live, a task that is not to be the timer's timeout
     * (a delayed one is counted by the timer), then checks that the
     * executor still takes tasks: in that order, so that a shutdown() that
     * did not see the count is seen here (see {@link #liveTasks()}). False
     * if it does not: {@code f} is to be rejected.
     */
    private boolean admit(WheelScheduledFuture<?> f) {
        f.register(false);
        count(1);
        return state == RUNNING;
    }

    /** Due: to the pool, or the caller's executor. */
    private void dispatch(WheelScheduledFuture<?> f) {
        if (callers == null) {
            super.execute(f);
        } else {
            callers.execute(f);
        }
    }

    /**
     * A submission refused, by the state (cause null), the timer's limit or
     * the pool: {@code f} leaves the counts, and the handler is called with
     * it, as ScheduledThreadPoolExecutor calls it with its future. The
     * future is returned if the handler returns (never done, unless the
     * handler ran it). The default AbortPolicy throws the exception it
     * would, with a message that says why (and no call to toString()).
     */
    private <V> ScheduledFuture<V> reject(WheelScheduledFuture<V> f, RuntimeException cause) {
        uncount(f.withdraw());
        tryTerminate();
        RejectedExecutionHandler h = handler;
        if (h.getClass() == ThreadPoolExecutor.AbortPolicy.class) {
            if (cause instanceof RejectedExecutionException r && state == RUNNING) {
                // The timer's limit, maxPendingTimeouts, or the caller's executor.
                throw r;
            }
            RejectedExecutionException r = new RejectedExecutionException("the executor is shut down");
            if (cause != null) {
                r.initCause(cause);
            }
            throw r;
        }
        h.rejectedExecution(f, this);
        return f;
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

    /* The counts of live tasks and of those out of the wheel: striped, each cell on a cache line of its own. */

    /** This thread's cell in {@link #live}: the same one each time. */
    private int cell() {
        return (Stripes.current() + 1) * CELL_LONGS;
    }

    private void count(long delta) {
        CELL.getAndAdd(live, cell(), delta);
    }

    private void countOut(long delta) {
        CELL.getAndAdd(live, cell() + CELL_OUT, delta);
    }

    /** {@code f} leaves the counts it was in ({@code was}: its flags until now); returns {@code was}. */
    private int uncount(int was) {
        if ((was & WheelScheduledFuture.LIVE) != 0) {
            count(-1);
        }
        if ((was & WheelScheduledFuture.OUT) != 0) {
            countOut(-1);
        }
        return was;
    }

    private void markOut(WheelScheduledFuture<?> f) {
        if (f.markOut()) {
            countOut(1);
        }
    }

    /**
     * Zero once no task is live (registered and neither done nor given back
     * by shutdownNow()), what termination waits for: the timer's pending
     * timeouts (the delayed tasks until their hand-over, and the periodic
     * tasks' timeouts, which the executor also counts), then the executor's
     * count. Exact once no schedule can succeed any more (after shutdown()):
     * every task that was admitted was counted before it read the state, so
     * a sum that reads the state's change after it sees its count; a task
     * refused by the state takes its count back in the same counter, so
     * that a sum never sees the taking back without the count. Read in that
     * order: a delayed task is counted by the executor before the timer
     * stops counting it ({@link #expiring}), so a sum never misses it.
     */
    private long liveTasks() {
        long timed = timer.pendingTimeouts();
        return timed + sum(0);
    }

    /** The delayed tasks the timer counts: its pending timeouts less the periodic tasks'. */
    private long delayedInTimer() {
        return Math.max(0, timer.pendingTimeouts() - periodicTimeouts.get());
    }

    private long sum(int word) {
        long n = 0;
        for (int i = CELL_LONGS + word; i < live.length; i += CELL_LONGS) {
            n += (long) CELL.getVolatile(live, i);
        }
        return n;
    }

    /**
     * The live tasks waiting in the wheel for their time: those not out
     * (see {@link WheelScheduledFuture#OUT}). Exact when no task is being
     * handed over or scheduled meanwhile; two sums of cells, no lock.
     */
    private long inWheel() {
        long delayed = delayedInTimer();
        return Math.max(0, delayed + sum(0) - sum(CELL_OUT));
    }

    /**
     * A periodic task's timeout joined (1) or left (-1) the timer's count:
     * armed, or fired, or cancelled. (One that ends by itself, at the
     * engine's last deadline, or that the engine refuses, stays counted
     * here, for the view's size only.)
     */
    void periodicTimeouts(long delta) {
        periodicTimeouts.addAndGet(delta);
    }

    /**
     * A cancel: wakes the timer's worker, so that it lets go of the
     * cancelled tasks it holds (a cancel alone does not wake it), when the
     * timer has nothing left pending, and, for a task to be removed at its
     * cancel ({@code remove}: the policy, or remove()), every
     * {@link #CANCELS_PER_WAKE} of those in a cell. The count is plain, and
     * racy: a lost count only delays a wake.
     */
    private void noteCancel(boolean remove) {
        if (remove) {
            int i = cell() + CELL_CANCELS;
            long n = live[i] + 1;
            if (n >= CANCELS_PER_WAKE) {
                n = 0;
                timer.wakeWorker();
            }
            live[i] = n;
        }
        if (timer.nonePending()) {
            timer.wakeWorker();
        }
    }

    /* What the futures call. */

    /**
     * Something termination may have waited for is gone: a task (its
     * finished()), or the timeout of a task already done, which left the
     * timer's count after that task's finished() looked. While the
     * executor runs it is one read of the state.
     */
    void mayTerminate() {
        if (state != RUNNING) {
            tryTerminate();
        }
    }

    /**
     * The timer's worker (or a periodic task's run): a task is due; give it
     * to the pool, the worker's at the end of its chunk (handDue()). A
     * cancel that came meanwhile and meant the task to leave the pool's
     * queue (remove(), the policy) may have looked for it there before it
     * came: whichever of the two comes second sees the other.
     */
    void handOver(WheelScheduledFuture<?> f) {
        if (f.isDone()) {
            // Cancelled as it expired.
            mayTerminate();
            return;
        }
        markOut(f);
        if (callers == null && Thread.currentThread() == timerThread) {
            due[dueCount++] = f;
            if (dueCount == due.length) {
                handDue();
            }
            return;
        }
        try {
            dispatch(f);
        } catch (RejectedExecutionException e) {
            f.refused(e);
            return;
        }
        if (f.isCancelled() && callers == null && (removeOnCancel || f.isRemoved())) {
            dequeue(f);
        }
    }

    /**
     * The timer's worker, after each chunk of its round: the due tasks
     * gathered go to the pool's queue under one lock, all but the last;
     * the last through the pool's execute(), whose checks then cover them
     * all (a thread is started if none runs; the pool refuses only once
     * shut down, which it is not while the timer runs). The core threads
     * are started first, so that none starts with the last task ahead of
     * the others. A task cancelled meanwhile leaves the queue again if the
     * policy says so, as its done() would have taken it out. Until then
     * a gathered task is neither in the wheel nor in the queue: the
     * view's size and getTaskCount() miss it for that moment (a chunk's
     * hand-over), as the pool's counts are approximate while tasks move.
     */
    private void handDue() {
        int n = dueCount;
        if (n == 0) {
            return;
        }
        dueCount = 0;
        WheelScheduledFuture<?> last = due[n - 1];
        try {
            while (prestartCoreThread()) {
                // One more core thread.
            }
            poolQueue.offerAll(due, 0, n - 1);
            try {
                super.execute(last);
            } catch (RejectedExecutionException e) {
                last.refused(e);
            }
            for (int i = 0; i < n; i++) {
                WheelScheduledFuture<?> f = due[i];
                if (f.isCancelled() && (removeOnCancel || f.isRemoved())) {
                    dequeue(f);
                }
            }
        } finally {
            Arrays.fill(due, 0, n, null);
        }
    }

    /**
     * Takes {@code f} out of the pool's queue through the pool's own
     * remove(), which then tries the pool's termination: once the pool is
     * shut down, its threads that wait for a task this took away would
     * otherwise wait for ever (a cancelled task taken out by shutdown()'s
     * policies, the remove-on-cancel policy, or remove()).
     */
    private boolean dequeue(WheelScheduledFuture<?> f) {
        return super.remove(f);
    }

    /** A periodic task waits in the wheel again, for its next run. */
    void backInWheel(WheelScheduledFuture<?> f) {
        if (f.clearOut()) {
            countOut(-1);
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

    /**
     * From a future's done(): it is no longer live; a cancelled one leaves
     * the pool's queue too if the policy says so, or remove() cancelled it;
     * perhaps the executor can terminate.
     */
    void finished(WheelScheduledFuture<?> f) {
        int was = f.flags();
        if ((was & (WheelScheduledFuture.LIVE | WheelScheduledFuture.OUT)) != 0) {
            was = uncount(f.unregister());
        }
        if (f.isCancelled()) {
            boolean remove = removeOnCancel || (was & WheelScheduledFuture.REMOVING) != 0;
            // Out of the wheel, or never in it (a task with no delay): perhaps in the pool's queue.
            if (remove && callers == null
                    && ((was & WheelScheduledFuture.OUT) != 0
                        || (was & (WheelScheduledFuture.ARMED | WheelScheduledFuture.LIVE)) == 0)) {
                dequeue(f);
            }
            noteCancel(remove);
        }
        mayTerminate();
    }

    /**
     * The timer's worker, as {@code f}'s timeout expires: the executor
     * counts it live and out before the timer stops counting it, so that
     * {@link #liveTasks()} never misses it. Done meanwhile (cancelled), it
     * is taken off again by whichever of this and its finished() sees the
     * other (each writes, then reads, volatile fields).
     */
    void expiring(WheelScheduledFuture<?> f) {
        count(1);
        countOut(1);
        f.markHandedOver();
        if (f.isDone()) {
            uncount(f.unregister());
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

    /* The queue: tasks waiting for their time in the wheel, or for a thread in the pool's queue. */

    /**
     * A view of the tasks waiting: the delayed and periodic tasks in the
     * wheel, and the due ones queued for a thread of this pool, in deadline
     * order. Its {@code size()} is cheap (two striped sums and the pool
     * queue's count, no lock), as monitoring asks; iterating it asks the
     * timer's worker for its pending timeouts; removing a task from it
     * ({@code remove}, the iterator's, {@code poll}, {@code drainTo},
     * {@code clear}) cancels it, as {@link #remove} does. It takes no task
     * ({@code add}, {@code offer}, {@code put}: UnsupportedOperationException)
     * and waits for none ({@code take}, a timed {@code poll}: likewise).
     * Access to it is meant for monitoring and debugging, as
     * ThreadPoolExecutor's is.
     */
    @Override
    public BlockingQueue<Runnable> getQueue() {
        return queueView;
    }

    /** The view's size: the live tasks in the wheel, and the pool's queue. */
    int queuedTasks() {
        long n = inWheel() + poolQueue.size();
        return (int) Math.min(Integer.MAX_VALUE, n);
    }

    /** The view's remaining capacity: the delayed tasks the timer still takes. */
    int remainingDelayedCapacity() {
        long n = timer.maxPendingTimeouts() - timer.pendingTimeouts();
        return (int) Math.max(0, Math.min(Integer.MAX_VALUE, n));
    }

    /** Whether {@code o} waits: in the wheel, or in the pool's queue. */
    boolean isQueued(Object o) {
        return o instanceof WheelScheduledFuture<?> f && f.executor == this
               && (f.isInWheel() || poolQueue.contains(f));
    }

    /**
     * The tasks waiting, in deadline order (ties as they come: the pool's
     * queue first, in its order): a snapshot.
     */
    List<WheelScheduledFuture<?>> queuedSnapshot() {
        List<WheelScheduledFuture<?>> all = new ArrayList<>();
        Set<Object> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        for (Object r : poolQueue.toArray()) {
            if (r instanceof WheelScheduledFuture<?> f && seen.add(f)) {
                all.add(f);
            }
        }
        List<WheelTimeout> pending;
        try {
            pending = timer.pendingList();
        } catch (IllegalStateException stopped) {
            // The timer has stopped: it holds nothing.
            pending = List.of();
        }
        for (WheelTimeout t : pending) {
            if (t.task() instanceof WheelScheduledFuture<?> f && f.executor == this && f.isInWheel()
                    && seen.add(f)) {
                all.add(f);
            }
        }
        all.sort(BY_TIME);
        return all;
    }

    /**
     * Cancels {@code task} if it waits, for its time or for a thread, and
     * no run of it is under way, so that it never runs (again); false if
     * it was not waiting (running, done, not this executor's). As
     * ThreadPoolExecutor's {@code remove}, but the task is also cancelled
     * (ScheduledThreadPoolExecutor's leaves the future of a task it removed
     * not done for ever): a delayed task leaves the wheel only so.
     */
    @Override
    public boolean remove(Runnable task) {
        if (!(task instanceof WheelScheduledFuture<?> f) || f.executor != this) {
            return super.remove(task);
        }
        // Its done() takes it out of the pool's queue if it was there.
        return f.cancelIfNotRunning();
    }

    /**
     * Removes the cancelled tasks from the pool's queue (those in the wheel
     * left the count at their cancel), and has the timer's worker let go of
     * the cancelled tasks it still holds: when it returns, neither holds
     * any that was cancelled before the call.
     */
    @Override
    public void purge() {
        super.purge();
        timer.purge();
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
     * runs, and queued in the pool), neither done nor cancelled. A task
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
        if (callers == null) {
            List<Runnable> queued = new ArrayList<>();
            poolQueue.drainTo(queued);
            // What a thread took meanwhile, it runs; anything left, the pool's own drain takes.
            queued.addAll(super.shutdownNow());
            for (Runnable r : queued) {
                if (!(r instanceof WheelScheduledFuture<?> f) || !f.isDone() && seen.add(f)) {
                    never.add(r);
                }
            }
        }
        // The timer has stopped: it counts no periodic task's timeout.
        periodicTimeouts.set(0);
        for (Runnable r : never) {
            if (r instanceof WheelScheduledFuture<?> f) {
                uncount(f.withdraw());
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
     * shutdown()'s policies, on every task the timer holds and every one
     * queued in the pool (those cancelled there leave it, as
     * ScheduledThreadPoolExecutor's do from its queue at shutdown). The
     * others are due (a one-shot task then runs in any case), or are
     * periodic tasks running or re-arming, which check canRun() after they
     * re-arm; a task being scheduled checks it after the timer has it
     * (recheckAfterShutdown).
     */
    private void applyShutdownPolicies() {
        if (state != SHUTDOWN) {
            return;
        }
        boolean keepDelayed = executeDelayedAfterShutdown;
        boolean keepPeriodic = continuePeriodicAfterShutdown;
        if (!keepDelayed || !keepPeriodic) {
            List<WheelTimeout> pending;
            try {
                pending = timer.pendingList();
            } catch (IllegalStateException stopped) {
                // The timer has stopped: it holds nothing.
                pending = List.of();
            }
            for (WheelTimeout t : pending) {
                if (t.task() instanceof WheelScheduledFuture<?> f
                        && (f.isPeriodic() ? !keepPeriodic && !f.isRunning()
                            : !keepDelayed && f.getDelay(TimeUnit.NANOSECONDS) > 0)) {
                    f.cancel(false);
                }
            }
        }
        if (callers == null) {
            for (Object r : poolQueue.toArray()) {
                // A thread that took it meanwhile runs it, if canRun() says so.
                if (r instanceof WheelScheduledFuture<?> f
                        && (f.isCancelled() || f.isPeriodic() && !keepPeriodic)
                        && dequeue(f)) {
                    f.cancel(false);
                }
            }
        }
    }

    /**
     * Once shut down with no task live, the timer has nothing left to
     * do: stop it (waiting for its worker, so never from the worker itself,
     * nor under the pool's lock, which the worker may need to start a pool
     * thread), then let the pool run what it holds and end.
     */
    private void tryTerminate() {
        int s = state;
        if (s == RUNNING || s == TERMINATED || liveTasks() != 0
                || !TERMINATING.compareAndSet(this, false, true)) {
            return;
        }
        if (Thread.currentThread() == timerThread) {
            getThreadFactory().newThread(this::stopTimerThenPool).start();
        } else {
            stopTimerThenPool();
        }
    }

    /** The pool's terminated() then calls terminate(), once its queue is run. */
    private void stopTimerThenPool() {
        timer.stop();
        super.shutdown();
    }

    /** The pool's, under its lock, once it has ended: only says so. */
    @Override
    protected void terminated() {
        terminate();
    }

    /** The timer has stopped and the pool ended: the executor has terminated. */
    private void terminate() {
        advanceState(TERMINATED);
        terminated.countDown();
    }

    @Override
    public boolean isShutdown() {
        return state != RUNNING;
    }

    /** Between {@code shutdown()} (or {@code shutdownNow()}) and termination. */
    @Override
    public boolean isTerminating() {
        int s = state;
        return s != RUNNING && s != TERMINATED;
    }

    @Override
    public boolean isTerminated() {
        return state == TERMINATED;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return terminated.await(timeout, unit);
    }

    /* ThreadPoolExecutor's face, where this one differs from the pool's. */

    /**
     * As ScheduledThreadPoolExecutor's: the tasks completed, running and
     * waiting (in the wheel and in the pool's queue); a task cancelled
     * leaves the count with the queue (at once in the wheel, as
     * {@link #setRemoveOnCancelPolicy} says in the pool's queue). Takes the
     * pool's lock, as ThreadPoolExecutor's does.
     */
    @Override
    public long getTaskCount() {
        return super.getTaskCount() + inWheel();
    }

    /** Called with each future refused, and this executor. */
    @Override
    public RejectedExecutionHandler getRejectedExecutionHandler() {
        return handler;
    }

    @Override
    public void setRejectedExecutionHandler(RejectedExecutionHandler handler) {
        this.handler = Objects.requireNonNull(handler, "handler");
    }

    /* The policies of ScheduledThreadPoolExecutor, with its defaults. */

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
     * Whether a cancelled task is let go of at its cancel (true), or may be
     * kept until its delay would have passed or {@link #purge()} runs
     * (false, the default, as ScheduledThreadPoolExecutor's). It leaves the
     * counts and the queue's view at its cancel in either case. Queued for
     * a thread, it leaves the pool's queue then (true) or when a thread
     * takes it (false). In the wheel, the timer's worker lets go of it at
     * its next round: with true, the cancels wake it about every
     * {@value #CANCELS_PER_WAKE} of a thread, and when nothing is left
     * pending; with false, only the latter, and it otherwise wakes
     * for the next schedule, deadline or far bucket, where
     * ScheduledThreadPoolExecutor keeps the task until its delay has
     * passed.
     */
    public void setRemoveOnCancelPolicy(boolean value) {
        removeOnCancel = value;
    }

    /** See {@link #setRemoveOnCancelPolicy}. */
    public boolean getRemoveOnCancelPolicy() {
        return removeOnCancel;
    }

    /* What ScheduledThreadPoolExecutor's interface cannot say. */

    /**
     * The delayed and periodic tasks neither done, cancelled nor given back
     * by {@code shutdownNow()}, those due and not yet run included (with a
     * caller's executor, also the tasks with no delay given to it).
     */
    public long pendingTasks() {
        long delayed = delayedInTimer();
        return delayed + sum(0);
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

    /** As ThreadPoolExecutor's (whose counts take its lock), with the timer. */
    @Override
    public String toString() {
        String[] names = {"Running", "Shutting down", "Stopping", "Terminated"};
        return getClass().getSimpleName() + "@" + Integer.toHexString(hashCode()) + "[" + names[state]
                + ", pool size = " + getPoolSize() + ", active threads = " + getActiveCount()
                + ", queued tasks = " + queuedTasks() + ", completed tasks = " + getCompletedTaskCount()
                + (callers != null ? ", executor " + callers : "") + ", " + timer + "]";
    }
}
