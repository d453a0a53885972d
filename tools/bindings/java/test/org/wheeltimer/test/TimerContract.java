// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * TimerContract.java - the io.netty.util.Timer contract, as tests that
 * every implementation must pass: Netty's HashedWheelTimer and WheelTimer
 */
package org.wheeltimer.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The contract. Every assertion holds at any speed: a task never runs
 * before its deadline, runs exactly once or is cancelled, runs in deadline
 * order, and the counts add up. How late a task runs is never asserted
 * (that is the benchmark's business): where the two timers differ by
 * design, each side's documented behaviour is checked through the hooks
 * below, and the test says so.
 */
abstract class TimerContract {
    /** A new timer with this worker thread factory; maxPending &lt;= 0: no limit of the caller's. */
    abstract Timer newTimer(Probe.Named threads, long maxPendingTimeouts);

    /** {@code pendingTimeouts()}, which Netty's Timer interface does not have. */
    abstract long pendingTimeouts(Timer timer);

    /** The tick, or the resolution: a task runs at most about this late (plus scheduling). */
    abstract long precisionNanos();

    /**
     * By design: HashedWheelTimer counts a cancelled timeout as pending until
     * its worker's next tick; WheelTimer stops counting it at the cancel.
     */
    abstract boolean pendingDropsAtCancel();

    /**
     * By design: HashedWheelTimer's worker wakes every tick, WheelTimer's
     * only when a timeout is due or a caller needs it.
     */
    abstract boolean workerTicks();

    /** The java.util.logging logger a throwing task is reported to. */
    abstract String loggerName();

    /**
     * A timer made by the constructor {@code (ThreadFactory, long, TimeUnit,
     * int, boolean, long)}, with the default limit, to check its arguments.
     */
    abstract Timer newTimer(Probe.Named threads, long tickDuration, TimeUnit unit,
                            int ticksPerWheel);

    /**
     * Whether stop() cancels the timeouts it returns, as Timer.stop()'s
     * javadoc says: WheelTimer's does, and Netty's since 4.1.111; 4.1.48's
     * returns them uncancelled.
     */
    abstract boolean stopCancelsWhatItReturns();

    private final List<Timer> timers = new ArrayList<>();
    protected Probe.Named threads;

    Timer timer() {
        return timer(-1);
    }

    Timer timer(long maxPending) {
        threads = new Probe.Named();
        Timer t = newTimer(threads, maxPending);
        timers.add(t);
        return t;
    }

    @AfterEach
    void stopTimers() {
        for (Timer t : timers) {
            t.stop();
        }
    }

    /** Records when, on which thread and in which order tasks ran. */
    static final class Runs {
        final AtomicIntegerArray count;
        final long[] at;
        final Thread[] thread;
        final ConcurrentLinkedQueue<Integer> order = new ConcurrentLinkedQueue<>();
        final CountDownLatch done;

        Runs(int n) {
            count = new AtomicIntegerArray(n);
            at = new long[n];
            thread = new Thread[n];
            done = new CountDownLatch(n);
        }

        TimerTask task(int i) {
            return timeout -> {
                at[i] = System.nanoTime();
                thread[i] = Thread.currentThread();
                order.add(i);
                count.incrementAndGet(i);
                done.countDown();
            };
        }
    }

    @Test
    void runsEachTaskOnceOnTheWorkerNeverBeforeItsDeadline() {
        Timer timer = timer();
        int n = 50;
        Runs runs = new Runs(n);
        long[] earliest = new long[n];
        Timeout[] timeouts = new Timeout[n];
        for (int i = 0; i < n; i++) {
            long delay = TimeUnit.MILLISECONDS.toNanos(i % 10) + i * 1000L;
            earliest[i] = System.nanoTime() + delay;
            timeouts[i] = timer.newTimeout(runs.task(i), delay, TimeUnit.NANOSECONDS);
        }
        Probe.await(runs.done, "every task runs");
        // Stopping first: a task that ran twice would have done so by now.
        assertEquals(Set.of(), timer.stop());
        Thread worker = runs.thread[0];
        assertNotSame(Thread.currentThread(), worker);
        for (int i = 0; i < n; i++) {
            assertEquals(1, runs.count.get(i), "task " + i + " runs once");
            assertTrue(runs.at[i] >= earliest[i], "task " + i + " never runs early: "
                       + (earliest[i] - runs.at[i]) + " ns early");
            assertSame(worker, runs.thread[i], "every task on the one worker thread");
            assertTrue(timeouts[i].isExpired());
            assertFalse(timeouts[i].isCancelled());
            assertSame(timer, timeouts[i].timer());
        }
    }

    /**
     * Tasks run in deadline order, also when the worker is late: task 9
     * holds it until every later deadline has passed, so that tasks 10 to
     * 19 are all due at once. A timer reads its clock inside newTimeout(),
     * so a deadline is only known to lie between two readings around the
     * call; the order is checked for every pair whose ranges are more than
     * a tick apart (the deadlines are three ticks apart, so all of them
     * unless a call was preempted).
     */
    @Test
    void runsTasksInDeadlineOrder() {
        Timer timer = timer();
        int n = 20;
        Runs runs = new Runs(n);
        long tick = precisionNanos();
        long base = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
        long[] lo = new long[n];
        long[] hi = new long[n];
        List<Integer> shuffled = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            shuffled.add(i);
        }
        Collections.shuffle(shuffled, new Random(13));
        long allDue = base + (n + 1) * 3 * tick;
        for (int i : shuffled) {
            TimerTask task = runs.task(i);
            if (i == 9) {
                task = x -> {
                    while (System.nanoTime() - allDue < 0) {
                        Probe.sleep(1);
                    }
                    runs.task(9).run(x);
                };
            }
            long before = System.nanoTime();
            long delay = base + i * 3 * tick - before;
            timer.newTimeout(task, delay, TimeUnit.NANOSECONDS);
            lo[i] = before + delay;
            hi[i] = System.nanoTime() + delay;
        }
        // Scheduled after its deadline, a task would run at once.
        assumeTrue(System.nanoTime() < base, "scheduling took longer than 300 ms");
        Probe.await(runs.done, "every task runs");
        int[] position = new int[n];
        int p = 0;
        for (int i : runs.order) {
            position[i] = p++;
        }
        int checked = 0;
        for (int a = 0; a < n; a++) {
            for (int b = 0; b < n; b++) {
                if (hi[a] + tick < lo[b]) {
                    checked++;
                    assertTrue(position[a] < position[b], "task " + a + " runs before task " + b
                               + ": " + runs.order);
                }
            }
        }
        assumeTrue(checked >= n * (n - 1) / 4, "too few pairs in a known order: " + checked);
    }

    @Test
    void aTaskCancelledBeforeItsDeadlineNeverRuns() {
        Timer timer = timer();
        AtomicInteger ran = new AtomicInteger();
        long delay = 10 * precisionNanos();
        long armed = System.nanoTime();
        Timeout t = timer.newTimeout(x -> ran.incrementAndGet(), delay, TimeUnit.NANOSECONDS);
        if (!t.cancel()) {
            // Only a machine slower than the delay may see the task run first.
            assumeTrue(System.nanoTime() - armed < delay, "the cancel came after the deadline");
            fail("the first cancel cancels");
        }
        assertTrue(t.isCancelled());
        assertFalse(t.isExpired());
        assertFalse(t.cancel(), "a second cancel does nothing");
        // The sentinel is due later: in deadline order, the cancelled task
        // would have run before it.
        Runs sentinel = new Runs(1);
        timer.newTimeout(sentinel.task(0), 20 * precisionNanos(), TimeUnit.NANOSECONDS);
        Probe.await(sentinel.done, "the sentinel runs");
        assertEquals(0, ran.get(), "the cancelled task never ran");
        assertFalse(timer.stop().contains(t), "stop() does not return a cancelled timeout");
    }

    @Test
    void cancelAfterTheRunFails() {
        Timer timer = timer();
        Runs runs = new Runs(1);
        Timeout t = timer.newTimeout(runs.task(0), 0, TimeUnit.MILLISECONDS);
        Probe.await(runs.done, "the task runs");
        assertTrue(t.isExpired());
        assertFalse(t.cancel(), "too late to cancel");
        assertFalse(t.isCancelled());
        assertEquals(1, runs.count.get(0));
    }

    /**
     * Exact cancel, with cancels racing the firings: each task ran or its
     * cancel() returned true, never both, never neither. WheelTimer promises
     * this (WheelTimeout); HashedWheelTimer 4.1.48 also decides with one
     * compare-and-set, without promising it, and passes too. The deadlines
     * spread over 50 ticks and the cancels start once a task has run, from
     * the latest deadline down, so that both outcomes occur.
     */
    @Test
    void aTaskRunsOrItsCancelSucceedsNeverBoth() throws InterruptedException {
        Timer timer = timer();
        int n = 2000;
        AtomicIntegerArray ran = new AtomicIntegerArray(n);
        AtomicIntegerArray cancelled = new AtomicIntegerArray(n);
        AtomicInteger settled = new AtomicInteger();
        Timeout[] timeouts = new Timeout[n];
        CountDownLatch made = new CountDownLatch(1);
        CountDownLatch firstRun = new CountDownLatch(1);
        Thread canceller = new Thread(() -> {
            Probe.await(made, "the timeouts are made");
            Probe.await(firstRun, "a first task runs");
            for (int i = n - 1; i >= 0; i--) {
                if (timeouts[i].cancel()) {
                    cancelled.incrementAndGet(i);
                    settled.incrementAndGet();
                }
            }
        });
        canceller.start();
        for (int i = 0; i < n; i++) {
            int k = i;
            timeouts[i] = timer.newTimeout(x -> {
                ran.incrementAndGet(k);
                settled.incrementAndGet();
                firstRun.countDown();
            }, i * 50 / n * precisionNanos(), TimeUnit.NANOSECONDS);
        }
        made.countDown();
        canceller.join();
        Probe.eventually(() -> settled.get() >= n, "every timeout runs or is cancelled");
        timer.stop();
        int r = 0;
        for (int i = 0; i < n; i++) {
            assertEquals(1, ran.get(i) + cancelled.get(i), "timeout " + i + ": ran "
                         + ran.get(i) + ", cancel() true " + cancelled.get(i));
            assertEquals(ran.get(i) == 1, timeouts[i].isExpired());
            assertEquals(cancelled.get(i) == 1, timeouts[i].isCancelled());
            r += ran.get(i);
        }
        assertEquals(n, settled.get());
        System.out.println("# " + r + " of " + n + " ran, " + (n - r) + " were cancelled");
    }

    @Test
    void stopReturnsTheTimeoutsThatNeitherRanNorWereCancelled() {
        Timer timer = timer();
        AtomicInteger ran = new AtomicInteger();
        Set<Timeout> far = new HashSet<>();
        Timeout cancelled = null;
        for (int i = 0; i < 5; i++) {
            Timeout t = timer.newTimeout(x -> ran.incrementAndGet(), 1, TimeUnit.HOURS);
            if (i == 1) {
                cancelled = t;
            } else {
                far.add(t);
            }
        }
        assertTrue(cancelled.cancel());
        Runs now = new Runs(1);
        Timeout expired = timer.newTimeout(now.task(0), 0, TimeUnit.MILLISECONDS);
        Probe.await(now.done, "the immediate task runs");

        Set<Timeout> unprocessed = timer.stop();
        assertEquals(far, unprocessed);
        for (Timeout t : unprocessed) {
            assertFalse(t.isExpired());
            if (stopCancelsWhatItReturns()) {
                assertTrue(t.isCancelled(), "stop() cancels what it returns");
                assertFalse(t.cancel(), "a timeout stop() cancelled is cancelled once");
            } else {
                assertFalse(t.isCancelled(), "Netty before 4.1.111 returns them uncancelled");
            }
        }
        assertTrue(cancelled.isCancelled());
        assertTrue(expired.isExpired());
        assertEquals(0, ran.get());
        assertEquals(Set.of(), timer.stop(), "a second stop() returns nothing");
        assertThrows(UnsupportedOperationException.class, () -> unprocessed.add(expired),
                     "the set is unmodifiable");
        assertThrows(IllegalStateException.class,
                     () -> timer.newTimeout(x -> { }, 1, TimeUnit.MILLISECONDS),
                     "a stopped timer takes no timeout");
    }

    /**
     * Netty's Timer.stop() javadoc: stop() "cancels all tasks scheduled but
     * not yet executed" and returns them (Netty's own
     * testStopTimerCancelsPendingTasks, since 4.1.111).
     */
    @Test
    void stopCancelsEveryTimeoutItReturns() {
        assumeTrue(stopCancelsWhatItReturns(), "Netty before 4.1.111 does not");
        Timer timer = timer();
        List<Timeout> made = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            made.add(timer.newTimeout(x -> { }, 5, TimeUnit.SECONDS));
        }
        Set<Timeout> unprocessed = timer.stop();
        assertEquals(new HashSet<>(made), unprocessed);
        for (Timeout t : unprocessed) {
            assertTrue(t.isCancelled(), "every unprocessed timeout is cancelled");
            assertFalse(t.isExpired());
        }
    }

    /**
     * Both refuse what Netty's HashedWheelTimer refuses: a tick that is not
     * positive, a wheel that is not 1 .. 2^30 ticks, a tick whose product
     * with the wheel (rounded up to a power of two) does not fit a long;
     * and a null unit or thread factory.
     */
    @Test
    void theConstructorRefusesWhatNettyRefuses() {
        Probe.Named threads = new Probe.Named();
        TimeUnit ms = TimeUnit.MILLISECONDS;
        assertThrows(IllegalArgumentException.class, () -> newTimer(threads, 0, ms, 512));
        assertThrows(IllegalArgumentException.class, () -> newTimer(threads, -1, ms, 512));
        assertThrows(IllegalArgumentException.class, () -> newTimer(threads, 1, ms, 0));
        assertThrows(IllegalArgumentException.class, () -> newTimer(threads, 1, ms, -1));
        assertThrows(IllegalArgumentException.class,
                     () -> newTimer(threads, 1, ms, (1 << 30) + 1));
        assertThrows(IllegalArgumentException.class,
                     () -> newTimer(threads, Long.MAX_VALUE, ms, 8), "the issue's example");
        assertThrows(IllegalArgumentException.class,
                     () -> newTimer(threads, Long.MAX_VALUE / 8, TimeUnit.NANOSECONDS, 8));
        assertThrows(IllegalArgumentException.class,
                     () -> newTimer(threads, Long.MAX_VALUE / 4, TimeUnit.NANOSECONDS, 5),
                     "5 ticks make a wheel of 8");
        assertThrows(NullPointerException.class, () -> newTimer(threads, 1, null, 512));
        assertThrows(NullPointerException.class, () -> newTimer(null, 1, ms, 512));
        // Within range, and below the finest tick: raised to it, not refused.
        for (long[] ok : new long[][] {{1, 8}, {100, 512}}) {
            Timer t = newTimer(new Probe.Named(), ok[0], TimeUnit.NANOSECONDS, (int) ok[1]);
            assertEquals(Set.of(), t.stop());
        }
    }

    @Test
    void stopBeforeAnyTimeoutReturnsNothingAndEndsTheTimer() {
        Timer timer = timer();
        assertEquals(Set.of(), timer.stop());
        assertThrows(IllegalStateException.class,
                     () -> timer.newTimeout(x -> { }, 1, TimeUnit.MILLISECONDS));
    }

    @Test
    void stopFromATaskIsRefused() {
        Timer timer = timer();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        timer.newTimeout(x -> {
            try {
                x.timer().stop();
            } catch (Throwable e) {
                thrown.set(e);
            }
            done.countDown();
        }, 0, TimeUnit.MILLISECONDS);
        Probe.await(done, "the task runs");
        assertTrue(thrown.get() instanceof IllegalStateException, "stop() from a task: " + thrown.get());
        // The timer still works.
        Runs after = new Runs(1);
        timer.newTimeout(after.task(0), 0, TimeUnit.MILLISECONDS);
        Probe.await(after.done, "a task after the refused stop() runs");
    }

    @Test
    void pendingTimeoutsCountsTheScheduledNotYetRunNorCancelled() {
        Timer timer = timer();
        List<Timeout> far = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            far.add(timer.newTimeout(x -> { }, 1, TimeUnit.HOURS));
        }
        assertEquals(10, pendingTimeouts(timer), "counted at newTimeout()");
        for (int i = 0; i < 3; i++) {
            assertTrue(far.get(i).cancel());
        }
        if (pendingDropsAtCancel()) {
            assertEquals(7, pendingTimeouts(timer), "WheelTimer: uncounted at cancel()");
        }
        Probe.eventually(() -> pendingTimeouts(timer) == 7, "uncounted once cancelled");
        Runs now = new Runs(1);
        timer.newTimeout(now.task(0), 0, TimeUnit.MILLISECONDS);
        Probe.await(now.done, "the immediate task runs");
        Probe.eventually(() -> pendingTimeouts(timer) == 7, "uncounted once run");
    }

    @Test
    void maxPendingTimeoutsRejectsBeyondTheLimit() {
        Timer timer = timer(3);
        List<Timeout> far = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            far.add(timer.newTimeout(x -> { }, 1, TimeUnit.HOURS));
        }
        RejectedExecutionException e = assertThrows(RejectedExecutionException.class,
                () -> timer.newTimeout(x -> { }, 1, TimeUnit.HOURS));
        assertTrue(e.getMessage().contains("(3)"), e.getMessage());
        assertEquals(3, pendingTimeouts(timer), "a rejected timeout is not counted");
        assertTrue(far.get(0).cancel());
        // Room again once the cancel is counted (at once for WheelTimer, at
        // the next tick for HashedWheelTimer).
        AtomicReference<Timeout> again = new AtomicReference<>();
        Probe.eventually(() -> {
            try {
                again.set(timer.newTimeout(x -> { }, 1, TimeUnit.HOURS));
                return true;
            } catch (RejectedExecutionException full) {
                assertFalse(pendingDropsAtCancel(), "WheelTimer has room at once");
                return false;
            }
        }, "room for one more after a cancel");
        assertEquals(3, pendingTimeouts(timer));
    }

    @Test
    void aTaskThatThrowsIsLoggedAndTheTimerGoesOn() {
        Logger logger = Logger.getLogger(loggerName());
        List<LogRecord> records = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                records.add(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        boolean parents = logger.getUseParentHandlers();
        logger.addHandler(handler);
        logger.setUseParentHandlers(false);
        try {
            Timer timer = timer();
            RuntimeException boom = new IllegalStateException("boom");
            timer.newTimeout(x -> {
                throw boom;
            }, 0, TimeUnit.MILLISECONDS);
            Runs after = new Runs(1);
            timer.newTimeout(after.task(0), 2 * precisionNanos(), TimeUnit.NANOSECONDS);
            Probe.await(after.done, "the task after the throwing one runs");
            assertTrue(records.stream().anyMatch(r -> r.getThrown() == boom
                                                 && r.getLevel() == Level.WARNING),
                       "the exception is logged as a warning: " + records);
        } finally {
            logger.removeHandler(handler);
            logger.setUseParentHandlers(parents);
        }
    }

    @Test
    void manyThreadsScheduleAndCancelAtOnce() throws InterruptedException {
        Timer timer = timer();
        int threadCount = 8;
        int per = 1000;
        int n = threadCount * per;
        AtomicIntegerArray ran = new AtomicIntegerArray(n);
        AtomicIntegerArray cancelled = new AtomicIntegerArray(n);
        AtomicInteger settled = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> callers = new ArrayList<>();
        for (int k = 0; k < threadCount; k++) {
            int base = k * per;
            Thread th = new Thread(() -> {
                Probe.await(go, "the start");
                Random random = new Random(base);
                for (int i = base; i < base + per; i++) {
                    int id = i;
                    Timeout t = timer.newTimeout(x -> {
                        ran.incrementAndGet(id);
                        settled.incrementAndGet();
                    }, random.nextInt(20), TimeUnit.MILLISECONDS);
                    if (i % 3 == 0 && t.cancel()) {
                        cancelled.incrementAndGet(id);
                        settled.incrementAndGet();
                    }
                }
            });
            th.start();
            callers.add(th);
        }
        go.countDown();
        for (Thread th : callers) {
            th.join();
        }
        Probe.eventually(() -> settled.get() >= n, "every timeout runs or is cancelled");
        Probe.eventually(() -> pendingTimeouts(timer) == 0, "nothing pending in the end");
        timer.stop();
        for (int i = 0; i < n; i++) {
            assertEquals(1, ran.get(i) + cancelled.get(i), "timeout " + i);
        }
        assertEquals(n, settled.get());
    }

    /** Redisson's watchdog renews its lease by re-submitting from its own task. */
    @Test
    void aTaskMayScheduleTheNextFromTheWorker() {
        Timer timer = timer();
        int rounds = 5;
        List<Long> at = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(1);
        long delay = 2 * precisionNanos();
        TimerTask renew = new TimerTask() {
            @Override
            public void run(Timeout t) {
                at.add(System.nanoTime());
                if (at.size() < rounds) {
                    t.timer().newTimeout(this, delay, TimeUnit.NANOSECONDS);
                } else {
                    done.countDown();
                }
            }
        };
        long start = System.nanoTime();
        timer.newTimeout(renew, delay, TimeUnit.NANOSECONDS);
        Probe.await(done, "five renewals");
        assertEquals(rounds, at.size());
        long prev = start;
        for (long t : at) {
            assertTrue(t - prev >= delay, "each renewal at least the delay after the last");
            prev = t;
        }
    }

    @Test
    void nullArgumentsAreRefused() {
        Timer timer = timer();
        assertThrows(NullPointerException.class, () -> timer.newTimeout(null, 1, TimeUnit.SECONDS));
        assertThrows(NullPointerException.class, () -> timer.newTimeout(x -> { }, 1, null));
        assertEquals(0, pendingTimeouts(timer));
    }

    /**
     * By design: with timeouts pending and none due, HashedWheelTimer's
     * worker wakes every tick; WheelTimer's does not wake at all. Counted
     * as the worker thread's context switches over 300 ms.
     */
    @Test
    void anIdleWorkerTicksOrSleeps() {
        Timer timer = timer();
        for (int i = 0; i < 1000; i++) {
            timer.newTimeout(x -> { }, 1, TimeUnit.HOURS);
        }
        Runs now = new Runs(1);
        timer.newTimeout(now.task(0), 0, TimeUnit.MILLISECONDS);
        Probe.await(now.done, "the worker has taken the timeouts");
        int tid = threads.tid();
        if (workerTicks()) {
            long before = Probe.contextSwitches(tid);
            Probe.sleep(300);
            long woke = Probe.contextSwitches(tid) - before;
            assertTrue(woke > 0, "HashedWheelTimer's worker ticks while idle");
            System.out.println("# the idle HashedWheelTimer worker switched " + woke + " times in 300 ms");
            return;
        }
        long before = Probe.settled(tid);
        Probe.sleep(300);
        assertEquals(before, Probe.contextSwitches(tid), "WheelTimer's idle worker never wakes");
    }
}
