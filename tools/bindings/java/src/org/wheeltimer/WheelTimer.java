// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * WheelTimer.java - io.netty.util.Timer on libwheeltimer: the public
 * face, and the hand-over from any thread to the worker
 */
package org.wheeltimer;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;

import java.lang.ref.Cleaner;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link Timer} whose timeouts live in libwheeltimer: in the kernel's
 * {@code /dev/wheeltimer} where the module is loaded, else in the library's
 * in-process engine (the same timing wheel, driven by one timerfd). A
 * drop-in for Netty's {@code HashedWheelTimer}: the constructors take the
 * same arguments, so that
 *
 * <pre>{@code
 * Timer timer = new HashedWheelTimer(threadFactory, 100, TimeUnit.MILLISECONDS);
 * }</pre>
 *
 * becomes
 *
 * <pre>{@code
 * Timer timer = new WheelTimer(threadFactory, 100, TimeUnit.MILLISECONDS);
 * }</pre>
 *
 * <h2>No tick</h2>
 *
 * One worker thread runs the tasks, as {@code HashedWheelTimer}'s does,
 * but it never ticks: it sleeps in the library's {@code wheeltimer_wait()},
 * and wakes when a timeout is due, when a {@code newTimeout()} from another
 * thread finds it asleep and ends the wait with {@code wheeltimer_wake()}
 * (the library's one call that any thread may make), or for
 * {@link #stop()}, {@link #advance} and {@link #stats()}. With any number
 * of timeouts pending and none due, it does not wake at all. The tick
 * duration of the constructors is the wheel's resolution: a task runs at
 * most about one resolution after its deadline, never before it. Lowering
 * it costs no idle wake-ups, unlike a {@code HashedWheelTimer} tick. A
 * {@link #newTimeout(TimerTask, long, TimeUnit)} due a second or more
 * ahead, made while the worker sleeps, reads no clock: its delay counts
 * from a reading the worker takes once a round, after the round met it,
 * or from the timeout's first {@link WheelTimeout#deadlineNanos()},
 * whichever comes first; never from before the call, at most the rest of
 * the worker's sleep and the tasks then due after it (see
 * {@link HandOver}'s rule 9).
 *
 * <h2>Threads</h2>
 *
 * A libwheeltimer context may be used by one thread at a time, and only the
 * worker uses it, but for {@code wheeltimer_wake()}. {@code newTimeout()}
 * and {@code cancel()} may be called from any thread. {@code newTimeout()}
 * puts the timeout in a lock-free queue (one compare-and-set), which the
 * worker drains each round and hands to the library in one batch, cancels
 * first; {@code cancel()} is a compare-and-set on the timeout, and queues
 * it again only if the worker had handed it to the engine (one cancelled
 * before that never reaches the engine).
 * {@code newTimeout()} wakes the worker ({@code wheeltimer_wake()}) only if
 * the worker is asleep (at most one call per sleep, whatever the number of
 * callers), and not even then if the worker is lingering: after a round
 * that took new timeouts it sleeps at
 * most {@value HandOver#LINGER_NANOS} ns and says so, and a timeout due
 * {@value HandOver#DEFER_MARGIN_NANOS} ns or more after that waits for it. A
 * burst of calls so costs one wake-up per linger, not one per call.
 * {@code cancel()} never wakes it: the cancelled timeout's own deadline
 * bounds how long the worker may sleep before it sees the cancel. What
 * passes between the callers and the worker, and why it is safe, is
 * {@link HandOver}'s.
 *
 * <h2>Exact cancel, pending counts, limits</h2>
 *
 * See {@link WheelTimeout} for the exact cancel. {@link #pendingTimeouts()}
 * counts the timeouts scheduled and neither cancelled nor handed to the
 * worker to run; unlike {@code HashedWheelTimer}'s it drops at the
 * {@code cancel()} itself, not at the next tick. The engine's own limit
 * ({@code max_pending}) is set to {@code maxPendingTimeouts}, or to the
 * engine's default (1048576 timeouts, the module's {@code max_pending}
 * parameter) when that is 0 or negative: a {@code newTimeout()} beyond it
 * throws {@link RejectedExecutionException}, as {@code HashedWheelTimer}
 * does beyond its own limit, so that memory is bounded even where
 * {@code HashedWheelTimer} would have none. The worker hands cancels to the
 * engine before adds, so the engine never holds more than the limit.
 *
 * <p>Should the engine still refuse a timeout (the kernel's per-user memory
 * limit), the timeout is cancelled by the timer (its {@code isCancelled()}
 * becomes {@code true}, its task never runs) and a warning is logged.
 *
 * <h2>Tasks</h2>
 *
 * Tasks run one at a time on the worker. One that throws is logged
 * ({@link System.Logger} {@code org.wheeltimer.WheelTimer}, WARNING) and
 * the timer goes on. A task may schedule and cancel timeouts, and call
 * {@link #stats()}; it may not call {@link #stop()} or {@link #advance}.
 *
 * <h2>Beyond Netty's interface</h2>
 *
 * {@link #builder()} opens a timer on a chosen engine, with a virtual clock
 * for tests ({@link #advance}); {@link #newTimeout(TimerTask, long, long,
 * TimeUnit)} takes a slack; {@link #scheduleAtFixedRate} and
 * {@link #scheduleWithFixedDelay} make periodic timeouts that the engine
 * re-arms by itself; {@link #stats()} returns the engine's counters and the
 * worker's.
 *
 * <p>The JNI library is found as {@link Native} says: the system property
 * {@code wheeltimer.jni.path}, else {@code java.library.path}.
 */
public final class WheelTimer implements Timer {
    static final System.Logger LOG = System.getLogger(WheelTimer.class.getName());

    /** The default resolution, as libwheeltimer's: 1 ms. */
    public static final long DEFAULT_RESOLUTION_NANOS = 1_000_000L;
    /**
     * How far ahead a {@link #newTimeout(TimerTask, long, TimeUnit)} must be
     * due to be made without a reading of the clock: a second (see there).
     */
    static final long AHEAD_NANOS = 1_000_000_000L;
    private static final long MIN_RESOLUTION_NANOS = 1_000L;
    private static final long MAX_RESOLUTION_NANOS = 3_600_000_000_000L;

    private static final Cleaner CLEANER = Cleaner.create();
    private static final AtomicInteger THREAD_NUMBER = new AtomicInteger();

    /* What the timer was opened with. */
    final long ctx;
    private final Engine engine;
    private final long resolution;
    private final long maxPending;
    private final long features;
    private final boolean virtualClock;
    /** The latest reading of the virtual clock, set by the worker. */
    volatile long virtualNow;
    /** The deadline no timeout may pass: the engine's last tick. */
    private final long lastDeadline;
    /** Read the clock through JNI: System.nanoTime() is not CLOCK_MONOTONIC here. */
    private final boolean nativeClock;

    /** What the worker runs after each chunk of a round's tasks, or null (see Builder.afterChunk). */
    final Runnable afterChunk;
    /** Everything that passes between callers and the worker. */
    final HandOver handOver;
    private final Thread workerThread;
    private final Worker worker;
    private final NativeCloser closer;
    private final Cleaner.Cleanable cleanable;

    /** Counted down once start() has started the worker thread. */
    private final CountDownLatch workerStarted = new CountDownLatch(1);

    /** A timer with the default thread factory and resolution (1 ms). */
    public WheelTimer() {
        this(defaultThreadFactory());
    }

    /** As {@code HashedWheelTimer(long, TimeUnit)}: the tick is the resolution. */
    public WheelTimer(long tickDuration, TimeUnit unit) {
        this(defaultThreadFactory(), tickDuration, unit);
    }

    /** As {@code HashedWheelTimer(long, TimeUnit, int)}; see {@link #WheelTimer(ThreadFactory, long, TimeUnit, int, boolean, long)}. */
    public WheelTimer(long tickDuration, TimeUnit unit, int ticksPerWheel) {
        this(defaultThreadFactory(), tickDuration, unit, ticksPerWheel);
    }

    /** As {@code HashedWheelTimer(ThreadFactory)}, with the default resolution (1 ms). */
    public WheelTimer(ThreadFactory threadFactory) {
        this(threadFactory, DEFAULT_RESOLUTION_NANOS, TimeUnit.NANOSECONDS);
    }

    /** As {@code HashedWheelTimer(ThreadFactory, long, TimeUnit)}. */
    public WheelTimer(ThreadFactory threadFactory, long tickDuration, TimeUnit unit) {
        this(threadFactory, tickDuration, unit, 512);
    }

    /** As {@code HashedWheelTimer(ThreadFactory, long, TimeUnit, int)}. */
    public WheelTimer(ThreadFactory threadFactory, long tickDuration, TimeUnit unit,
                      int ticksPerWheel) {
        this(threadFactory, tickDuration, unit, ticksPerWheel, true);
    }

    /** As {@code HashedWheelTimer(ThreadFactory, long, TimeUnit, int, boolean)}. */
    public WheelTimer(ThreadFactory threadFactory, long tickDuration, TimeUnit unit,
                      int ticksPerWheel, boolean leakDetection) {
        this(threadFactory, tickDuration, unit, ticksPerWheel, leakDetection, -1);
    }

    /**
     * As {@code HashedWheelTimer}'s constructor of the same arguments, which
     * refuses the same out-of-range arguments with the same exception.
     *
     * @param threadFactory      makes the worker thread
     * @param tickDuration       the wheel's resolution: a task runs at most
     *                           about this late. It must be positive and at
     *                           most 1 hour (the engine's coarsest tick); one
     *                           below 1 us is raised to 1 us, with a warning
     *                           logged, as Netty raises one below 1 ms
     * @param unit               the unit of {@code tickDuration}
     * @param ticksPerWheel      1 .. 2^30, as Netty's; otherwise unused (the
     *                           wheel's geometry is the engine's), but, as
     *                           Netty's, the tick in ns times this number
     *                           rounded up to a power of two must stay below
     *                           {@link Long#MAX_VALUE}
     * @param leakDetection      unused: a timer that becomes unreachable before
     *                           its worker started releases its native side by
     *                           itself; one whose worker runs must be stopped
     * @param maxPendingTimeouts the most pending timeouts; 0 or negative for
     *                           the engine's default limit (see above); at
     *                           most the engine's {@code max_pending_limit}
     *                           (2^24 unless the module says otherwise)
     * @throws NullPointerException     if {@code threadFactory} or {@code unit} is null
     * @throws IllegalArgumentException if an argument is out of the ranges above
     * @throws WheelTimerException      if the engine cannot be opened
     */
    public WheelTimer(ThreadFactory threadFactory, long tickDuration, TimeUnit unit,
                      int ticksPerWheel, boolean leakDetection, long maxPendingTimeouts) {
        this(new Builder().threadFactory(threadFactory)
                     .resolution(checkTick(tickDuration, unit, ticksPerWheel), TimeUnit.NANOSECONDS)
                     .maxPendingTimeouts(maxPendingTimeouts));
    }

    /** Netty's checks of the tick and the wheel; returns the tick in ns. */
    private static long checkTick(long tickDuration, TimeUnit unit, int ticksPerWheel) {
        Objects.requireNonNull(unit, "unit");
        if (tickDuration <= 0) {
            throw new IllegalArgumentException("tickDuration must be greater than 0: " + tickDuration);
        }
        if (ticksPerWheel <= 0 || ticksPerWheel > 1 << 30) {
            throw new IllegalArgumentException("ticksPerWheel must be in 1 .. 2^30: " + ticksPerWheel);
        }
        // Netty's wheel has ticksPerWheel rounded up to a power of two.
        long wheel = Long.highestOneBit(ticksPerWheel);
        if (wheel < ticksPerWheel) {
            wheel <<= 1;
        }
        long nanos = unit.toNanos(tickDuration);
        if (nanos >= Long.MAX_VALUE / wheel) {
            throw new IllegalArgumentException("tickDuration: " + tickDuration + " " + unit
                    + " (expected: 0 < tickDuration in nanos < " + Long.MAX_VALUE / wheel
                    + " with " + ticksPerWheel + " ticks per wheel)");
        }
        return nanos;
    }

    /**
     * The one rule of every entry point: {@code nanos} must be positive and
     * at most {@link #MAX_RESOLUTION_NANOS}; below {@link #MIN_RESOLUTION_NANOS}
     * it is raised to it, with a warning, as Netty raises a tick below 1 ms.
     */
    static long checkResolution(long nanos) {
        if (nanos <= 0 || nanos > MAX_RESOLUTION_NANOS) {
            throw new IllegalArgumentException("the resolution (tick duration) must be above 0 and"
                    + " at most 1 hour: " + nanos + " ns");
        }
        if (nanos < MIN_RESOLUTION_NANOS) {
            LOG.log(System.Logger.Level.WARNING, "Configured resolution {0} ns is below {1} ns,"
                    + " using {1} ns.", nanos, MIN_RESOLUTION_NANOS);
            return MIN_RESOLUTION_NANOS;
        }
        return nanos;
    }

    private WheelTimer(Builder b) {
        Objects.requireNonNull(b.threadFactory, "threadFactory");
        Native.ensureLoaded();
        long[] io = new long[Native.IO_WORDS];
        Engine want = Engine.resolve(b.engine);
        io[Native.IO_ENGINE] = want.code;
        io[Native.IO_RESOLUTION] = b.resolution;
        io[Native.IO_MAX_PENDING] = b.maxPending > 0 ? b.maxPending : 0;
        io[Native.IO_CLOCKID] = Native.CLOCK_MONOTONIC;
        io[Native.IO_FLAGS] = b.virtualClock ? Native.PARAM_VIRTUAL : 0;
        long c = Native.open(io);
        if (c == 0) {
            long err = io[Native.IO_ERROR];
            String what = "wheeltimer_open(engine " + want.name().toLowerCase(Locale.ROOT)
                    + ", resolution " + b.resolution + " ns, max_pending "
                    + io[Native.IO_MAX_PENDING] + ")";
            if (-err == Native.EPERM) {
                what += " (above the module's max_pending without CAP_SYS_RESOURCE?)";
            }
            WheelTimerException e = Native.error(what, err);
            // Every other parameter is checked above: the limit is out of range.
            if (-err == Native.EINVAL && b.maxPending > 0) {
                throw new IllegalArgumentException("maxPendingTimeouts " + b.maxPending
                        + " is above the " + want.name().toLowerCase(Locale.ROOT)
                        + " engine's limit", e);
            }
            throw e;
        }
        ctx = c;
        closer = new NativeCloser(c);
        try {
            engine = Engine.of((int) io[Native.IO_ENGINE]);
            resolution = b.resolution;
            maxPending = io[Native.IO_MAX_PENDING];
            features = io[Native.IO_FEATURES];
            virtualClock = b.virtualClock;
            afterChunk = b.afterChunk;
            lastDeadline = Long.MAX_VALUE / resolution * resolution;
            nativeClock = !virtualClock && !nanoTimeIsMonotonic();
            handOver = new HandOver(c, virtualClock, maxPending, this);
            if (virtualClock) {
                long[] now = new long[1];
                int res = Native.now(c, now);
                if (res < 0) {
                    throw Native.error("wheeltimer_now", res);
                }
                virtualNow = now[0];
            }
            worker = new Worker(this);
            Thread thread = b.threadFactory.newThread(worker);
            if (thread == null) {
                throw new IllegalStateException("the thread factory made no thread");
            }
            workerThread = thread;
        } catch (RuntimeException | Error e) {
            closer.run();
            throw e;
        }
        cleanable = CLEANER.register(this, closer);
    }

    /** Whether System.nanoTime() reads CLOCK_MONOTONIC, as HotSpot's does on Linux. */
    private static boolean nanoTimeIsMonotonic() {
        for (int i = 0; i < 3; i++) {
            long before = System.nanoTime();
            long mono = Native.clock(Native.CLOCK_MONOTONIC);
            long after = System.nanoTime();
            if (before <= mono && mono <= after) {
                return true;
            }
        }
        return false;
    }

    private static ThreadFactory defaultThreadFactory() {
        return r -> new Thread(r, "wheeltimer-" + THREAD_NUMBER.incrementAndGet());
    }

    /** A builder for the options Netty's constructors cannot say. */
    public static Builder builder() {
        return new Builder();
    }

    /** Options of a {@link WheelTimer}; {@link #build()} opens it. */
    public static final class Builder {
        private ThreadFactory threadFactory = defaultThreadFactory();
        private long resolution = DEFAULT_RESOLUTION_NANOS;
        private long maxPending = -1;
        private Engine engine = Engine.AUTO;
        private boolean virtualClock;
        private Runnable afterChunk;

        private Builder() {
        }

        /**
         * Run by the worker after the tasks of each chunk of a round (the
         * records it takes from the engine at once) have run: the
         * executor's, which hands them to its pool's queue together.
         */
        Builder afterChunk(Runnable r) {
            this.afterChunk = Objects.requireNonNull(r, "afterChunk");
            return this;
        }

        /** The factory of the worker thread. */
        public Builder threadFactory(ThreadFactory factory) {
            this.threadFactory = Objects.requireNonNull(factory, "threadFactory");
            return this;
        }

        /**
         * The wheel's resolution (default 1 ms): above 0 and at most 1 hour;
         * one below 1 us is raised to 1 us, with a warning logged.
         *
         * @throws IllegalArgumentException if it is 0 or less, or above 1 hour
         */
        public Builder resolution(long duration, TimeUnit unit) {
            this.resolution = checkResolution(unit.toNanos(duration));
            return this;
        }

        /**
         * As Netty's {@code maxPendingTimeouts}; 0 or negative: the engine's
         * default limit. {@link #build()} refuses one above the engine's
         * {@code max_pending_limit} (2^24 unless the module says otherwise)
         * with {@link IllegalArgumentException}.
         */
        public Builder maxPendingTimeouts(long max) {
            this.maxPending = max;
            return this;
        }

        /**
         * The engine; {@link Engine#AUTO} (the default) lets the system property
         * {@value Engine#PROPERTY}, then the library, choose.
         */
        public Builder engine(Engine engine) {
            this.engine = Objects.requireNonNull(engine, "engine");
            return this;
        }

        /**
         * A virtual clock: it starts at 0 and moves only by {@link WheelTimer#advance}.
         * Deadlines are then exact: a task runs during the {@code advance()} that
         * reaches its deadline, never earlier, whatever the machine's speed.
         */
        public Builder virtualClock(boolean virtual) {
            this.virtualClock = virtual;
            return this;
        }

        /**
         * Opens the timer.
         *
         * @throws IllegalArgumentException if {@code maxPendingTimeouts} is above
         *                                  the engine's limit
         * @throws WheelTimerException      if the engine cannot be opened
         */
        public WheelTimer build() {
            return new WheelTimer(this);
        }
    }

    /**
     * Starts the worker. It starts by itself with the first timeout.
     *
     * @throws IllegalStateException if the timer has been stopped
     */
    public void start() {
        switch (handOver.state()) {
        case HandOver.INIT:
            if (handOver.begin()) {
                startWorker();
            } else if (handOver.state() == HandOver.SHUTDOWN) {
                throw new IllegalStateException("cannot be started once stopped");
            }
            break;
        case HandOver.STARTED:
            break;
        default:
            throw new IllegalStateException("cannot be started once stopped");
        }
    }

    private void startWorker() {
        try {
            workerThread.start();
        } catch (RuntimeException | Error e) {
            handOver.end();
            cleanable.clean();
            throw e;
        } finally {
            workerStarted.countDown();
        }
    }

    /**
     * Schedules {@code task} to run once after {@code delay}, as
     * {@code HashedWheelTimer} does (a delay of 0 or less: as soon as the
     * worker can).
     *
     * @throws NullPointerException       if {@code task} or {@code unit} is null
     * @throws RejectedExecutionException if {@link #pendingTimeouts()} is at the limit
     * @throws IllegalStateException      if the timer has been stopped
     */
    @Override
    public WheelTimeout newTimeout(TimerTask task, long delay, TimeUnit unit) {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(unit, "unit");
        long nanos = unit.toNanos(delay);
        if (nanos >= AHEAD_NANOS && !virtualClock) {
            // Its delay counts from the worker's next reading of the clock.
            Lane lane = admit();
            WheelTimeout t = new TaskTimeout(lane, task, -nanos);
            return handed(t, handOver.addAhead(t, lane));
        }
        // The deadline counts from the call, not from whatever start() costs.
        long now = nanoTime();
        long deadline = deadlineAfter(now, nanos);
        Lane lane = admit();
        return hand(new TaskTimeout(lane, task, deadline), now, lane);
    }

    /**
     * As {@link #newTimeout(TimerTask, long, TimeUnit)}, letting the engine run
     * the task up to {@code slack} later than its deadline plus one resolution,
     * so that neighbouring timeouts share a wake-up.
     *
     * @throws UnsupportedOperationException if the engine has no slack
     */
    public WheelTimeout newTimeout(TimerTask task, long delay, long slack, TimeUnit unit) {
        return schedule(task, delay, 0, slack, 0, unit);
    }

    /**
     * Runs {@code task} first after {@code initialDelay}, then every
     * {@code period} after that first deadline (FIXED_RATE): deadlines do not
     * drift. Periods that pass while the worker is late or the task still runs
     * are skipped and counted ({@link WheelTimeout#overruns()}), not made up
     * for. The engine re-arms the timeout itself, without a call per period.
     * {@link WheelTimeout#cancel()} ends it.
     *
     * @throws IllegalArgumentException      if {@code period} is not positive
     * @throws UnsupportedOperationException if the engine has no periodic timeouts
     */
    public WheelTimeout scheduleAtFixedRate(TimerTask task, long initialDelay, long period,
                                            TimeUnit unit) {
        return scheduleAtFixedRate(task, initialDelay, period, 0, unit);
    }

    /** {@link #scheduleAtFixedRate(TimerTask, long, long, TimeUnit)} with a slack. */
    public WheelTimeout scheduleAtFixedRate(TimerTask task, long initialDelay, long period,
                                            long slack, TimeUnit unit) {
        return schedule(task, initialDelay, checkPeriod(period), slack, Native.FIXED_RATE, unit);
    }

    /**
     * Runs {@code task} first after {@code initialDelay}, then {@code delay}
     * after each time the worker collects the firing, just before it runs
     * the task (libwheeltimer's FIXED_DELAY): a late worker never gets a
     * burst of runs. A run longer than {@code delay} is followed by the next
     * at once. {@link WheelTimeout#cancel()} ends it.
     *
     * @throws IllegalArgumentException      if {@code delay} is not positive
     * @throws UnsupportedOperationException if the engine has no periodic timeouts
     */
    public WheelTimeout scheduleWithFixedDelay(TimerTask task, long initialDelay, long delay,
                                               TimeUnit unit) {
        return scheduleWithFixedDelay(task, initialDelay, delay, 0, unit);
    }

    /** {@link #scheduleWithFixedDelay(TimerTask, long, long, TimeUnit)} with a slack. */
    public WheelTimeout scheduleWithFixedDelay(TimerTask task, long initialDelay, long delay,
                                               long slack, TimeUnit unit) {
        return schedule(task, initialDelay, checkPeriod(delay), slack, Native.FIXED_DELAY, unit);
    }

    private static long checkPeriod(long period) {
        if (period <= 0) {
            throw new IllegalArgumentException("period must be positive: " + period);
        }
        return period;
    }

    private WheelTimeout schedule(TimerTask task, long delay, long period, long slack, int mode,
                                  TimeUnit unit) {
        long now = nanoTime();
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(unit, "unit");
        long periodNanos = unit.toNanos(period);
        long slackNanos = unit.toNanos(slack);
        if (slackNanos < 0) {
            throw new IllegalArgumentException("slack must not be negative: " + slack);
        }
        if (slackNanos != 0 && (features & Native.FEATURE_SLACK) == 0) {
            throw new UnsupportedOperationException("the " + engine + " engine has no slack");
        }
        if (mode != 0 && (features & Native.FEATURE_PERIODIC) == 0) {
            throw new UnsupportedOperationException("the " + engine + " engine has no periodic timeouts");
        }
        long deadline = deadlineAfter(now, unit.toNanos(delay));
        Lane lane = admit();
        if (slackNanos == 0 && mode == 0) {
            return hand(new TaskTimeout(lane, task, deadline), now, lane);
        }
        return hand(new SlackOrPeriodicTimeout(lane, task, deadline, slackNanos, periodNanos, mode),
                    now, lane);
    }

    /**
     * Counts a new timeout against the limit and starts the worker;
     * returns the lane to push it into.
     *
     * @throws RejectedExecutionException at the limit
     * @throws IllegalStateException      once stopped
     */
    private Lane admit() {
        Lane lane = handOver.admit();
        if (lane == null) {
            throw atTheLimit();
        }
        if (handOver.state() != HandOver.STARTED) {
            try {
                start();
            } catch (IllegalStateException e) {
                handOver.countDown();
                throw e;
            }
        }
        return lane;
    }

    /** The exception of a newTimeout() at the limit, as Netty's says it. */
    private RejectedExecutionException atTheLimit() {
        return new RejectedExecutionException("Number of pending timeouts (" + (handOver.pending() + 1)
                + ") is greater than or equal to maximum allowed pending timeouts ("
                + maxPending + ")");
    }

    /** Hands a new timeout made at {@code now} to the worker, through the {@code lane} its admission gave. */
    private WheelTimeout hand(WheelTimeout t, long now, Lane lane) {
        return handed(t, handOver.add(t, now, lane));
    }

    /** {@code t}, if the hand-over took it ({@code added}); else stop() came first. */
    private static WheelTimeout handed(WheelTimeout t, boolean added) {
        if (!added) {
            throw new IllegalStateException("cannot be started once stopped");
        }
        return t;
    }

    /**
     * WheelScheduledExecutor's: the deadline {@code delay} ns from now, as
     * {@code newTimeout()} computes it, for a timeout it makes itself.
     */
    long deadlineIn(long delay) {
        return deadlineAfter(nanoTime(), delay);
    }

    /**
     * WheelScheduledExecutor's: counts a timeout it is about to
     * {@link #add}, as {@code newTimeout()} counts the one it makes, so
     * that {@link #pendingTimeouts()} includes it from here on; returns
     * the lane to give to {@link #add}.
     *
     * @throws RejectedExecutionException if {@link #pendingTimeouts()} is at the limit
     * @throws IllegalStateException      if the timer has been stopped
     */
    Lane count() {
        return admit();
    }

    /** WheelScheduledExecutor's: takes back a {@link #count()} for a timeout it will not add. */
    void uncount() {
        handOver.countDown();
    }

    /**
     * WheelScheduledExecutor's: schedules {@code t}, counted by
     * {@link #count()}, which gave {@code lane}, a timeout it made itself
     * (one of its futures) with {@link #deadlineIn} {@code delay} ns from
     * now, as {@code newTimeout()} schedules the one it makes (deadline -
     * delay stands for the reading of the clock, so that a schedule reads
     * it once).
     *
     * @throws IllegalStateException if the timer has been stopped (then uncounted)
     */
    void add(WheelTimeout t, long delay, Lane lane) {
        hand(t, t.deadline - delay, lane);
    }

    /** The absolute deadline {@code delay} ns after {@code now}, within the engine's range. */
    long deadlineAfter(long now, long delay) {
        long d = now + delay;
        if (delay > 0 && d < now) {
            return lastDeadline;
        }
        return Math.max(0, Math.min(d, lastDeadline));
    }

    /** WheelScheduledExecutor's: wakes the worker if it is asleep, so that it takes the cancels. */
    void wakeWorker() {
        handOver.wake();
    }

    /** The worker's, when it ends: no wake() may be under way when the native side closes. */
    void closeNative() {
        handOver.closing();
        cleanable.clean();
    }

    boolean isWorkerThread() {
        return Thread.currentThread() == workerThread;
    }

    /**
     * Stops the worker and releases the engine, cancels every timeout still
     * pending, and returns those it cancelled (each {@link
     * Timeout#isCancelled()}), as {@link Timer#stop()} says and Netty's
     * {@code HashedWheelTimer} does since 4.1.111 (4.1.48's returned them
     * uncancelled). Each is cancelled by the same compare-and-set as
     * {@link WheelTimeout#cancel()}, so it is exact: a one-shot timeout
     * either ran (or is running) and is not returned, or is returned and
     * never runs, also when stop() races its expiry; one that a caller
     * cancelled first is not returned. A periodic timeout between two runs
     * is returned: what stop() cancels is its next run. A task running when
     * stop() is called finishes first. Later calls return an empty set.
     *
     * @throws IllegalStateException if called from a task
     */
    @Override
    public Set<Timeout> stop() {
        if (isWorkerThread()) {
            throw new IllegalStateException(
                    "WheelTimer.stop() cannot be called from " + TimerTask.class.getSimpleName());
        }
        int was = handOver.end();
        if (was != HandOver.STARTED) {
            if (was == HandOver.INIT) {
                cleanable.clean();
            }
            return Collections.emptySet();
        }
        boolean interrupted = false;
        // STARTED: start() is starting the thread, if it has not yet.
        while (workerStarted.getCount() != 0) {
            try {
                workerStarted.await();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        handOver.signal();
        while (workerThread.isAlive()) {
            try {
                workerThread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return worker.unprocessed();
    }

    /**
     * The timeouts scheduled and neither cancelled nor handed to the worker
     * to run (a periodic one counts until it ends).
     */
    public long pendingTimeouts() {
        return handOver.pending();
    }

    /**
     * WheelScheduledExecutor's: whether {@link #pendingTimeouts()} is 0,
     * most often told without reading every stripe's count.
     */
    boolean nonePending() {
        return handOver.nonePending();
    }

    /** The limit of {@link #pendingTimeouts()}: the engine's {@code max_pending}. */
    public long maxPendingTimeouts() {
        return maxPending;
    }

    /** The engine that serves this timer. */
    public Engine engine() {
        return engine;
    }

    /** The wheel's resolution in ns. */
    public long resolutionNanos() {
        return resolution;
    }

    /** Whether the clock is virtual ({@link Builder#virtualClock}). */
    public boolean isVirtualClock() {
        return virtualClock;
    }

    /**
     * The timer's clock, in ns: CLOCK_MONOTONIC (what {@link System#nanoTime()}
     * reads on Linux), or the virtual clock. Deadlines are on this clock.
     */
    public long nanoTime() {
        if (virtualClock) {
            return virtualNow;
        }
        return nativeClock ? Native.clock(Native.CLOCK_MONOTONIC) : System.nanoTime();
    }

    /**
     * Moves the virtual clock forward by {@code amount} and returns when every
     * task due by the new time has run (including those scheduled, due, by
     * the tasks that ran): the number of timeouts that fired. The clock
     * moves in one jump, as libwheeltimer's {@code wheeltimer_advance()}
     * does: the tasks run after it, in deadline order, and read the new
     * time from {@link #nanoTime()}. To have tasks see their own times,
     * advance in steps no longer than the spacing that matters.
     *
     * @throws IllegalStateException if the clock is not virtual, the timer is
     *                               stopped, or this is called from a task
     */
    public long advance(long amount, TimeUnit unit) {
        if (!virtualClock) {
            throw new IllegalStateException("advance() needs a virtual clock");
        }
        long nanos = unit.toNanos(amount);
        if (nanos < 0) {
            throw new IllegalArgumentException("amount must not be negative: " + amount);
        }
        if (isWorkerThread()) {
            throw new IllegalStateException("advance() cannot be called from a task");
        }
        return onWorker(() -> worker.advance(nanos));
    }

    /**
     * The engine's counters and the worker's, read by the worker. Called from
     * another thread, it first hands what was scheduled and cancelled to the
     * engine, so that the engine's counters include it; called from a task,
     * it reads them as the round that runs the task found them (the
     * timeouts due when the worker took them count as fired and run from
     * when the round takes them to run, as the engine's count from when
     * the round reaps them).
     */
    public WheelTimerStats stats() {
        if (isWorkerThread()) {
            return worker.stats();
        }
        return onWorker(worker::stats);
    }

    /**
     * WheelScheduledExecutor's purge(): the worker lets go of every timeout
     * cancelled so far (see {@link Worker#purge()}); nothing once stopped.
     */
    void purge() {
        if (isWorkerThread()) {
            worker.purge();
            return;
        }
        if (handOver.state() != HandOver.STARTED) {
            return;
        }
        try {
            onWorker(() -> {
                worker.purge();
                return null;
            });
        } catch (IllegalStateException stopped) {
            // Stopped meanwhile: it holds nothing.
        }
    }

    /**
     * WheelScheduledExecutor's: the timeouts pending in the engine, and
     * those not yet handed to it (see {@link Worker#pending()}); none if the
     * worker never started.
     *
     * @throws IllegalStateException if the timer has stopped
     */
    List<WheelTimeout> pendingList() {
        if (handOver.state() == HandOver.INIT) {
            return List.of();
        }
        return isWorkerThread() ? worker.pending() : onWorker(worker::pending);
    }

    /** The worker thread's kernel thread id (for /proc/self/task/ID), 0 until it started. */
    public int workerThreadId() {
        return worker.tid();
    }

    private <T> T onWorker(Callable<T> call) {
        start();
        FutureTask<T> f = new FutureTask<>(call);
        handOver.post(f);
        if (handOver.state() == HandOver.SHUTDOWN) {
            f.cancel(false);
        }
        boolean interrupted = false;
        try {
            for (;;) {
                try {
                    return f.get();
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (CancellationException e) {
                    throw new IllegalStateException("the timer is stopped", e);
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof RuntimeException) {
                        throw (RuntimeException) cause;
                    }
                    if (cause instanceof Error) {
                        throw (Error) cause;
                    }
                    throw new IllegalStateException(cause);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return "WheelTimer(" + engine.name().toLowerCase(Locale.ROOT) + " engine, resolution "
                + resolution + " ns" + (virtualClock ? ", virtual clock" : "")
                + ", pending " + handOver.pending() + ")";
    }

    /** Closes the native side once: at the worker's end, at stop() before start, or by the Cleaner. */
    private static final class NativeCloser implements Runnable {
        private final long ctx;
        private final AtomicBoolean closed = new AtomicBoolean();

        NativeCloser(long ctx) {
            this.ctx = ctx;
        }

        @Override
        public void run() {
            if (closed.compareAndSet(false, true)) {
                Native.close(ctx);
            }
        }
    }
}
