// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * ExecutorContract.java - the ScheduledExecutorService contract, as tests
 * that ScheduledThreadPoolExecutor (the control) and WheelScheduledExecutor
 * must both pass
 */
package org.wheeltimer.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The contract, drawn from what the JSR-166 TCK's ScheduledExecutorTest
 * checks (delays and their order, periodic runs and their cancellation,
 * getDelay and compareTo, the shutdown policies and what shutdownNow
 * returns, interruption, rejection, futures of callables and of tasks that
 * throw) and from what users of a ScheduledExecutorService rely on. Every
 * assertion holds at any speed: a task never runs before its delay, runs
 * once or is cancelled, periodic runs never overlap; waits are bounded by
 * {@link Probe#LIMIT_SECONDS} and nothing asserts how late a task ran.
 * After each test every executor must terminate and every thread it made
 * must end.
 */
abstract class ExecutorContract {
    /** A new executor whose tasks run on {@code poolSize} threads from {@code threads}. */
    abstract ScheduledExecutorService newExecutor(int poolSize, ThreadFactory threads);

    /** How late a task may run by design, beyond scheduling: the resolution (0: none). */
    abstract long precisionNanos();

    /* ScheduledThreadPoolExecutor's two shutdown policies, which the interface lacks. */

    abstract boolean executeDelayedAfterShutdown(ScheduledExecutorService e);

    abstract void setExecuteDelayedAfterShutdown(ScheduledExecutorService e, boolean value);

    abstract boolean continuePeriodicAfterShutdown(ScheduledExecutorService e);

    abstract void setContinuePeriodicAfterShutdown(ScheduledExecutorService e, boolean value);

    /* And its policy on cancelled tasks. */

    abstract boolean removeOnCancel(ScheduledExecutorService e);

    abstract void setRemoveOnCancel(ScheduledExecutorService e, boolean value);

    /** Both executors are ThreadPoolExecutors: what monitoring and configuration read and set. */
    static ThreadPoolExecutor pool(ScheduledExecutorService e) {
        return assertInstanceOf(ThreadPoolExecutor.class, e);
    }

    /** Threads that record what they made, so that the test can see them end. */
    static final class Threads implements ThreadFactory {
        private static final AtomicInteger FACTORIES = new AtomicInteger();
        final String prefix = "wse-" + FACTORIES.incrementAndGet() + "-";
        final List<Thread> made = Collections.synchronizedList(new ArrayList<>());

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, prefix + made.size());
            made.add(t);
            return t;
        }

        boolean madeCurrentThread() {
            return made.contains(Thread.currentThread());
        }
    }

    private final List<ScheduledExecutorService> executors = new ArrayList<>();
    private final List<Threads> factories = new ArrayList<>();

    ScheduledExecutorService executor(int poolSize) {
        return executor(poolSize, new Threads());
    }

    ScheduledExecutorService executor(int poolSize, Threads threads) {
        ScheduledExecutorService e = newExecutor(poolSize, threads);
        executors.add(e);
        factories.add(threads);
        return e;
    }

    /** A factory given to an executor later (setThreadFactory): its threads must end too. */
    Threads threads() {
        Threads t = new Threads();
        factories.add(t);
        return t;
    }

    /**
     * {@code n} tasks that hold {@code n} threads of {@code e} until
     * {@link #release}: started once the constructor returns.
     */
    static final class Blockers {
        final CountDownLatch started;
        final CountDownLatch release = new CountDownLatch(1);
        final List<Future<?>> futures = new ArrayList<>();

        Blockers(ScheduledExecutorService e, int n) {
            started = new CountDownLatch(n);
            for (int i = 0; i < n; i++) {
                futures.add(e.submit(() -> {
                    started.countDown();
                    return release.await(Probe.LIMIT_SECONDS, TimeUnit.SECONDS);
                }));
            }
            await(started);
        }

        void release() throws Exception {
            release.countDown();
            for (Future<?> f : futures) {
                assertEquals(Boolean.TRUE, get(f), "released, not timed out");
            }
        }
    }

    /** Every executor terminates, and every thread it made ends. */
    @AfterEach
    void terminateEverything() throws InterruptedException {
        for (ScheduledExecutorService e : executors) {
            e.shutdownNow();
            assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS),
                       "the executor terminates");
            assertTrue(e.isTerminated());
        }
        for (Threads f : factories) {
            for (Thread t : new ArrayList<>(f.made)) {
                t.join(TimeUnit.SECONDS.toMillis(Probe.LIMIT_SECONDS));
                assertFalse(t.isAlive(), "thread " + t.getName() + " ends after termination");
            }
        }
    }

    /** The time unit of the periodic tests: long against the precision, short for the suite. */
    long period() {
        return Math.max(TimeUnit.MILLISECONDS.toNanos(20), 4 * precisionNanos());
    }

    static void await(CountDownLatch latch) {
        Probe.await(latch, "a task");
    }

    static <T> T get(Future<T> f) throws ExecutionException, InterruptedException {
        try {
            return f.get(Probe.LIMIT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("not done within " + Probe.LIMIT_SECONDS + " s", e);
        }
    }

    /* Running tasks. */

    @Test
    void executeRunsTheTaskOnceOnAThreadOfTheFactory() throws InterruptedException {
        Threads threads = new Threads();
        ScheduledExecutorService e = executor(1, threads);
        AtomicInteger runs = new AtomicInteger();
        AtomicBoolean ours = new AtomicBoolean();
        CountDownLatch done = new CountDownLatch(1);
        e.execute(() -> {
            ours.set(threads.madeCurrentThread());
            runs.incrementAndGet();
            done.countDown();
        });
        await(done);
        e.shutdown();
        assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(1, runs.get());
        assertTrue(ours.get(), "the task ran on a thread of the executor's factory");
    }

    @Test
    void aScheduledCallableRunsNoEarlierThanItsDelayAndGivesItsValue() throws Exception {
        ScheduledExecutorService e = executor(1);
        long delay = TimeUnit.MILLISECONDS.toNanos(30);
        long start = System.nanoTime();
        ScheduledFuture<Long> f = e.schedule(() -> System.nanoTime(), delay, TimeUnit.NANOSECONDS);
        long ranAt = get(f);
        assertTrue(ranAt - start >= delay, "ran " + (delay - (ranAt - start)) + " ns early");
        assertTrue(f.isDone());
        assertFalse(f.isCancelled());
        assertTrue(f.getDelay(TimeUnit.NANOSECONDS) <= 0, "no delay left once run");
    }

    @Test
    void aScheduledRunnableRunsNoEarlierThanItsDelayAndGivesNull() throws Exception {
        ScheduledExecutorService e = executor(1);
        long delay = TimeUnit.MILLISECONDS.toNanos(30);
        long start = System.nanoTime();
        long[] at = new long[1];
        ScheduledFuture<?> f = e.schedule(() -> {
            at[0] = System.nanoTime();
        }, 30, TimeUnit.MILLISECONDS);
        assertNull(get(f));
        assertTrue(at[0] - start >= delay, "ran " + (delay - (at[0] - start)) + " ns early");
    }

    /** A task that is both kinds, which records which of its methods ran. */
    private static final class Both implements Runnable, Callable<String> {
        final ConcurrentLinkedQueue<String> ran = new ConcurrentLinkedQueue<>();

        @Override
        public void run() {
            ran.add("run");
        }

        @Override
        public String call() {
            ran.add("call");
            return "called";
        }
    }

    /**
     * A task that is a Runnable and a Callable runs as the kind it was
     * given as: run() and null for schedule(Runnable), execute() and
     * submit(Runnable), call() and its value for schedule(Callable) and
     * submit(Callable), whether delayed or due at once.
     */
    @Test
    void aTaskThatIsBothKindsRunsAsTheKindItWasGivenAs() throws Exception {
        ScheduledExecutorService e = executor(1);
        for (long delay : new long[] {0, 20}) {
            Both asRunnable = new Both();
            assertNull(get(e.schedule((Runnable) asRunnable, delay, TimeUnit.MILLISECONDS)));
            assertEquals(List.of("run"), List.copyOf(asRunnable.ran));
            Both asCallable = new Both();
            assertEquals("called", get(e.schedule((Callable<String>) asCallable, delay,
                                                  TimeUnit.MILLISECONDS)));
            assertEquals(List.of("call"), List.copyOf(asCallable.ran));
        }
        Both submitted = new Both();
        assertNull(get(e.submit((Runnable) submitted)));
        assertEquals("called", get(e.submit((Callable<String>) submitted)));
        assertEquals(List.of("run", "call"), List.copyOf(submitted.ran));
        Both executed = new Both();
        CountDownLatch after = new CountDownLatch(1);
        e.execute(executed);
        e.execute(after::countDown);
        assertTrue(after.await(10, TimeUnit.SECONDS));
        assertEquals(List.of("run"), List.copyOf(executed.ran));
    }

    @Test
    void aZeroOrNegativeDelayRunsAtOnce() throws Exception {
        ScheduledExecutorService e = executor(1);
        ScheduledFuture<String> zero = e.schedule(() -> "zero", 0, TimeUnit.SECONDS);
        ScheduledFuture<String> negative = e.schedule(() -> "negative", -1, TimeUnit.DAYS);
        assertTrue(zero.getDelay(TimeUnit.NANOSECONDS) <= 0);
        assertTrue(negative.getDelay(TimeUnit.NANOSECONDS) <= 0);
        assertEquals("zero", get(zero));
        assertEquals("negative", get(negative));
    }

    /**
     * Tasks run in deadline order on a pool of one. The executor reads its
     * clock inside schedule(), so a deadline is only known to lie between two
     * readings around the call: the order is checked for every pair whose
     * ranges are more than the precision apart (all of them, the deadlines
     * being 5 ms plus three precisions apart, unless a call was preempted).
     * The first deadline is 300 ms away; if the calls took longer, the test
     * is skipped.
     */
    @Test
    void delayedTasksRunInDeadlineOrder() throws InterruptedException {
        ScheduledExecutorService e = executor(1);
        int n = 20;
        long step = TimeUnit.MILLISECONDS.toNanos(5) + 3 * precisionNanos();
        long[] lo = new long[n];
        long[] hi = new long[n];
        ConcurrentLinkedQueue<Integer> order = new ConcurrentLinkedQueue<>();
        CountDownLatch done = new CountDownLatch(n);
        List<Integer> shuffled = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            shuffled.add(i);
        }
        Collections.shuffle(shuffled, new java.util.Random(7));
        long base = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
        for (int i : shuffled) {
            long before = System.nanoTime();
            long delay = base + i * step - before;
            e.schedule(() -> {
                order.add(i);
                done.countDown();
            }, delay, TimeUnit.NANOSECONDS);
            lo[i] = before + delay;
            hi[i] = System.nanoTime() + delay;
        }
        // Scheduled after its deadline, a task would be due at once, in the
        // order of the calls (on either executor).
        assumeTrue(System.nanoTime() < base, "scheduling took longer than 300 ms");
        await(done);
        int[] position = new int[n];
        int p = 0;
        for (int i : order) {
            position[i] = p++;
        }
        for (int a = 0; a < n; a++) {
            for (int b = 0; b < n; b++) {
                if (hi[a] + precisionNanos() < lo[b]) {
                    assertTrue(position[a] < position[b], "task " + a + " runs before " + b + ": " + order);
                }
            }
        }
    }

    @Test
    void thePoolRunsAsManyTasksAtOnceAsItHasThreadsAndNoMore() throws Exception {
        int threads = 3;
        ScheduledExecutorService e = executor(threads);
        // Three tasks that wait for each other: they need three threads at once.
        CyclicBarrier all = new CyclicBarrier(threads);
        AtomicInteger active = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            futures.add(e.submit(() -> {
                all.await(Probe.LIMIT_SECONDS, TimeUnit.SECONDS);
                return null;
            }));
        }
        for (int i = 0; i < 4 * threads; i++) {
            futures.add(e.schedule(() -> {
                most.accumulateAndGet(active.incrementAndGet(), Math::max);
                Probe.sleep(2);
                active.decrementAndGet();
            }, i % 3, TimeUnit.MILLISECONDS));
        }
        for (Future<?> f : futures) {
            get(f);
        }
        assertTrue(most.get() <= threads, most.get() + " tasks at once on " + threads + " threads");
    }

    @Test
    void aTaskMayScheduleAnother() throws Exception {
        ScheduledExecutorService e = executor(1);
        CountDownLatch inner = new CountDownLatch(1);
        e.schedule(() -> e.schedule(inner::countDown, 5, TimeUnit.MILLISECONDS), 5,
                   TimeUnit.MILLISECONDS);
        await(inner);
    }

    /** JDK-8051859: a fixed delay of Long.MAX_VALUE seconds does not hold up other tasks. */
    @Test
    void anEnormousDelayHoldsUpNothing() throws Exception {
        ScheduledExecutorService e = executor(1);
        CountDownLatch first = new CountDownLatch(1);
        CountDownLatch other = new CountDownLatch(1);
        e.scheduleWithFixedDelay(() -> {
            first.countDown();
            e.submit(other::countDown);
        }, 0, Long.MAX_VALUE, TimeUnit.SECONDS);
        await(first);
        await(other);
        ScheduledFuture<?> far = e.schedule(() -> { }, Long.MAX_VALUE, TimeUnit.NANOSECONDS);
        assertTrue(far.getDelay(TimeUnit.DAYS) > 365 * 100, "a delay of Long.MAX_VALUE ns stays huge");
        assertEquals("now", get(e.schedule(() -> "now", 1, TimeUnit.MILLISECONDS)));
    }

    @Test
    void manyTasksFromManyThreadsEachRunOnceNeverEarly() throws Exception {
        ScheduledExecutorService e = executor(2);
        int perThread = 500;
        int callers = 4;
        int n = perThread * callers;
        AtomicIntegerArray runs = new AtomicIntegerArray(n);
        AtomicInteger early = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(n);
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < callers; c++) {
            int base = c * perThread;
            threads.add(new Thread(() -> {
                for (int i = 0; i < perThread; i++) {
                    int k = base + i;
                    long delay = TimeUnit.MICROSECONDS.toNanos(k % 50 * 500);
                    long deadline = System.nanoTime() + delay;
                    e.schedule(() -> {
                        if (System.nanoTime() < deadline) {
                            early.incrementAndGet();
                        }
                        runs.incrementAndGet(k);
                        done.countDown();
                    }, delay, TimeUnit.NANOSECONDS);
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        await(done);
        e.shutdown();
        assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
        for (int i = 0; i < n; i++) {
            assertEquals(1, runs.get(i), "task " + i + " runs once");
        }
        assertEquals(0, early.get(), "tasks that ran before their delay");
    }

    /* Futures. */

    @Test
    void submitGivesTheFuturesOfCallablesAndRunnables() throws Exception {
        ScheduledExecutorService e = executor(2);
        assertEquals("callable", get(e.submit(() -> "callable")));
        AtomicBoolean ran = new AtomicBoolean();
        assertNull(get(e.submit(() -> ran.set(true))));
        assertTrue(ran.get());
        assertEquals("result", get(e.submit(() -> { }, "result")));
    }

    @Test
    void aTaskThatThrowsFailsItsFutureWithTheException() throws Exception {
        ScheduledExecutorService e = executor(1);
        IllegalStateException boom = new IllegalStateException("boom");
        ScheduledFuture<?> delayed = e.schedule(() -> {
            throw boom;
        }, 5, TimeUnit.MILLISECONDS);
        ExecutionException x = assertThrows(ExecutionException.class, () -> get(delayed));
        assertSame(boom, x.getCause());
        assertTrue(delayed.isDone());
        assertFalse(delayed.isCancelled());
        Future<?> now = e.submit((Callable<Object>) () -> {
            throw new java.io.IOException("checked");
        });
        x = assertThrows(ExecutionException.class, () -> get(now));
        assertInstanceOf(java.io.IOException.class, x.getCause());
        // The pool goes on.
        assertEquals(1, get(e.submit(() -> 1)));
    }

    @Test
    void getWithATimeoutTimesOutBeforeTheRun() {
        ScheduledExecutorService e = executor(1);
        ScheduledFuture<?> f = e.schedule(() -> { }, 1, TimeUnit.HOURS);
        assertThrows(TimeoutException.class, () -> f.get(20, TimeUnit.MILLISECONDS));
        assertFalse(f.isDone());
    }

    @Test
    void getIsInterruptible() throws InterruptedException {
        ScheduledExecutorService e = executor(1);
        ScheduledFuture<?> f = e.schedule(() -> { }, 1, TimeUnit.HOURS);
        AtomicReference<Throwable> got = new AtomicReference<>();
        CountDownLatch waiting = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            waiting.countDown();
            try {
                f.get();
            } catch (Throwable x) {
                got.set(x);
            }
        });
        t.start();
        await(waiting);
        t.interrupt();
        t.join(TimeUnit.SECONDS.toMillis(Probe.LIMIT_SECONDS));
        assertInstanceOf(InterruptedException.class, got.get());
        assertFalse(f.isDone());
    }

    @Test
    void getDelayCountsDownAndEndsAtZeroOrBelow() throws Exception {
        ScheduledExecutorService e = executor(1);
        AtomicReference<ScheduledFuture<?>> self = new AtomicReference<>();
        AtomicReference<Long> delayInRun = new AtomicReference<>();
        CountDownLatch set = new CountDownLatch(1);
        long before = System.nanoTime();
        ScheduledFuture<?> f = e.schedule(() -> {
            await(set);
            delayInRun.set(self.get().getDelay(TimeUnit.NANOSECONDS));
        }, 50, TimeUnit.MILLISECONDS);
        self.set(f);
        set.countDown();
        long d1 = f.getDelay(TimeUnit.NANOSECONDS);
        long elapsed = System.nanoTime() - before;
        assertTrue(d1 <= TimeUnit.MILLISECONDS.toNanos(50), "no more than the delay: " + d1);
        assertTrue(d1 >= TimeUnit.MILLISECONDS.toNanos(50) - elapsed - precisionNanos(),
                   "no less than the delay minus the time since: " + d1);
        long d2 = f.getDelay(TimeUnit.NANOSECONDS);
        assertTrue(d2 <= d1, "the delay only shrinks");
        assertEquals(TimeUnit.NANOSECONDS.toMillis(f.getDelay(TimeUnit.NANOSECONDS)) / 1000,
                     f.getDelay(TimeUnit.SECONDS), "in any unit");
        get(f);
        assertTrue(delayInRun.get() <= 0, "the run starts once the delay is over: " + delayInRun.get());
    }

    /** A Delayed of a fixed delay, as another implementation's future would be. */
    private record Fixed(long nanos) implements Delayed {
        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(nanos, TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed o) {
            return Long.compare(nanos, o.getDelay(TimeUnit.NANOSECONDS));
        }
    }

    @Test
    void compareToOrdersByDelayWithinAndAcrossExecutors() {
        ScheduledExecutorService a = executor(1);
        ScheduledExecutorService b = executor(1);
        ScheduledFuture<?> oneHour = a.schedule(() -> { }, 1, TimeUnit.HOURS);
        ScheduledFuture<?> twoHours = b.schedule(() -> { }, 2, TimeUnit.HOURS);
        ScheduledFuture<?> threeHours = a.schedule(() -> { }, 3, TimeUnit.HOURS);
        ScheduledFuture<?> oneDay = a.schedule(() -> { }, 1, TimeUnit.DAYS);
        assertEquals(0, oneHour.compareTo(oneHour));
        assertTrue(oneHour.compareTo(threeHours) < 0 && threeHours.compareTo(oneHour) > 0);
        assertTrue(oneHour.compareTo(twoHours) < 0 && twoHours.compareTo(oneHour) > 0,
                   "across executors");
        assertTrue(twoHours.compareTo(threeHours) < 0 && threeHours.compareTo(twoHours) > 0);
        Delayed ninety = new Fixed(TimeUnit.MINUTES.toNanos(90));
        assertTrue(oneHour.compareTo(ninety) < 0 && twoHours.compareTo(ninety) > 0,
                   "against any Delayed");
        List<Delayed> sorted = new ArrayList<>(List.of(oneDay, threeHours, ninety, twoHours, oneHour));
        Collections.sort(sorted);
        assertEquals(List.of(oneHour, ninety, twoHours, threeHours, oneDay), sorted);
        // Two tasks with the same delay: distinct, in a consistent order.
        ScheduledFuture<?> x = a.schedule(() -> { }, 5, TimeUnit.HOURS);
        ScheduledFuture<?> y = a.schedule(() -> { }, 5, TimeUnit.HOURS);
        assertEquals(-Integer.signum(x.compareTo(y)), Integer.signum(y.compareTo(x)));
    }

    /* Cancel. */

    @Test
    void aTaskCancelledBeforeItsDelayNeverRuns() throws Exception {
        ScheduledExecutorService e = executor(1);
        AtomicInteger ran = new AtomicInteger();
        ScheduledFuture<?> f = e.schedule(ran::incrementAndGet, 30, TimeUnit.MILLISECONDS);
        assertTrue(f.cancel(false), "the first cancel cancels");
        assertTrue(f.isCancelled());
        assertTrue(f.isDone());
        assertFalse(f.cancel(false), "a second cancel does nothing");
        assertThrows(CancellationException.class, () -> f.get());
        assertThrows(CancellationException.class, () -> f.get(1, TimeUnit.MILLISECONDS));
        // A later task has run: in deadline order the cancelled one would have first.
        get(e.schedule(() -> { }, 60, TimeUnit.MILLISECONDS));
        assertEquals(0, ran.get(), "the cancelled task never ran");
    }

    @Test
    void cancelAfterTheRunFails() throws Exception {
        ScheduledExecutorService e = executor(1);
        ScheduledFuture<String> f = e.schedule(() -> "done", 1, TimeUnit.MILLISECONDS);
        assertEquals("done", get(f));
        assertFalse(f.cancel(true), "too late to cancel");
        assertFalse(f.isCancelled());
        assertEquals("done", f.get());
    }

    @Test
    void cancelTrueInterruptsARunningTaskAndFalseLetsItFinish() throws Exception {
        ScheduledExecutorService e = executor(2);
        for (boolean interrupt : new boolean[] {true, false}) {
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicBoolean interrupted = new AtomicBoolean();
            CountDownLatch ended = new CountDownLatch(1);
            ScheduledFuture<?> f = e.schedule(() -> {
                started.countDown();
                try {
                    release.await(Probe.LIMIT_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException x) {
                    interrupted.set(true);
                }
                ended.countDown();
            }, 1, TimeUnit.MILLISECONDS);
            await(started);
            assertTrue(f.cancel(interrupt), "a running task's future can be cancelled");
            assertTrue(f.isCancelled());
            if (!interrupt) {
                release.countDown();
            }
            await(ended);
            assertEquals(interrupt, interrupted.get(), "cancel(" + interrupt + ") interrupts or not");
        }
        // The interrupt stays with the cancelled task: the next on that thread does not see it.
        List<Future<Boolean>> next = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            next.add(e.submit(() -> Thread.currentThread().isInterrupted()));
        }
        for (Future<Boolean> f : next) {
            assertFalse(get(f), "a later task does not inherit the interrupt");
        }
    }

    /**
     * Cancels racing the deadlines: each task runs at most once; a cancel that
     * fails means the task ran; a cancel that succeeds leaves the future
     * cancelled. The deadlines spread over 50 ms and the cancels start once a
     * task has run, so that both outcomes occur.
     */
    @Test
    void cancelsRacingTheRunsLeaveEachTaskRunOnceOrCancelled() throws Exception {
        ScheduledExecutorService e = executor(2);
        int n = 2000;
        AtomicIntegerArray runs = new AtomicIntegerArray(n);
        CountDownLatch firstRun = new CountDownLatch(1);
        List<ScheduledFuture<?>> futures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int k = i;
            futures.add(e.schedule(() -> {
                runs.incrementAndGet(k);
                firstRun.countDown();
            }, TimeUnit.MICROSECONDS.toNanos(i * 25L), TimeUnit.NANOSECONDS));
        }
        await(firstRun);
        boolean[] cancelled = new boolean[n];
        for (int i = n - 1; i >= 0; i--) {
            cancelled[i] = futures.get(i).cancel(false);
        }
        e.shutdown();
        assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
        int c = 0;
        for (int i = 0; i < n; i++) {
            ScheduledFuture<?> f = futures.get(i);
            assertTrue(runs.get(i) <= 1, "task " + i + " ran " + runs.get(i) + " times");
            assertTrue(f.isDone());
            if (cancelled[i]) {
                c++;
                assertTrue(f.isCancelled());
            } else {
                assertEquals(1, runs.get(i), "task " + i + ": cancel() failed, so it ran");
                assertNull(f.get());
            }
        }
        System.out.println("# " + c + " of " + n + " cancelled");
    }

    /* Periodic tasks. */

    @Test
    void aPeriodOfZeroOrLessIsRefused() {
        ScheduledExecutorService e = executor(1);
        Runnable r = () -> { };
        assertThrows(IllegalArgumentException.class, () -> e.scheduleAtFixedRate(r, 0, 0, TimeUnit.SECONDS));
        assertThrows(IllegalArgumentException.class, () -> e.scheduleAtFixedRate(r, 0, -1, TimeUnit.SECONDS));
        assertThrows(IllegalArgumentException.class, () -> e.scheduleWithFixedDelay(r, 0, 0, TimeUnit.SECONDS));
        assertThrows(IllegalArgumentException.class, () -> e.scheduleWithFixedDelay(r, 0, -1, TimeUnit.SECONDS));
    }

    /** Run k of a fixed-rate task starts no earlier than the initial delay plus k periods. */
    @Test
    void fixedRateRunsAreNeverEarly() throws Exception {
        ScheduledExecutorService e = executor(1);
        long p = period();
        int n = 6;
        long[] at = new long[n];
        AtomicInteger k = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(n);
        long start = System.nanoTime();
        ScheduledFuture<?> f = e.scheduleAtFixedRate(() -> {
            int i = k.getAndIncrement();
            if (i < n) {
                at[i] = System.nanoTime();
                done.countDown();
            }
        }, p, p, TimeUnit.NANOSECONDS);
        await(done);
        assertTrue(f.cancel(false));
        for (int i = 0; i < n; i++) {
            long earliest = start + p + i * p;
            assertTrue(at[i] >= earliest, "run " + i + " was " + (earliest - at[i]) + " ns early");
        }
        assertTrue(f.isCancelled());
    }

    /**
     * A fixed-rate task whose first run takes over five periods is not made
     * to skip them: the runs it owes follow, never overlapping, each still
     * for its own time (first deadline + k periods, as getDelay() says while
     * it runs), never before it.
     */
    @Test
    void fixedRateMakesUpLateRunsWithoutOverlapOrSkipping() throws Exception {
        ScheduledExecutorService e = executor(3);
        long p = period();
        int n = 9;
        long[] lo = new long[n];
        long[] hi = new long[n];
        long[] delay = new long[n];
        AtomicInteger k = new AtomicInteger();
        AtomicInteger active = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        AtomicReference<ScheduledFuture<?>> self = new AtomicReference<>();
        CountDownLatch known = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(n);
        ScheduledFuture<?> f = e.scheduleAtFixedRate(() -> {
            most.accumulateAndGet(active.incrementAndGet(), Math::max);
            await(known);
            int i = k.getAndIncrement();
            if (i < n) {
                lo[i] = System.nanoTime();
                delay[i] = self.get().getDelay(TimeUnit.NANOSECONDS);
                hi[i] = System.nanoTime();
                if (i == 0) {
                    long until = lo[0] + delay[0] + 5 * p + p / 2;
                    while (System.nanoTime() < until) {
                        Probe.sleep(1);
                    }
                }
                done.countDown();
            }
            active.decrementAndGet();
        }, p, p, TimeUnit.NANOSECONDS);
        self.set(f);
        known.countDown();
        await(done);
        f.cancel(false);
        assertEquals(1, most.get(), "runs of one task never overlap");
        for (int i = 0; i < n; i++) {
            assertTrue(delay[i] <= 0, "run " + i + " started " + delay[i] + " ns before its time");
            // Its time, as getDelay() gave it, lies in [lo + delay, hi + delay].
            long minGap = lo[i] + delay[i] - (hi[0] + delay[0]);
            long maxGap = hi[i] + delay[i] - (lo[0] + delay[0]);
            assertTrue(minGap <= i * p && i * p <= maxGap, "run " + i + " is for the first's time + "
                       + i + " periods, not later: between " + minGap + " and " + maxGap + " ns after it");
        }
    }

    /** Each run of a fixed-delay task starts the delay after the end of the one before, however long it took. */
    @Test
    void fixedDelayCountsTheDelayFromTheEndOfEachRun() throws Exception {
        ScheduledExecutorService e = executor(2);
        long d = period();
        int n = 6;
        long[] start = new long[n];
        long[] end = new long[n];
        AtomicInteger k = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(n);
        ScheduledFuture<?> f = e.scheduleWithFixedDelay(() -> {
            int i = k.getAndIncrement();
            if (i >= n) {
                return;
            }
            start[i] = System.nanoTime();
            if (i % 2 == 1) {
                // A run three delays long.
                long until = start[i] + 3 * d;
                while (System.nanoTime() < until) {
                    Probe.sleep(1);
                }
            }
            end[i] = System.nanoTime();
            done.countDown();
        }, 0, d, TimeUnit.NANOSECONDS);
        await(done);
        assertTrue(f.cancel(false));
        for (int i = 1; i < n; i++) {
            assertTrue(start[i] - end[i - 1] >= d, "run " + i + " started "
                       + (d - (start[i] - end[i - 1])) + " ns too soon after run " + (i - 1) + " ended");
        }
    }

    @Test
    void aPeriodicTaskThatThrowsRunsNoMoreAndFailsItsFuture() throws Exception {
        ScheduledExecutorService e = executor(2);
        for (boolean fixedRate : new boolean[] {true, false}) {
            AtomicInteger runs = new AtomicInteger();
            IllegalStateException boom = new IllegalStateException("third run");
            Runnable task = () -> {
                if (runs.incrementAndGet() == 3) {
                    throw boom;
                }
            };
            long p = TimeUnit.MILLISECONDS.toNanos(2);
            ScheduledFuture<?> f = fixedRate
                    ? e.scheduleAtFixedRate(task, 0, p, TimeUnit.NANOSECONDS)
                    : e.scheduleWithFixedDelay(task, 0, p, TimeUnit.NANOSECONDS);
            ExecutionException x = assertThrows(ExecutionException.class, () -> get(f));
            assertSame(boom, x.getCause());
            assertTrue(f.isDone());
            assertFalse(f.isCancelled());
            Probe.sleep(20 * TimeUnit.NANOSECONDS.toMillis(p + precisionNanos()));
            assertEquals(3, runs.get(), "no run after the one that threw");
        }
    }

    @Test
    void cancellingAPeriodicTaskEndsItsRuns() throws Exception {
        ScheduledExecutorService e = executor(2);
        for (boolean fixedRate : new boolean[] {true, false}) {
            AtomicInteger runs = new AtomicInteger();
            AtomicInteger active = new AtomicInteger();
            CountDownLatch three = new CountDownLatch(3);
            Runnable task = () -> {
                active.incrementAndGet();
                runs.incrementAndGet();
                three.countDown();
                active.decrementAndGet();
            };
            long p = TimeUnit.MILLISECONDS.toNanos(2);
            ScheduledFuture<?> f = fixedRate
                    ? e.scheduleAtFixedRate(task, 0, p, TimeUnit.NANOSECONDS)
                    : e.scheduleWithFixedDelay(task, 0, p, TimeUnit.NANOSECONDS);
            await(three);
            assertFalse(f.isDone(), "a periodic task is not done between runs");
            assertThrows(TimeoutException.class, () -> f.get(1, TimeUnit.MILLISECONDS));
            assertTrue(f.cancel(false));
            assertTrue(f.isCancelled());
            Probe.eventually(() -> active.get() == 0, "a run under way ends");
            int after = runs.get();
            Probe.sleep(20 * TimeUnit.NANOSECONDS.toMillis(p + precisionNanos()));
            assertEquals(after, runs.get(), "no run starts once cancel() has returned true");
            assertThrows(CancellationException.class, () -> f.get());
        }
    }

    /* Shutdown. */

    @Test
    void thePoliciesDefaultToRunDelayedAndCancelPeriodic() {
        ScheduledExecutorService e = executor(1);
        assertTrue(executeDelayedAfterShutdown(e));
        assertFalse(continuePeriodicAfterShutdown(e));
    }

    /**
     * After shutdown(), delayed tasks run or are cancelled as one policy says,
     * periodic tasks go on or are cancelled as the other says; the executor
     * terminates once nothing is left. A delayed task that the policy is to
     * cancel is an hour away, so that it is not yet due at shutdown() at
     * any speed (one due by then runs whatever the policy says), as the
     * TCK's testShutdown_cancellation has it.
     */
    @ParameterizedTest(name = "delayed run: {0}, periodic go on: {1}")
    @CsvSource({"true, false", "true, true", "false, false", "false, true"})
    void shutdownAppliesThePolicies(boolean keepDelayed, boolean keepPeriodic) throws Exception {
        ScheduledExecutorService e = executor(2);
        setExecuteDelayedAfterShutdown(e, keepDelayed);
        setContinuePeriodicAfterShutdown(e, keepPeriodic);
        assertEquals(keepDelayed, executeDelayedAfterShutdown(e));
        assertEquals(keepPeriodic, continuePeriodicAfterShutdown(e));
        long p = period();
        AtomicInteger delayedRuns = new AtomicInteger();
        ScheduledFuture<?> delayed = e.schedule(() -> {
            delayedRuns.incrementAndGet();
        }, keepDelayed ? 3 * p : TimeUnit.HOURS.toNanos(1), TimeUnit.NANOSECONDS);
        AtomicInteger rateRuns = new AtomicInteger();
        AtomicInteger delayRuns = new AtomicInteger();
        ScheduledFuture<?> rate = e.scheduleAtFixedRate(rateRuns::incrementAndGet, p, p,
                                                        TimeUnit.NANOSECONDS);
        ScheduledFuture<?> delay = e.scheduleWithFixedDelay(delayRuns::incrementAndGet, p, p,
                                                            TimeUnit.NANOSECONDS);
        e.shutdown();
        assertTrue(e.isShutdown());
        assertEquals(!keepDelayed, delayed.isCancelled(), "the delayed task is cancelled at shutdown");
        if (keepPeriodic) {
            assertFalse(rate.isDone());
            assertFalse(delay.isDone());
            assertFalse(e.isTerminated());
            int r = rateRuns.get();
            int d = delayRuns.get();
            Probe.eventually(() -> rateRuns.get() >= r + 2 && delayRuns.get() >= d + 2,
                             "periodic tasks run on after shutdown");
            assertFalse(e.isTerminated(), "periodic tasks hold termination off");
            assertTrue(rate.cancel(false));
            assertTrue(delay.cancel(false));
        } else {
            // Cancelled now, or (one run under way) when that run ends.
            Probe.eventually(() -> rate.isCancelled() && delay.isCancelled(),
                             "periodic tasks are cancelled");
        }
        assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
        assertTrue(e.isTerminated());
        assertEquals(keepDelayed ? 1 : 0, delayedRuns.get(), "the delayed task ran, or not");
        if (keepDelayed) {
            assertNull(delayed.get());
        }
        assertTrue(rate.isCancelled() && delay.isCancelled());
    }

    /**
     * A fixed-delay task that shutdown() let go on, cancelled at any point
     * of its cycle (its run, its re-arming, its wait), leaves nothing that
     * holds termination off. Each round cancels it a different spin after
     * a run began: soon after a run, the re-arming is under way.
     */
    @Test
    void aFixedDelayTaskCancelledAnywhereInItsCycleAfterShutdownLetsTheExecutorTerminate()
            throws Exception {
        for (int round = 0; round < 200; round++) {
            ScheduledExecutorService e = executor(1);
            setContinuePeriodicAfterShutdown(e, true);
            AtomicInteger runs = new AtomicInteger();
            ScheduledFuture<?> task = e.scheduleWithFixedDelay(runs::incrementAndGet, 0, 1,
                                                               TimeUnit.MICROSECONDS);
            Probe.eventually(() -> runs.get() >= 2, "the task runs");
            e.shutdown();
            int seen = runs.get();
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(Probe.LIMIT_SECONDS);
            while (runs.get() == seen) {
                assertTrue(System.nanoTime() - end < 0, "the task runs on after shutdown");
                Thread.onSpinWait();
            }
            for (int spin = 0; spin < round * 4; spin++) {
                Thread.onSpinWait();
            }
            assertTrue(task.cancel(false));
            assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS),
                       "terminates once the task is cancelled, round " + round);
        }
    }

    /**
     * shutdown() cancels no periodic task in the middle of a run: it is not
     * done until that run ends, and then it is cancelled (the TCK's first
     * wave); tasks already due run whatever the delayed policy says.
     */
    @Test
    void shutdownLetsARunUnderWayAndDueTasksFinish() throws Exception {
        ScheduledExecutorService e = executor(1);
        setExecuteDelayedAfterShutdown(e, false);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        ScheduledFuture<?> periodic = e.scheduleAtFixedRate(() -> {
            runs.incrementAndGet();
            started.countDown();
            try {
                release.await(Probe.LIMIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException x) {
                Thread.currentThread().interrupt();
            }
        }, 0, 1, TimeUnit.MILLISECONDS);
        await(started);
        List<Future<String>> queued = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            queued.add(e.submit(() -> "queued"));
        }
        e.shutdown();
        assertTrue(e.isShutdown());
        assertFalse(e.isTerminated());
        assertFalse(periodic.isDone(), "a run under way is not cancelled by shutdown()");
        for (Future<String> f : queued) {
            assertFalse(f.isDone(), "a task waiting for the pool is neither run nor cancelled yet");
        }
        release.countDown();
        assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
        assertTrue(periodic.isCancelled(), "cancelled once its run ended");
        assertEquals(1, runs.get());
        for (Future<String> f : queued) {
            assertEquals("queued", f.get(), "tasks already due run after shutdown()");
        }
    }

    /**
     * shutdown() with delayed tasks not to run cancels every one, however
     * far along its scheduling is: here 4 threads schedule 5000 each and
     * shutdown() comes at once after the last (on WheelScheduledExecutor,
     * most are still on their way to the timer's worker, which shutdown()
     * walks).
     */
    @Test
    void shutdownCancelsEveryDelayedTaskJustScheduledWhenThePolicySaysSo() throws Exception {
        ScheduledExecutorService e = executor(1);
        setExecuteDelayedAfterShutdown(e, false);
        List<ScheduledFuture<?>> all = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch ready = new CountDownLatch(4);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread th = new Thread(() -> {
                ready.countDown();
                try {
                    go.await();
                } catch (InterruptedException x) {
                    return;
                }
                for (int i = 0; i < 5000; i++) {
                    all.add(e.schedule(() -> { }, 1, TimeUnit.HOURS));
                }
            });
            threads.add(th);
            th.start();
        }
        await(ready);
        go.countDown();
        for (Thread th : threads) {
            th.join(TimeUnit.SECONDS.toMillis(Probe.LIMIT_SECONDS));
        }
        e.shutdown();
        assertEquals(4 * 5000, all.size());
        for (ScheduledFuture<?> f : all) {
            assertTrue(f.isCancelled(), "cancelled by shutdown(): " + f);
        }
        assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
    }

    /**
     * shutdown() cancels at once the periodic tasks that wait for a thread,
     * as those that wait for their time (the TCK's
     * testShutdown_cancellation): here two due at once while the one
     * thread is busy.
     */
    @Test
    void shutdownCancelsAtOnceAPeriodicTaskWaitingForAThread() throws Exception {
        ScheduledExecutorService e = executor(1);
        Blockers running = new Blockers(e, 1);
        AtomicInteger ran = new AtomicInteger();
        ScheduledFuture<?> rate = e.scheduleAtFixedRate(ran::incrementAndGet, 0, 1, TimeUnit.HOURS);
        ScheduledFuture<?> delay = e.scheduleWithFixedDelay(ran::incrementAndGet, 0, 1, TimeUnit.HOURS);
        // Past their time: a timer would have handed them over by now (the
        // assertions hold either way).
        Probe.sleep(20);
        e.shutdown();
        assertTrue(rate.isCancelled(), "fixed rate");
        assertTrue(delay.isCancelled(), "fixed delay");
        running.release();
        assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(0, ran.get());
    }

    @Test
    void settingAPolicyToFalseAfterShutdownCancelsThen() throws Exception {
        ScheduledExecutorService e = executor(1);
        ScheduledFuture<?> delayed = e.schedule(() -> { }, 1, TimeUnit.HOURS);
        setContinuePeriodicAfterShutdown(e, true);
        ScheduledFuture<?> periodic = e.scheduleWithFixedDelay(() -> { }, 1, 1, TimeUnit.HOURS);
        e.shutdown();
        assertFalse(delayed.isDone());
        assertFalse(periodic.isDone());
        assertFalse(e.awaitTermination(10, TimeUnit.MILLISECONDS), "two tasks still pending");
        setExecuteDelayedAfterShutdown(e, false);
        assertTrue(delayed.isCancelled());
        assertFalse(periodic.isDone());
        setContinuePeriodicAfterShutdown(e, false);
        assertTrue(periodic.isCancelled());
        assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
    }

    @Test
    void everySubmissionIsRejectedAfterShutdown() throws Exception {
        for (int how = 0; how < 3; how++) {
            ScheduledExecutorService e = executor(1);
            if (how == 0) {
                e.shutdown();
            } else {
                e.shutdownNow();
            }
            if (how == 2) {
                assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
            }
            Runnable r = () -> { };
            Callable<String> c = () -> "";
            assertThrows(RejectedExecutionException.class, () -> e.execute(r));
            assertThrows(RejectedExecutionException.class, () -> e.submit(r));
            assertThrows(RejectedExecutionException.class, () -> e.submit(r, ""));
            assertThrows(RejectedExecutionException.class, () -> e.submit(c));
            assertThrows(RejectedExecutionException.class, () -> e.schedule(r, 1, TimeUnit.SECONDS));
            assertThrows(RejectedExecutionException.class, () -> e.schedule(c, 1, TimeUnit.SECONDS));
            assertThrows(RejectedExecutionException.class, () -> e.schedule(c, 0, TimeUnit.SECONDS));
            assertThrows(RejectedExecutionException.class,
                         () -> e.scheduleAtFixedRate(r, 1, 1, TimeUnit.SECONDS));
            assertThrows(RejectedExecutionException.class,
                         () -> e.scheduleWithFixedDelay(r, 1, 1, TimeUnit.SECONDS));
            assertThrows(RejectedExecutionException.class, () -> e.invokeAll(List.of(c)));
            assertThrows(RejectedExecutionException.class, () -> e.invokeAny(List.of(c)));
        }
    }

    /**
     * shutdownNow() interrupts the running tasks and returns, neither done
     * nor cancelled, the futures that never started: queued, delayed and
     * periodic ones alike.
     */
    @Test
    void shutdownNowInterruptsAndReturnsWhatNeverRan() throws Exception {
        int threads = 2;
        ScheduledExecutorService e = executor(threads);
        CountDownLatch started = new CountDownLatch(threads);
        AtomicInteger interrupted = new AtomicInteger();
        List<Future<?>> running = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            running.add(e.submit(() -> {
                started.countDown();
                try {
                    Thread.sleep(TimeUnit.SECONDS.toMillis(Probe.LIMIT_SECONDS));
                } catch (InterruptedException x) {
                    interrupted.incrementAndGet();
                }
            }));
        }
        await(started);
        AtomicInteger ran = new AtomicInteger();
        Runnable r = ran::incrementAndGet;
        List<Future<?>> never = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            never.add(e.submit(r));
            never.add(e.schedule(r, 1, TimeUnit.HOURS));
            never.add(e.scheduleAtFixedRate(r, 1, 1, TimeUnit.HOURS));
            never.add(e.scheduleWithFixedDelay(r, 1, 1, TimeUnit.HOURS));
        }
        List<Runnable> returned = e.shutdownNow();
        assertTrue(e.isShutdown());
        assertTrue(pool(e).getQueue().isEmpty(), "drained");
        Set<Object> got = Collections.newSetFromMap(new IdentityHashMap<>());
        got.addAll(returned);
        assertEquals(returned.size(), got.size(), "each returned once");
        Set<Object> want = Collections.newSetFromMap(new IdentityHashMap<>());
        want.addAll(never);
        assertEquals(want, got, "the futures that never started, and only those");
        for (Future<?> f : never) {
            assertFalse(f.isDone(), "returned, not cancelled");
        }
        assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(threads, interrupted.get(), "the running tasks were interrupted");
        assertEquals(0, ran.get());
        assertEquals(threads, pool(e).getCompletedTaskCount(), "the running tasks completed, no other");
        for (Future<?> f : running) {
            assertTrue(f.isDone());
        }
        assertEquals(List.of(), e.shutdownNow(), "nothing more the second time");
    }

    /**
     * Many tasks due together, more than a worker hands to the pool at
     * once: each runs once, and none before its deadline.
     */
    @Test
    void aBurstOfTasksDueTogetherRunsEachOnce() throws Exception {
        ScheduledExecutorService e = executor(1);
        int n = 5_000;
        AtomicIntegerArray runs = new AtomicIntegerArray(n);
        AtomicInteger early = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(n);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        for (int i = 0; i < n; i++) {
            int k = i;
            e.schedule(() -> {
                if (System.nanoTime() < deadline) {
                    early.incrementAndGet();
                }
                runs.incrementAndGet(k);
                done.countDown();
            }, deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
        }
        await(done);
        e.shutdown();
        assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(0, early.get(), "tasks run before their deadline");
        for (int i = 0; i < n; i++) {
            assertEquals(1, runs.get(i), "runs of task " + i);
        }
    }

    /**
     * shutdownNow() in the middle of a burst: each task ran once, or was
     * returned, or was cancelled (taken by a thread as the pool stopped),
     * and only one of these; none is lost on its way to the pool.
     */
    @Test
    void shutdownNowInTheMiddleOfABurstLosesNoTask() throws Exception {
        ScheduledExecutorService e = executor(1);
        int n = 5_000;
        AtomicIntegerArray runs = new AtomicIntegerArray(n);
        CountDownLatch first = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>(n);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        for (int i = 0; i < n; i++) {
            int k = i;
            futures.add(e.schedule(() -> {
                runs.incrementAndGet(k);
                first.countDown();
            }, deadline - System.nanoTime(), TimeUnit.NANOSECONDS));
        }
        await(first);
        Set<Object> returned = Collections.newSetFromMap(new IdentityHashMap<>());
        returned.addAll(e.shutdownNow());
        assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
        for (int i = 0; i < n; i++) {
            Future<?> f = futures.get(i);
            boolean ran = runs.get(i) == 1;
            boolean back = returned.contains(f);
            boolean cancelled = !back && f.isCancelled();
            assertTrue(runs.get(i) <= 1, "task " + i + " ran " + runs.get(i) + " times");
            assertEquals(1, (ran ? 1 : 0) + (back ? 1 : 0) + (cancelled ? 1 : 0),
                         "task " + i + ": ran " + ran + ", returned " + back + ", cancelled " + cancelled);
        }
    }

    @Test
    void terminationWaitsForTheLastTask() throws Exception {
        ScheduledExecutorService e = executor(2);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        Future<?> f = e.submit(() -> {
            started.countDown();
            release.await(Probe.LIMIT_SECONDS, TimeUnit.SECONDS);
            return null;
        });
        ScheduledFuture<?> later = e.schedule(() -> { }, 2 * period(), TimeUnit.NANOSECONDS);
        await(started);
        assertFalse(e.isShutdown());
        e.shutdown();
        e.shutdown();
        assertFalse(e.isTerminated());
        assertFalse(e.awaitTermination(20, TimeUnit.MILLISECONDS), "a task still runs");
        release.countDown();
        assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
        assertTrue(e.isTerminated());
        assertTrue(f.isDone() && later.isDone() && !later.isCancelled());
    }

    @Test
    void anIdleExecutorTerminatesAtShutdown() throws Exception {
        ScheduledExecutorService e = executor(2);
        e.shutdown();
        assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
        ScheduledExecutorService used = executor(2);
        get(used.schedule(() -> { }, 1, TimeUnit.MILLISECONDS));
        assertEquals(List.of(), used.shutdownNow());
        assertTrue(used.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
    }

    /**
     * A delayed task starts a core thread at its schedule, one per schedule
     * up to the core size, so that no task waits at its deadline for a
     * thread to be made (the first tasks of a new WheelScheduledExecutor
     * ran 1 to 2 ms late for it).
     */
    @Test
    void aDelayedTaskStartsACoreThreadAtItsSchedule() throws Exception {
        ScheduledExecutorService e = executor(2);
        ThreadPoolExecutor p = pool(e);
        e.schedule(() -> { }, 1, TimeUnit.HOURS);
        assertEquals(1, p.getPoolSize(), "one thread, before any task is due");
        e.scheduleWithFixedDelay(() -> { }, 1, 1, TimeUnit.HOURS);
        assertEquals(2, p.getPoolSize());
        e.scheduleAtFixedRate(() -> { }, 1, 1, TimeUnit.HOURS);
        e.schedule(() -> { }, 1, TimeUnit.HOURS);
        assertEquals(2, p.getPoolSize(), "no more than the core size");
        assertEquals(0, p.getCompletedTaskCount(), "none ran");
    }

    /*
     * ThreadPoolExecutor's face: what monitoring reads (sizes, counts, the
     * queue), removal and purge, the handler, the factory. Counts are
     * asserted where nothing moves: no task is being handed over.
     */

    @Test
    void theCountsMonitoringReadsAreExact() throws Exception {
        ScheduledExecutorService e = executor(2);
        ThreadPoolExecutor p = pool(e);
        setRemoveOnCancel(e, true);
        assertEquals(2, p.getCorePoolSize());
        assertEquals(0, p.getPoolSize());
        assertEquals(0, p.getActiveCount());
        assertEquals(0, p.getLargestPoolSize());
        assertEquals(0, p.getCompletedTaskCount());
        assertEquals(0, p.getTaskCount());
        assertEquals(0, p.getQueue().size());
        Blockers running = new Blockers(e, 2);
        List<Future<?>> queued = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            queued.add(e.submit(() -> { }));
        }
        List<ScheduledFuture<?>> delayed = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            delayed.add(e.schedule(() -> { }, 1, TimeUnit.HOURS));
        }
        assertEquals(2, p.getPoolSize());
        assertEquals(2, p.getActiveCount());
        assertEquals(2, p.getLargestPoolSize());
        assertEquals(0, p.getCompletedTaskCount());
        assertEquals(3 + 4, p.getQueue().size(), "queued for a thread, and delayed");
        assertEquals(2 + 3 + 4, p.getTaskCount(), "running, queued, delayed");
        assertTrue(delayed.get(0).cancel(false));
        assertTrue(queued.get(0).cancel(false));
        assertEquals(2 + 3, p.getQueue().size(), "cancelled tasks leave the queue (removeOnCancel)");
        assertEquals(2 + 2 + 3, p.getTaskCount());
        running.release();
        for (Future<?> f : queued.subList(1, 3)) {
            get(f);
        }
        Probe.eventually(() -> p.getCompletedTaskCount() == 4 && p.getActiveCount() == 0,
                         "the pool completes the running and the queued tasks");
        assertEquals(3, p.getQueue().size(), "the delayed tasks wait");
        assertEquals(4 + 3, p.getTaskCount(), "completed, delayed");
        assertEquals(2, p.getPoolSize(), "the core threads stay");
        assertEquals(2, p.getLargestPoolSize());
    }

    /**
     * Every due task waiting for the one thread is counted once, wherever it
     * waits (on WheelScheduledExecutor, in the wheel until the timer's
     * worker hands it to the pool's queue, then there).
     */
    @Test
    void dueTasksWaitingForAThreadAreCountedOnceEach() throws Exception {
        ScheduledExecutorService e = executor(1);
        ThreadPoolExecutor p = pool(e);
        Blockers running = new Blockers(e, 1);
        int n = 200;
        List<ScheduledFuture<?>> due = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            due.add(e.schedule(() -> { }, i % 20, TimeUnit.MILLISECONDS));
        }
        Probe.eventually(() -> due.stream().allMatch(f -> f.getDelay(TimeUnit.NANOSECONDS) <= 0)
                         && p.getQueue().size() == n && p.getTaskCount() == n + 1,
                         n + " tasks due, queued once each");
        running.release();
        for (ScheduledFuture<?> f : due) {
            get(f);
        }
        Probe.eventually(() -> p.getCompletedTaskCount() == n + 1, "every task completed");
        assertEquals(0, p.getQueue().size());
        assertEquals(n + 1, p.getTaskCount());
    }

    /** A periodic task waits in the queue between its runs, and is not in it during one. */
    @ParameterizedTest(name = "fixed rate: {0}")
    @ValueSource(booleans = {true, false})
    void aPeriodicTaskIsQueuedBetweenItsRunsNotDuringThem(boolean fixedRate) throws Exception {
        ScheduledExecutorService e = executor(1);
        ThreadPoolExecutor p = pool(e);
        BlockingQueue<Runnable> q = p.getQueue();
        CountDownLatch inRun = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        Runnable task = () -> {
            runs.incrementAndGet();
            inRun.countDown();
            await(release);
        };
        ScheduledFuture<?> f = fixedRate ? e.scheduleAtFixedRate(task, 0, 1, TimeUnit.HOURS)
                : e.scheduleWithFixedDelay(task, 0, 1, TimeUnit.HOURS);
        await(inRun);
        assertEquals(0, q.size(), "its run is under way");
        assertFalse(q.contains(f));
        assertEquals(1, p.getTaskCount());
        release.countDown();
        Probe.eventually(() -> p.getActiveCount() == 0, "the run ends");
        assertEquals(1, q.size(), "it waits for its next run");
        assertTrue(q.contains(f));
        assertEquals(1, runs.get());
        assertEquals(1, p.getCompletedTaskCount());
        assertEquals(2, p.getTaskCount(), "one run completed, the next waiting");
    }

    /**
     * The queue holds exactly the tasks waiting, for their time or for a
     * thread; its head is the earliest. (ScheduledThreadPoolExecutor's
     * iterates in its heap's order; WheelScheduledExecutorTest checks that
     * WheelScheduledExecutor's iterates in deadline order.)
     */
    @Test
    void theQueueHoldsTheWaitingTasksEarliestFirst() throws Exception {
        ScheduledExecutorService e = executor(1);
        BlockingQueue<Runnable> q = pool(e).getQueue();
        Blockers running = new Blockers(e, 1);
        assertTrue(q.isEmpty(), "a running task is not queued");
        Future<?> due = e.submit(() -> { });
        List<ScheduledFuture<?>> delayed = new ArrayList<>();
        for (int minutes : new int[] {50, 10, 40, 20, 30}) {
            delayed.add(e.schedule(() -> { }, 60 + minutes, TimeUnit.MINUTES));
        }
        assertEquals(6, q.size());
        Set<Object> want = Collections.newSetFromMap(new IdentityHashMap<>());
        want.add(due);
        want.addAll(delayed);
        Set<Object> got = Collections.newSetFromMap(new IdentityHashMap<>());
        got.addAll(q);
        assertEquals(want, got, "the waiting tasks, each once");
        for (Object f : want) {
            assertTrue(q.contains(f));
        }
        assertFalse(q.contains(running.futures.get(0)));
        assertSame(due, q.peek(), "the head: the task due, waiting for the thread");
        assertTrue(q.remove(due));
        assertSame(delayed.get(1), q.peek(), "then the earliest delayed one");
        assertTrue(pool(e).remove((Runnable) delayed.get(1)));
        assertSame(delayed.get(3), q.peek());
        assertEquals(4, q.size());
        running.release();
    }

    @Test
    void removeTakesOutAWaitingTaskWhichThenNeverRuns() throws Exception {
        ScheduledExecutorService e = executor(1);
        ThreadPoolExecutor p = pool(e);
        Blockers running = new Blockers(e, 1);
        AtomicInteger ran = new AtomicInteger();
        Runnable r = ran::incrementAndGet;
        Future<?> queued = e.submit(r);
        ScheduledFuture<?> delayed = e.schedule(r, 1, TimeUnit.HOURS);
        ScheduledFuture<?> periodic = e.scheduleAtFixedRate(r, 1, 1, TimeUnit.HOURS);
        ScheduledFuture<?> viaQueue = e.schedule(r, 2, TimeUnit.HOURS);
        assertFalse(p.remove((Runnable) running.futures.get(0)), "a running task does not wait");
        assertTrue(p.remove((Runnable) queued));
        assertFalse(p.remove((Runnable) queued), "removed once");
        assertTrue(p.remove((Runnable) delayed));
        assertTrue(p.remove((Runnable) periodic));
        assertTrue(p.getQueue().remove(viaQueue));
        for (Future<?> f : List.of(queued, delayed, periodic, viaQueue)) {
            assertFalse(p.getQueue().contains(f));
        }
        assertEquals(0, p.getQueue().size());
        assertEquals(1, p.getTaskCount(), "the running task");
        assertFalse(p.remove(r), "not a task of the executor: it took a future of it");
        running.release();
        e.shutdown();
        assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS), "nothing removed holds it up");
        assertEquals(0, ran.get());
        assertEquals(1, p.getCompletedTaskCount());
    }

    @Test
    void purgeTakesTheCancelledTasksOut() throws Exception {
        ScheduledExecutorService e = executor(1);
        ThreadPoolExecutor p = pool(e);
        assertFalse(removeOnCancel(e), "the default, ScheduledThreadPoolExecutor's");
        Blockers running = new Blockers(e, 1);
        List<Future<?>> kept = new ArrayList<>();
        List<Future<?>> cancelled = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            kept.add(e.submit(() -> { }));
            cancelled.add(e.submit(() -> { }));
            kept.add(e.schedule(() -> { }, 1, TimeUnit.HOURS));
            cancelled.add(e.schedule(() -> { }, 1, TimeUnit.HOURS));
        }
        for (Future<?> f : cancelled) {
            assertTrue(f.cancel(false));
        }
        p.purge();
        BlockingQueue<Runnable> q = p.getQueue();
        assertEquals(kept.size(), q.size());
        assertEquals(1 + kept.size(), p.getTaskCount());
        for (Future<?> f : cancelled) {
            assertFalse(q.contains(f));
        }
        for (Future<?> f : kept) {
            assertTrue(q.contains(f));
        }
        running.release();
    }

    @Test
    void withRemoveOnCancelACancelledTaskLeavesTheQueueAtOnce() throws Exception {
        ScheduledExecutorService e = executor(1);
        ThreadPoolExecutor p = pool(e);
        setRemoveOnCancel(e, true);
        assertTrue(removeOnCancel(e));
        Blockers running = new Blockers(e, 1);
        Future<?> queued = e.submit(() -> { });
        ScheduledFuture<?> delayed = e.schedule(() -> { }, 1, TimeUnit.HOURS);
        ScheduledFuture<?> periodic = e.scheduleWithFixedDelay(() -> { }, 1, 1, TimeUnit.HOURS);
        assertEquals(3, p.getQueue().size());
        for (Future<?> f : List.of(queued, delayed, periodic)) {
            assertTrue(f.cancel(false));
            assertFalse(p.getQueue().contains(f));
        }
        assertEquals(0, p.getQueue().size());
        assertEquals(1, p.getTaskCount());
        setRemoveOnCancel(e, false);
        assertFalse(removeOnCancel(e));
        running.release();
    }

    @Test
    void theRejectionHandlerIsCalledWithTheRefusedFutureAndTheExecutor() throws Exception {
        ScheduledExecutorService e = executor(1);
        ThreadPoolExecutor p = pool(e);
        assertInstanceOf(ThreadPoolExecutor.AbortPolicy.class, p.getRejectedExecutionHandler());
        List<Runnable> refused = Collections.synchronizedList(new ArrayList<>());
        List<ThreadPoolExecutor> by = Collections.synchronizedList(new ArrayList<>());
        RejectedExecutionHandler recorder = (r, x) -> {
            refused.add(r);
            by.add(x);
        };
        p.setRejectedExecutionHandler(recorder);
        assertSame(recorder, p.getRejectedExecutionHandler());
        assertEquals("ran", get(e.submit(() -> "ran")));
        assertEquals("later", get(e.schedule(() -> "later", 1, TimeUnit.MILLISECONDS)));
        assertEquals(0, refused.size(), "not called while the executor takes tasks");
        e.shutdown();
        AtomicInteger ran = new AtomicInteger();
        Runnable r = ran::incrementAndGet;
        e.execute(r);
        assertEquals(1, refused.size());
        List<Future<?>> returned = List.of(e.submit(r), e.submit(() -> "c"), e.schedule(r, 1, TimeUnit.SECONDS),
                                           e.schedule(() -> "c", 1, TimeUnit.SECONDS),
                                           e.scheduleAtFixedRate(r, 0, 1, TimeUnit.SECONDS),
                                           e.scheduleWithFixedDelay(r, 1, 1, TimeUnit.SECONDS));
        assertEquals(1 + returned.size(), refused.size(), "once per submission");
        for (int i = 0; i < returned.size(); i++) {
            assertSame(returned.get(i), refused.get(1 + i), "called with the future it returns");
            assertFalse(returned.get(i).isDone(), "refused, never run");
        }
        for (ThreadPoolExecutor x : by) {
            assertSame(p, x);
        }
        assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(0, ran.get());
        assertThrows(NullPointerException.class, () -> p.setRejectedExecutionHandler(null));
    }

    @Test
    void theThreadFactoryMakesThePoolsThreadsAndTheOneSetTheNextOnes() throws Exception {
        Threads first = new Threads();
        ScheduledExecutorService e = executor(1, first);
        ThreadPoolExecutor p = pool(e);
        assertSame(first, p.getThreadFactory());
        Threads second = threads();
        p.setThreadFactory(second);
        assertSame(second, p.getThreadFactory());
        Thread ranOn = get(e.submit(Thread::currentThread));
        assertTrue(second.made.contains(ranOn), "the pool's new thread comes from the factory set");
        assertThrows(NullPointerException.class, () -> p.setThreadFactory(null));
    }

    @ParameterizedTest(name = "shutdownNow: {0}")
    @ValueSource(booleans = {false, true})
    void isTerminatingBetweenShutdownAndTermination(boolean now) throws Exception {
        ScheduledExecutorService e = executor(1);
        ThreadPoolExecutor p = pool(e);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        e.execute(() -> {
            started.countDown();
            // Deaf to shutdownNow()'s interrupt.
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(Probe.LIMIT_SECONDS);
            while (release.getCount() != 0 && System.nanoTime() < end) {
                try {
                    release.await(Probe.LIMIT_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException x) {
                    // again
                }
            }
        });
        await(started);
        assertFalse(p.isTerminating(), "running");
        if (now) {
            e.shutdownNow();
        } else {
            e.shutdown();
        }
        assertTrue(p.isTerminating(), "shut down, a task still running");
        assertFalse(p.isTerminated());
        release.countDown();
        assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
        assertFalse(p.isTerminating(), "terminated");
        assertTrue(p.isTerminated());
    }

    @Test
    void setCorePoolSizeGrowsThePool() throws Exception {
        ScheduledExecutorService e = executor(1);
        ThreadPoolExecutor p = pool(e);
        assertEquals(1, p.getCorePoolSize());
        p.setCorePoolSize(3);
        assertEquals(3, p.getCorePoolSize());
        // Three tasks that wait for each other: they need three threads at once.
        CyclicBarrier all = new CyclicBarrier(3);
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            futures.add(e.submit(() -> all.await(Probe.LIMIT_SECONDS, TimeUnit.SECONDS)));
        }
        for (Future<?> f : futures) {
            get(f);
        }
        assertEquals(3, p.getPoolSize());
        assertEquals(3, p.getLargestPoolSize());
    }

    /** As ScheduledThreadPoolExecutor(0): a thread starts when a task comes. */
    @Test
    void aPoolOfNoCoreThreadStartsOneForATask() throws Exception {
        Threads threads = new Threads();
        ScheduledExecutorService e = executor(0, threads);
        assertEquals(0, pool(e).getCorePoolSize());
        assertEquals("now", get(e.submit(() -> "now")));
        assertEquals("later", get(e.schedule(() -> "later", 5, TimeUnit.MILLISECONDS)));
        assertTrue(threads.made.contains(get(e.submit(Thread::currentThread))));
    }

    /* invokeAll, invokeAny. */

    @Test
    void invokeAllReturnsEveryOutcomeInOrder() throws Exception {
        ScheduledExecutorService e = executor(2);
        IllegalStateException boom = new IllegalStateException();
        List<Callable<String>> tasks = List.of(() -> "a", () -> {
            throw boom;
        }, () -> "c");
        List<Future<String>> got = e.invokeAll(tasks);
        assertEquals(3, got.size());
        assertEquals("a", got.get(0).get());
        assertSame(boom, assertThrows(ExecutionException.class, () -> got.get(1).get()).getCause());
        assertEquals("c", got.get(2).get());
        assertEquals(List.of(), e.invokeAll(List.of()));
    }

    @Test
    void aTimedInvokeAllCancelsWhatDidNotFinish() throws Exception {
        ScheduledExecutorService e = executor(2);
        CountDownLatch release = new CountDownLatch(1);
        try {
            List<Callable<String>> tasks = List.of(() -> "a", () -> {
                release.await(Probe.LIMIT_SECONDS, TimeUnit.SECONDS);
                return "slow";
            });
            List<Future<String>> got = e.invokeAll(tasks, 50, TimeUnit.MILLISECONDS);
            for (Future<String> f : got) {
                assertTrue(f.isDone());
            }
            assertTrue(got.get(1).isCancelled(), "the slow one is cancelled at the timeout");
        } finally {
            release.countDown();
        }
    }

    @Test
    void invokeAnyReturnsAResultOrFailsWithTheTasksException() throws Exception {
        ScheduledExecutorService e = executor(2);
        assertEquals("x", e.invokeAny(List.of(() -> "x", () -> "x")));
        assertEquals("x", e.invokeAny(List.of(() -> "x"), Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
        NullPointerException npe = new NullPointerException("from the task");
        ExecutionException x = assertThrows(ExecutionException.class,
                                            () -> e.invokeAny(List.<Callable<String>>of(() -> {
                                                throw npe;
                                            })));
        assertSame(npe, x.getCause());
        assertThrows(IllegalArgumentException.class, () -> e.invokeAny(List.<Callable<String>>of()));
        CountDownLatch release = new CountDownLatch(1);
        try {
            assertThrows(TimeoutException.class, () -> e.invokeAny(List.<Callable<String>>of(() -> {
                release.await(Probe.LIMIT_SECONDS, TimeUnit.SECONDS);
                return "late";
            }), 20, TimeUnit.MILLISECONDS));
        } finally {
            release.countDown();
        }
    }

    /* Bad arguments. */

    @Test
    void nullsAreRefusedWithNullPointerException() {
        ScheduledExecutorService e = executor(1);
        Runnable r = () -> { };
        Callable<String> c = () -> "";
        List<Function<ScheduledExecutorService, Object>> calls = List.of(
                x -> {
                    x.execute(null);
                    return null;
                },
                x -> x.submit((Runnable) null),
                x -> x.submit((Runnable) null, ""),
                x -> x.submit((Callable<String>) null),
                x -> x.schedule((Runnable) null, 1, TimeUnit.SECONDS),
                x -> x.schedule((Callable<String>) null, 1, TimeUnit.SECONDS),
                x -> x.schedule(r, 1, null),
                x -> x.schedule(c, 1, null),
                x -> x.scheduleAtFixedRate(null, 1, 1, TimeUnit.SECONDS),
                x -> x.scheduleAtFixedRate(r, 1, 1, null),
                x -> x.scheduleWithFixedDelay(null, 1, 1, TimeUnit.SECONDS),
                x -> x.scheduleWithFixedDelay(r, 1, 1, null),
                x -> uncheck(() -> x.invokeAll(null)),
                x -> uncheck(() -> x.invokeAny(null)),
                x -> uncheck(() -> x.invokeAll(List.of(c), 1, null)),
                x -> uncheck(() -> x.awaitTermination(1, null)));
        int i = 0;
        for (Function<ScheduledExecutorService, Object> call : calls) {
            int k = i++;
            assertThrows(NullPointerException.class, () -> call.apply(e), "call " + k);
        }
        // invokeAny() starts its tasks one by one until one succeeds: the
        // first waits, so that the null one is reached.
        CountDownLatch release = new CountDownLatch(1);
        List<Callable<String>> withNull = new ArrayList<>();
        withNull.add(() -> {
            release.await(Probe.LIMIT_SECONDS, TimeUnit.SECONDS);
            return "";
        });
        withNull.add(null);
        try {
            assertThrows(NullPointerException.class, () -> e.invokeAll(withNull));
            assertThrows(NullPointerException.class, () -> e.invokeAny(withNull));
        } finally {
            release.countDown();
        }
    }

    private interface Call {
        Object call() throws Exception;
    }

    private static Object uncheck(Call c) {
        try {
            return c.call();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
