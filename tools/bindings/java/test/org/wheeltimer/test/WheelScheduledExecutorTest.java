// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * WheelScheduledExecutorTest.java - what WheelScheduledExecutor adds to, or
 * does differently from, ScheduledThreadPoolExecutor: the timer's worker
 * that only hands over, a caller's executor, the limit, cancelled tasks
 * that leave at once, fixed-rate runs owed while the pool is busy
 */
package org.wheeltimer.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.wheeltimer.WheelScheduledExecutor;
import org.wheeltimer.WheelTimerStats;

@DisplayName("WheelScheduledExecutor only")
class WheelScheduledExecutorTest {
    private final List<ExecutorService> executors = new ArrayList<>();

    private <E extends ExecutorService> E track(E e) {
        executors.add(e);
        return e;
    }

    @AfterEach
    void terminate() throws InterruptedException {
        for (ExecutorService e : executors) {
            e.shutdownNow();
            assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS), "terminates: " + e);
        }
    }

    /** An Executor that only queues: the test runs the tasks when it chooses. */
    private static final class Manual implements Executor {
        final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
        volatile boolean refuse;

        @Override
        public void execute(Runnable r) {
            if (refuse) {
                throw new RejectedExecutionException("refused by the test");
            }
            queue.add(r);
        }

        /** Runs what is queued, and what that queues, until nothing is; returns how many ran. */
        int drain() {
            int n = 0;
            Runnable r;
            while ((r = queue.poll()) != null) {
                r.run();
                n++;
            }
            return n;
        }
    }

    /**
     * The engine's FIXED_RATE timeout fires each period whether or not the
     * pool has run the task: every firing (and every period it reports
     * overrun) is owed a run. Here the pool runs nothing until the timer has
     * handed the task over six times; then one run hands the next over at
     * once, so that at least six run back to back, none skipped.
     */
    @Test
    void fixedRateOwesARunForEveryPeriodThatPassedWhileThePoolWasBusy() throws Exception {
        Manual pool = new Manual();
        WheelScheduledExecutor e = track(WheelScheduledExecutor.builder().executor(pool).build());
        AtomicInteger runs = new AtomicInteger();
        ScheduledFuture<?> f = e.scheduleAtFixedRate(runs::incrementAndGet, 0, 2, TimeUnit.MILLISECONDS);
        Probe.eventually(() -> e.stats().tasksRun() >= 6, "the timer fires six times");
        assertEquals(1, pool.queue.size(), "one hand-over at a time: the rest are owed");
        int ran = pool.drain();
        assertTrue(ran >= 6, "six periods owe six runs, back to back: " + ran);
        assertEquals(ran, runs.get());
        assertTrue(f.cancel(false));
    }

    /** The timer's worker only hands tasks over: none runs on it, and it sleeps while nothing is due. */
    @Test
    void theTimersWorkerRunsNoTaskAndSleepsWhileNothingIsDue() throws Exception {
        ExecutorContract.Threads threads = new ExecutorContract.Threads();
        WheelScheduledExecutor e = track(new WheelScheduledExecutor(2, threads));
        // The timer's worker is the factory's first thread.
        Thread worker = threads.made.get(0);
        Set<Thread> ranOn = ConcurrentHashMap.newKeySet();
        CountDownLatch done = new CountDownLatch(100);
        for (int i = 0; i < 100; i++) {
            e.schedule(() -> {
                ranOn.add(Thread.currentThread());
                done.countDown();
            }, i % 10, TimeUnit.MILLISECONDS);
        }
        for (int i = 0; i < 1000; i++) {
            e.schedule(() -> { }, 1, TimeUnit.HOURS);
        }
        Probe.await(done, "the tasks run");
        assertFalse(ranOn.contains(worker), "no task ran on the timer's worker");
        assertTrue(threads.made.containsAll(ranOn));
        int tid = e.timerThreadId();
        long before = Probe.settled(tid);
        Probe.sleep(300);
        assertEquals(before, Probe.contextSwitches(tid),
                     "the timer's worker slept through 300 ms with 1000 tasks an hour away");
    }

    @Test
    void delayedTasksBeyondMaxPendingTimeoutsAreRejected() throws Exception {
        WheelScheduledExecutor e = track(WheelScheduledExecutor.builder().maxPendingTimeouts(10).build());
        assertEquals(10, e.maxPendingTimeouts());
        List<ScheduledFuture<?>> held = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            held.add(e.schedule(() -> { }, 1, TimeUnit.HOURS));
        }
        assertThrows(RejectedExecutionException.class, () -> e.schedule(() -> { }, 1, TimeUnit.HOURS));
        assertThrows(RejectedExecutionException.class,
                     () -> e.scheduleAtFixedRate(() -> { }, 1, 1, TimeUnit.HOURS));
        assertEquals(10, e.pendingTasks(), "a rejected task leaves nothing behind");
        // Tasks with no delay are not timeouts: the limit does not count them.
        assertEquals("now", e.submit(() -> "now").get(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
        assertTrue(held.get(0).cancel(false));
        assertEquals(9, e.pendingTasks());
        held.add(e.schedule(() -> { }, 1, TimeUnit.HOURS));
    }

    /**
     * A fixed-delay task holds no timeout between its runs: if others fill
     * the limit meanwhile, its next run cannot be armed, and its future
     * fails with the rejection (ScheduledThreadPoolExecutor has no limit).
     */
    @Test
    void aFixedDelayTaskThatCannotBeReArmedFailsWithTheRejection() throws Exception {
        WheelScheduledExecutor e = track(WheelScheduledExecutor.builder().maxPendingTimeouts(2).build());
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch full = new CountDownLatch(1);
        ScheduledFuture<?> f = e.scheduleWithFixedDelay(() -> {
            running.countDown();
            Probe.await(full, "the limit is reached");
        }, 0, 1, TimeUnit.MILLISECONDS);
        Probe.await(running, "the first run");
        e.schedule(() -> { }, 1, TimeUnit.HOURS);
        e.schedule(() -> { }, 1, TimeUnit.HOURS);
        full.countDown();
        ExecutionException x = assertThrows(ExecutionException.class,
                                            () -> f.get(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
        assertInstanceOf(RejectedExecutionException.class, x.getCause());
    }

    /**
     * A cancelled task leaves the executor's count at the cancel and the engine and
     * the heap at the timer worker's next round, which the executor asks for,
     * whatever the remove-on-cancel policy says (ScheduledThreadPoolExecutor
     * keeps it until its delay has passed, unless the policy is true). Due
     * in 30 s, the tasks may be held far by the timer's worker, not its
     * engine: they leave that hold too.
     */
    @ParameterizedTest(name = "removeOnCancel: {0}, due in {1} s")
    @CsvSource({"false, 3600", "true, 3600", "false, 30", "true, 30"})
    void cancelledTasksLeaveTheEngineAndTheHeap(boolean removeOnCancel, long seconds) {
        WheelScheduledExecutor e = track(new WheelScheduledExecutor(1));
        assertFalse(e.getRemoveOnCancelPolicy(), "ScheduledThreadPoolExecutor's default");
        e.setRemoveOnCancelPolicy(removeOnCancel);
        int n = 5000;
        List<WeakReference<ScheduledFuture<?>>> refs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ScheduledFuture<?> f = e.schedule(() -> { }, seconds, TimeUnit.SECONDS);
            refs.add(new WeakReference<>(f));
        }
        Probe.eventually(() -> e.stats().live() == n, "the engine holds the tasks");
        for (WeakReference<ScheduledFuture<?>> r : refs) {
            ScheduledFuture<?> f = r.get();
            assertTrue(f != null && f.cancel(false));
        }
        assertEquals(0, e.pendingTasks(), "out of the count at the cancel");
        assertEquals(0, e.getQueue().size(), "and out of the queue");
        // Only then stats(), which has the worker take the cancels itself.
        Probe.eventually(() -> {
            System.gc();
            return refs.stream().allMatch(r -> r.get() == null);
        }, "every cancelled future collected");
        assertEquals(0, e.stats().live(), "out of the engine");
    }

    /**
     * With the default policy a cancel wakes the timer's worker only once
     * nothing is left pending, so here, as many tasks kept as cancelled,
     * the worker keeps the cancelled ones until a round of its own lets go
     * of them: for tasks 130 s away, which its far hold keeps, that is their
     * bucket's release, after the 120 s this waits. purge() has it let go
     * of them at once.
     */
    @ParameterizedTest(name = "due in {0} s")
    @ValueSource(longs = {3600, 130})
    void purgeLetsGoOfTheCancelledTasksWhileOthersWait(long seconds) {
        WheelScheduledExecutor e = track(new WheelScheduledExecutor(1));
        int n = 2000;
        List<ScheduledFuture<?>> kept = new ArrayList<>();
        List<WeakReference<ScheduledFuture<?>>> refs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            kept.add(e.schedule(() -> { }, seconds, TimeUnit.SECONDS));
            refs.add(new WeakReference<>(e.schedule(() -> { }, seconds, TimeUnit.SECONDS)));
        }
        Probe.eventually(() -> e.stats().live() == 2 * n, "the engine holds the tasks");
        for (WeakReference<ScheduledFuture<?>> r : refs) {
            ScheduledFuture<?> f = r.get();
            assertTrue(f != null && f.cancel(false));
        }
        e.purge();
        Probe.eventually(() -> {
            System.gc();
            return refs.stream().allMatch(r -> r.get() == null);
        }, "every cancelled future collected");
        assertEquals(n, e.getQueue().size(), "the others wait");
        assertEquals(n, e.stats().live());
        assertTrue(kept.stream().noneMatch(ScheduledFuture::isDone));
    }

    /**
     * A task due seconds ahead goes into the far hold of its caller's
     * stripe, which the timer's worker does not see: an idle worker sleeps
     * until something is due, and the caller must wake it for the hold's
     * release. Here the task runs once, and never early; a worker left
     * asleep would never run it. One held a minute ahead waits in the
     * queue, and shutdownNow() returns it.
     */
    @Test
    void aTaskHeldByItsCallerOnAnIdleExecutorRunsOnceNeverEarly() throws Exception {
        WheelScheduledExecutor e = track(new WheelScheduledExecutor(1));
        // The timer's worker starts with a first delayed task; time for it
        // to go to sleep until something is due.
        e.schedule(() -> { }, 1, TimeUnit.MILLISECONDS).get(Probe.LIMIT_SECONDS, TimeUnit.SECONDS);
        Thread.sleep(100);
        AtomicInteger runs = new AtomicInteger();
        long[] ranAt = new long[1];
        long scheduled = System.nanoTime();
        ScheduledFuture<?> f = e.schedule(() -> {
            ranAt[0] = System.nanoTime();
            runs.incrementAndGet();
        }, 3, TimeUnit.SECONDS);
        ScheduledFuture<?> minute = e.schedule(() -> { }, 1, TimeUnit.MINUTES);
        f.get(Probe.LIMIT_SECONDS, TimeUnit.SECONDS);
        assertTrue(ranAt[0] - scheduled >= TimeUnit.SECONDS.toNanos(3), "never early");
        assertEquals(List.of(minute), new ArrayList<>(e.getQueue()));
        assertEquals(List.of(minute), e.shutdownNow());
        assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(1, runs.get(), "once");
        assertEquals(2, e.getCompletedTaskCount(), "the first task and this one");
    }

    @Test
    void tasksRunOnTheCallersExecutorWhichShutdownLeavesRunning() throws Exception {
        ExecutorService theirs = track(Executors.newFixedThreadPool(2, r -> new Thread(r, "theirs")));
        WheelScheduledExecutor e = track(WheelScheduledExecutor.builder().executor(theirs).build());
        assertEquals("theirs", e.schedule(() -> Thread.currentThread().getName(), 5,
                                          TimeUnit.MILLISECONDS).get(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
        assertEquals("theirs", e.submit(() -> Thread.currentThread().getName())
                .get(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
        ScheduledFuture<?> later = e.schedule(() -> { }, 3 * 20, TimeUnit.MILLISECONDS);
        ScheduledFuture<?> far = e.schedule(() -> { }, 1, TimeUnit.HOURS);
        e.shutdown();
        assertFalse(e.isTerminated());
        assertTrue(e.shutdownNow().contains(far), "shutdownNow() returns what waits for its delay");
        later.cancel(false);
        assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
        assertFalse(theirs.isShutdown(), "the caller's executor is the caller's to shut down");
    }

    /**
     * A caller's executor that refuses a due task fails its future with the
     * refusal; if that was the last task after shutdown(), the executor
     * terminates and its timer's worker, which met the refusal, ends.
     */
    @Test
    void aRefusalAtTheDeadlineFailsTheFutureAndTerminationStillComes() throws Exception {
        Manual theirs = new Manual();
        ExecutorContract.Threads threads = new ExecutorContract.Threads();
        WheelScheduledExecutor e = track(WheelScheduledExecutor.builder().executor(theirs)
                                                 .threadFactory(threads).build());
        ScheduledFuture<?> f = e.schedule(() -> { }, 20, TimeUnit.MILLISECONDS);
        theirs.refuse = true;
        e.shutdown();
        ExecutionException x = assertThrows(ExecutionException.class,
                                            () -> f.get(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
        assertInstanceOf(RejectedExecutionException.class, x.getCause());
        assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
        for (Thread t : new ArrayList<>(threads.made)) {
            t.join(TimeUnit.SECONDS.toMillis(Probe.LIMIT_SECONDS));
            assertFalse(t.isAlive(), t.getName() + " ended");
        }
    }

    /** With a caller's executor, shutdownNow() cannot take back what it was given: those are cancelled when run. */
    @Test
    void afterShutdownNowTasksGivenToTheCallersExecutorAreCancelledWhenItRunsThem() throws Exception {
        Manual theirs = new Manual();
        WheelScheduledExecutor e = track(WheelScheduledExecutor.builder().executor(theirs).build());
        AtomicInteger ran = new AtomicInteger();
        ScheduledFuture<?> given = e.schedule(ran::incrementAndGet, 0, TimeUnit.MILLISECONDS);
        ScheduledFuture<?> waiting = e.schedule(ran::incrementAndGet, 1, TimeUnit.HOURS);
        assertEquals(List.of(waiting), e.shutdownNow());
        assertFalse(e.isTerminated(), "the caller's executor still holds a task");
        assertEquals(1, theirs.drain());
        assertTrue(given.isCancelled());
        assertEquals(0, ran.get());
        assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
    }

    /**
     * Termination racing the timer's last hand-overs: tasks due at once,
     * cancelled as they fall due, and shutdown(). After the cancels, the
     * timer's worker may be handing a task just cancelled to the pool
     * (starting one of its threads, under the pool's lock) when the last
     * cancel lets the executor terminate; stopping the timer from inside
     * the pool's termination, under that lock, waited for the worker for
     * ever. Before them (the delayed tasks may still run), the last count
     * to go is often the timer's, as its worker lets go of a task it found
     * cancelled: that must let the executor terminate too.
     */
    @ParameterizedTest(name = "shutdown() before the cancels: {0}")
    @ValueSource(booleans = {false, true})
    void terminationRacingTheLastHandOversCompletes(boolean shutdownFirst) throws Exception {
        for (int round = 0; round < 100; round++) {
            WheelScheduledExecutor e = new WheelScheduledExecutor(2);
            List<ScheduledFuture<?>> futures = new ArrayList<>();
            long due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5);
            for (int i = 0; i < 2000; i++) {
                futures.add(e.schedule(() -> { }, due - System.nanoTime(), TimeUnit.NANOSECONDS));
            }
            if (shutdownFirst) {
                e.shutdown();
            }
            // The cancels as the tasks fall due: some are being handed over.
            while (System.nanoTime() < due) {
                Thread.onSpinWait();
            }
            for (ScheduledFuture<?> f : futures) {
                f.cancel(false);
            }
            e.shutdown();
            assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS),
                       "round " + round + ": the executor terminates");
        }
    }

    /**
     * A delayed task's future is its timer timeout: seen as a Netty
     * Timeout, its cancel() cancels the future, and isCancelled() is the
     * future's.
     */
    @Test
    void theFutureSeenAsItsTimeoutCancelsAsTheFuture() throws Exception {
        WheelScheduledExecutor e = track(new WheelScheduledExecutor(1));
        AtomicInteger ran = new AtomicInteger();
        ScheduledFuture<?> f = e.schedule(ran::incrementAndGet, 30, TimeUnit.MILLISECONDS);
        io.netty.util.Timeout t = assertInstanceOf(io.netty.util.Timeout.class, f);
        assertFalse(t.isCancelled());
        assertTrue(t.cancel());
        assertTrue(f.isCancelled() && f.isDone() && t.isCancelled());
        assertFalse(f.cancel(false), "cancelled once");
        assertEquals(0, e.pendingTasks());
        Probe.sleep(60);
        assertEquals(0, ran.get(), "never runs");
    }

    @Test
    void comparesWithScheduledThreadPoolExecutorsFutures() {
        WheelScheduledExecutor e = track(new WheelScheduledExecutor(1));
        ScheduledThreadPoolExecutor s = track(new ScheduledThreadPoolExecutor(1));
        ScheduledFuture<?> ours = e.schedule(() -> { }, 1, TimeUnit.HOURS);
        ScheduledFuture<?> theirs = s.schedule(() -> { }, 2, TimeUnit.HOURS);
        assertTrue(ours.compareTo(theirs) < 0);
        assertTrue(theirs.compareTo(ours) > 0);
        assertNotEquals(0, ours.compareTo(e.schedule(() -> { }, 1, TimeUnit.HOURS)));
    }

    /**
     * Tasks due seconds ahead, which the timer's worker holds far, are in
     * the queue view in deadline order; remove() cancels one; shutdownNow()
     * returns the others, never run.
     */
    @Test
    void tasksHeldFarAreQueuedRemovableAndReturnedByShutdownNow() throws Exception {
        WheelScheduledExecutor e = track(new WheelScheduledExecutor(1));
        AtomicInteger ran = new AtomicInteger();
        List<ScheduledFuture<?>> want = new ArrayList<>();
        for (int s : new int[] {20, 10, 30}) {
            want.add(e.schedule(ran::incrementAndGet, s, TimeUnit.SECONDS));
        }
        want.sort(Comparator.comparingLong(f -> f.getDelay(TimeUnit.NANOSECONDS)));
        Probe.eventually(() -> e.stats().live() == want.size(), "the far tasks taken");
        assertEquals(want, new ArrayList<>(e.getQueue()), "in the queue, in deadline order");
        assertTrue(e.remove((Runnable) want.get(1)));
        assertTrue(want.get(1).isCancelled());
        assertFalse(e.getQueue().contains(want.get(1)));
        Set<Object> back = Collections.newSetFromMap(new IdentityHashMap<>());
        back.addAll(e.shutdownNow());
        assertEquals(Set.of(want.get(0), want.get(2)), back, "the far tasks returned, not the one removed");
        assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS));
        assertEquals(0, ran.get());
    }

    /**
     * The queue view iterates in deadline order, whatever the order of the
     * schedules: first the tasks due, waiting for the thread (in the order
     * they were queued), then those in the wheel; removing a task through
     * it (or remove()) cancels it, where ScheduledThreadPoolExecutor leaves
     * the future of a task it removed not done for ever.
     */
    @Test
    void theQueueIsInDeadlineOrderAndRemovingATaskCancelsIt() throws Exception {
        WheelScheduledExecutor e = track(new WheelScheduledExecutor(1));
        BlockingQueue<Runnable> q = e.getQueue();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        e.execute(() -> {
            started.countDown();
            Probe.await(release, "the release");
        });
        Probe.await(started, "the blocking task");
        List<ScheduledFuture<?>> want = new ArrayList<>();
        want.add(e.schedule(() -> { }, 0, TimeUnit.SECONDS));
        want.add(e.schedule(() -> { }, -1, TimeUnit.SECONDS));
        int[] minutes = {7, 3, 9, 1, 5, 8, 2, 6, 4};
        ScheduledFuture<?>[] delayed = new ScheduledFuture<?>[10];
        for (int m : minutes) {
            delayed[m] = m == 5 ? e.scheduleAtFixedRate(() -> { }, m, 60, TimeUnit.MINUTES)
                    : m == 6 ? e.scheduleWithFixedDelay(() -> { }, m, 60, TimeUnit.MINUTES)
                    : e.schedule(() -> { }, m, TimeUnit.MINUTES);
        }
        for (int m = 1; m <= 9; m++) {
            want.add(delayed[m]);
        }
        assertEquals(want, new ArrayList<>(q), "deadline order");
        assertEquals(want.size(), q.size());
        assertSame(want.get(0), q.peek());
        Iterator<Runnable> it = q.iterator();
        it.next();
        it.next();
        assertSame(delayed[1], it.next());
        it.remove();
        assertTrue(delayed[1].isCancelled(), "removed through the iterator: cancelled");
        assertTrue(e.remove((Runnable) delayed[2]));
        assertTrue(delayed[2].isCancelled(), "remove(): cancelled");
        assertTrue(q.remove(delayed[5]));
        assertTrue(delayed[5].isCancelled(), "a fixed-rate task removed from the queue: cancelled");
        assertSame(want.get(0), q.poll(), "poll() takes the head");
        assertTrue(want.get(0).isCancelled());
        List<Runnable> drained = new ArrayList<>();
        assertEquals(want.size() - 4, q.drainTo(drained));
        assertEquals(List.of(want.get(1), delayed[3], delayed[4], delayed[6], delayed[7], delayed[8], delayed[9]),
                     drained);
        for (Runnable r : drained) {
            assertTrue(((ScheduledFuture<?>) r).isCancelled());
        }
        assertTrue(q.isEmpty());
        assertEquals(0, e.pendingTasks());
        assertThrows(UnsupportedOperationException.class, () -> q.offer(() -> { }));
        assertThrows(UnsupportedOperationException.class, q::take);
        release.countDown();
    }

    /**
     * Refused by the limit, a delayed task goes to the rejection handler;
     * one that returns (DiscardPolicy) gets the future back, never done,
     * whose cancel() leaves the timer's count of pending timeouts alone
     * (the timer never had it).
     */
    @Test
    void aFutureRefusedByTheLimitGoesToTheHandlerAndCancelsHarmlessly() {
        WheelScheduledExecutor e = track(WheelScheduledExecutor.builder().maxPendingTimeouts(2)
                                                 .rejectedExecutionHandler(new ThreadPoolExecutor.DiscardPolicy())
                                                 .build());
        e.schedule(() -> { }, 1, TimeUnit.HOURS);
        e.schedule(() -> { }, 1, TimeUnit.HOURS);
        assertEquals(0, e.getQueue().remainingCapacity());
        ScheduledFuture<?> refused = e.schedule(() -> { }, 1, TimeUnit.HOURS);
        assertFalse(refused.isDone());
        assertEquals(2, e.getQueue().size());
        assertTrue(refused.cancel(false));
        assertEquals(0, e.getQueue().remainingCapacity(), "the two pending still fill the limit");
        assertEquals(2, e.pendingTasks());
    }

    /** With a caller's executor the pool starts no thread; the queue holds the delayed tasks. */
    @Test
    void withACallersExecutorThePoolStartsNoThread() throws Exception {
        Manual theirs = new Manual();
        WheelScheduledExecutor e = track(WheelScheduledExecutor.builder().executor(theirs).build());
        ScheduledFuture<?> given = e.schedule(() -> { }, 0, TimeUnit.SECONDS);
        ScheduledFuture<?> delayed = e.schedule(() -> { }, 1, TimeUnit.HOURS);
        assertEquals(List.of(delayed), new ArrayList<>(e.getQueue()), "the task given to them is out of sight");
        assertEquals(1, e.getQueue().size());
        assertEquals(1, e.getTaskCount());
        assertEquals(1, theirs.drain());
        assertTrue(given.isDone());
        assertEquals(0, e.getPoolSize());
        assertEquals(0, e.getLargestPoolSize());
        assertEquals(0, e.getCompletedTaskCount());
    }

    @Test
    void theBuilderRefusesBadArguments() {
        assertThrows(IllegalArgumentException.class, () -> WheelScheduledExecutor.builder().poolSize(-1));
        assertThrows(IllegalArgumentException.class, () -> new WheelScheduledExecutor(-1));
        assertThrows(NullPointerException.class, () -> new WheelScheduledExecutor(1, (ThreadFactory) null));
        assertThrows(NullPointerException.class,
                     () -> new WheelScheduledExecutor(1, (RejectedExecutionHandler) null));
        assertThrows(NullPointerException.class,
                     () -> WheelScheduledExecutor.builder().rejectedExecutionHandler(null));
        assertThrows(IllegalArgumentException.class,
                     () -> WheelScheduledExecutor.builder().resolution(0, TimeUnit.SECONDS));
        assertThrows(IllegalArgumentException.class,
                     () -> WheelScheduledExecutor.builder().resolution(2, TimeUnit.HOURS));
        assertThrows(NullPointerException.class, () -> WheelScheduledExecutor.builder().executor(null));
        assertThrows(NullPointerException.class, () -> WheelScheduledExecutor.builder().threadFactory(null));
        assertThrows(NullPointerException.class, () -> WheelScheduledExecutor.builder().engine(null));
    }

    /** stats() are the timer's: one run of its worker per task handed over. */
    @Test
    void statsCountTheHandOvers() throws Exception {
        WheelScheduledExecutor e = track(new WheelScheduledExecutor(1));
        WheelTimerStats before = e.stats();
        e.schedule(() -> { }, 1, TimeUnit.MILLISECONDS).get(Probe.LIMIT_SECONDS, TimeUnit.SECONDS);
        assertEquals(before.tasksRun() + 1, e.stats().tasksRun(), "one hand-over per due task");
        assertThrows(TimeoutException.class,
                     () -> e.schedule(() -> { }, 1, TimeUnit.HOURS).get(1, TimeUnit.MILLISECONDS));
        assertSame(e.engine(), e.stats().engine());
    }
    /**
     * With a caller's executor that runs tasks where it is called, a task
     * runs on the timer's worker, in the middle of its round. Its
     * shutdown() must still apply the policies to what it scheduled just
     * before, which the worker has not taken yet: the delayed task is
     * cancelled (its policy says so), the periodic one is cancelled (the
     * default), and the executor terminates without waiting for them.
     */
    @Test
    void aShutdownFromATaskOnTheWorkerAppliesThePoliciesToWhatItJustScheduled() throws Exception {
        WheelScheduledExecutor e = track(WheelScheduledExecutor.builder().executor(Runnable::run).build());
        e.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        List<ScheduledFuture<?>> made = new ArrayList<>();
        e.schedule(() -> {
            made.add(e.schedule(() -> { }, 1, TimeUnit.HOURS));
            made.add(e.scheduleAtFixedRate(() -> { }, 1, 1, TimeUnit.HOURS));
            e.shutdown();
        }, 1, TimeUnit.MILLISECONDS);
        assertTrue(e.awaitTermination(Probe.LIMIT_SECONDS, TimeUnit.SECONDS),
                   "terminates: nothing it scheduled outlives the shutdown");
        assertEquals(2, made.size());
        for (ScheduledFuture<?> f : made) {
            assertTrue(f.isCancelled(), "cancelled by the policies: " + f);
        }
    }

    /**
     * A pending delayed task is one object of 48 bytes, as the binding's
     * README states: the future that is its own timeout. The engine's
     * handle is in the timer worker's table, not in the task (it was, and
     * the task was 56 bytes).
     */
    @Test
    void aPendingTaskIsFortyEightBytes() {
        WheelScheduledExecutor e = track(new WheelScheduledExecutor(1));
        List<ScheduledFuture<?>> pending = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            pending.add(e.schedule(() -> { }, 1, TimeUnit.HOURS));
        }
        assertEquals(48, Probe.bytesPerInstance(pending.get(0).getClass()));
        pending.forEach(f -> f.cancel(false));
    }
}
