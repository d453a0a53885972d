// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * WheelTimerTest.java - what WheelTimer adds to Netty's contract: the
 * virtual clock, periodic timeouts, slack, the engines, statistics, a
 * worker that sleeps, stop() racing newTimeout(), and callers racing the
 * worker through the hand-over's queue
 */
package org.wheeltimer.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.util.Timeout;
import io.netty.util.TimerTask;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.wheeltimer.Engine;
import org.wheeltimer.WheelTimeout;
import org.wheeltimer.WheelTimer;
import org.wheeltimer.WheelTimerException;
import org.wheeltimer.WheelTimerStats;

@DisplayName("WheelTimer only")
class WheelTimerTest {
    private static final long MS = 1_000_000L;
    /** How long the storm of callersFillingTheQueueAsTheWorkerDrainsItLoseNoTimeout() lasts. */
    private static final long STORM_SECONDS = 6;
    /** Its callers, and the timeouts each makes in a round. */
    private static final int STORM_CALLERS = 16;
    private static final int STORM_TIMEOUTS = 20_000;

    private final List<WheelTimer> timers = new ArrayList<>();

    private WheelTimer virtual() {
        WheelTimer t = WheelTimer.builder().virtualClock(true).build();
        timers.add(t);
        return t;
    }

    private WheelTimer real(Probe.Named threads) {
        WheelTimer t = WheelTimer.builder().threadFactory(threads).build();
        timers.add(t);
        return t;
    }

    @AfterEach
    void stopTimers() {
        timers.forEach(WheelTimer::stop);
    }

    /**
     * A stream of newTimeout() and cancel() that never lets the worker idle
     * keeps no timeout alive once it is cancelled: the heap in use after
     * each young collection stays flat. The hand-over's queue kept every
     * segment it had ever made reachable, and each the timeouts pushed into
     * it: by a reference of the worker's, and then by the link of a dead
     * segment that a full collection (here System.gc()) had promoted. Each
     * young collection then kept all that was pushed since: 180 MB a second
     * here. The test runs until three young collections after the full one
     * (so at any speed), and fails if the heap grew by a quarter of what the
     * caller allocated meanwhile; with the leak it grew by about all of it.
     * Due in 30 s, a timeout of the window that outlives a round of the
     * worker is held far (its FarHold) when it is cancelled: the hold must
     * let it go too (here some are; in the VM, where 1000 pairs take longer
     * than a round, most). A larger window would not do: its live timeouts,
     * promoted early by a small young generation, grow the heap by
     * themselves. The stream starts on an idle worker that holds a timeout
     * far (60 s): it sleeps until that one's release, and the stream's
     * pushes must wake it all the same (with an hour's timeouts, due after
     * that release, nothing else would).
     */
    @ParameterizedTest(name = "due in {0} s")
    @ValueSource(longs = {3600, 30})
    void aStreamOfNewTimeoutAndCancelKeepsNoCancelledTimeoutAlive(long seconds) {
        GarbageCollectorMXBean young = youngCollector();
        assumeTrue(young != null, "no generational collector that this test knows");
        Probe.Named named = new Probe.Named();
        WheelTimer timer = real(named);
        timer.newTimeout(t -> { }, 60, TimeUnit.SECONDS);
        Probe.eventually(() -> timer.stats().live() == 1, "the 60 s timeout taken");
        Probe.settled(named.tid());
        Timeout[] window = new Timeout[1000];
        for (int i = 0; i < window.length; i++) {
            window[i] = timer.newTimeout(t -> { }, seconds, TimeUnit.SECONDS);
        }
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long self = Thread.currentThread().getId();
        long limit = System.nanoTime() + TimeUnit.SECONDS.toNanos(Probe.LIMIT_SECONDS);
        long firstUsed = -1;
        long firstAllocated = 0;
        long seen = -1;
        int collections = 0;
        for (long pairs = 0; collections < 4 && System.nanoTime() < limit; pairs++) {
            int k = (int) (pairs % window.length);
            window[k].cancel();
            window[k] = timer.newTimeout(t -> { }, seconds, TimeUnit.SECONDS);
            if (pairs == 10_000) {
                // Promotes the queue's segments of the moment, which then die.
                System.gc();
                seen = young.getCollectionCount();
            }
            if (seen >= 0 && pairs % 1000 == 0 && young.getCollectionCount() > seen) {
                seen = young.getCollectionCount();
                long used = usedAfterLastCollection(young);
                long allocated = threads.getThreadAllocatedBytes(self);
                if (++collections == 1) {
                    firstUsed = used;
                    firstAllocated = allocated;
                } else if (collections == 4) {
                    long grown = used - firstUsed;
                    long made = allocated - firstAllocated;
                    assertTrue(grown < made / 4, "the heap after a young collection grew by "
                               + grown / 1024 + " KiB while the caller allocated "
                               + made / 1024 + " KiB");
                }
            }
        }
        assumeTrue(collections == 4, "fewer than 4 young collections in the time limit");
        assertEquals(window.length + 1, timer.pendingTimeouts());
    }

    private static GarbageCollectorMXBean youngCollector() {
        for (GarbageCollectorMXBean c : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (List.of("G1 Young Generation", "Copy", "PS Scavenge", "ParNew").contains(c.getName())) {
                return c;
            }
        }
        return null;
    }

    private static long usedAfterLastCollection(GarbageCollectorMXBean c) {
        long used = 0;
        for (MemoryUsage u : ((com.sun.management.GarbageCollectorMXBean) c).getLastGcInfo()
                .getMemoryUsageAfterGc().values()) {
            used += u.getUsed();
        }
        return used;
    }

    /**
     * The precision Netty's interface cannot show: on a virtual clock a task
     * runs in the advance() that reaches its deadline, never before, and at
     * most one resolution after it, whatever the machine's speed.
     */
    @Test
    void onAVirtualClockATaskRunsAtItsDeadlineWithinOneResolution() {
        WheelTimer timer = virtual();
        assertEquals(0, timer.nanoTime());
        long[] deadlines = {5 * MS, 5 * MS + MS / 2, 7 * MS + MS / 4, 1, 0};
        long[] ranAt = new long[deadlines.length];
        AtomicInteger runs = new AtomicInteger();
        for (int i = 0; i < deadlines.length; i++) {
            int k = i;
            timer.newTimeout(t -> {
                ranAt[k] = timer.nanoTime();
                runs.incrementAndGet();
            }, deadlines[i], TimeUnit.NANOSECONDS);
        }
        for (long now = 0; now <= 10 * MS; now += MS / 4) {
            if (now > 0) {
                timer.advance(MS / 4, TimeUnit.NANOSECONDS);
            }
            assertEquals(now, timer.nanoTime());
        }
        assertEquals(deadlines.length, runs.get());
        for (int i = 0; i < deadlines.length; i++) {
            assertTrue(ranAt[i] >= deadlines[i], "never early: deadline " + deadlines[i]
                       + ", ran at " + ranAt[i]);
            assertTrue(ranAt[i] <= deadlines[i] + timer.resolutionNanos(),
                       "at most one resolution late: deadline " + deadlines[i] + ", ran at "
                       + ranAt[i]);
        }
    }

    @Test
    void advanceRunsWhatTheTasksItRanMadeDue() {
        WheelTimer timer = virtual();
        List<String> ran = new CopyOnWriteArrayList<>();
        timer.newTimeout(t -> {
            ran.add("first");
            timer.newTimeout(u -> ran.add("second, due at once"), 0, TimeUnit.MILLISECONDS);
            timer.newTimeout(u -> ran.add("third, not yet"), 5, TimeUnit.MILLISECONDS);
        }, 1, TimeUnit.MILLISECONDS);
        assertEquals(0, timer.advance(999_999, TimeUnit.NANOSECONDS));
        assertEquals(List.of(), ran);
        assertEquals(2, timer.advance(1, TimeUnit.NANOSECONDS));
        assertEquals(List.of("first", "second, due at once"), ran);
        assertEquals(1, timer.pendingTimeouts());
        assertEquals(1, timer.advance(5, TimeUnit.MILLISECONDS));
        assertEquals(3, ran.size());
        assertEquals(0, timer.pendingTimeouts());
    }

    /**
     * The worker's table of the timeouts the engine holds wraps round and
     * grows while cancels free slots at random and adds take them again.
     * It starts at 1024 slots and grows once three quarters are used: 700
     * timeouts reach the engine, every other one is cancelled, 600 more
     * come (they fill the table's end, wrap round into the freed slots,
     * and grow it), then every fifth of all is cancelled. Each of the rest
     * runs once, at its own deadline, and no cancelled one runs.
     */
    @Test
    void theWorkersSlotsAreReusedWithoutMixingUpTimeouts() {
        WheelTimer timer = virtual();
        int first = 700;
        int n = first + 600;
        AtomicInteger[] runs = new AtomicInteger[n];
        long[] ranAt = new long[n];
        List<WheelTimeout> made = new ArrayList<>();
        boolean[] cancelled = new boolean[n];
        for (int i = 0; i < n; i++) {
            if (i == first) {
                assertEquals(first, timer.stats().live(), "the first ones reached the engine");
                for (int j = 0; j < first; j += 2) {
                    assertTrue(made.get(j).cancel());
                    cancelled[j] = true;
                }
                assertEquals(first / 2, timer.stats().live(), "and half of them left it");
            }
            int k = i;
            runs[i] = new AtomicInteger();
            // Deadlines 1 to 60 ms, interleaved, so that a mix-up shows.
            made.add(timer.newTimeout(t -> {
                runs[k].incrementAndGet();
                ranAt[k] = timer.nanoTime();
            }, (i * 7919L % 60 + 1) * MS, TimeUnit.NANOSECONDS));
        }
        for (int j = 0; j < n; j += 5) {
            if (!cancelled[j]) {
                assertTrue(made.get(j).cancel());
                cancelled[j] = true;
            }
        }
        // In steps: the tasks of one advance() all read its end.
        for (int ms = 0; ms <= 60; ms++) {
            timer.advance(1, TimeUnit.MILLISECONDS);
        }
        for (int i = 0; i < n; i++) {
            long deadline = made.get(i).deadlineNanos();
            assertEquals(cancelled[i] ? 0 : 1, runs[i].get(), "timeout " + i + " ran as often as it should");
            if (!cancelled[i]) {
                assertTrue(ranAt[i] >= deadline && ranAt[i] <= deadline + timer.resolutionNanos(),
                           "timeout " + i + ", due at " + deadline + ", ran at " + ranAt[i]);
            }
        }
        assertEquals(0, timer.pendingTimeouts());
        assertEquals(0, timer.stats().live());
    }

    /**
     * A round larger than the chunks it is handed over in (1024 records):
     * 5000 timeouts due within three ticks, made in an order that is
     * neither theirs nor its reverse, all collected by one advance(): each
     * runs once, in deadline order, never before its deadline. Twice, with
     * 70 small rounds between, after which the round's buffer has shrunk
     * back.
     */
    @Test
    void aRoundOfManyChunksRunsInDeadlineOrder() {
        WheelTimer timer = virtual();
        burstInDeadlineOrder(timer, 5000);
        AtomicInteger small = new AtomicInteger();
        for (int i = 0; i < 70; i++) {
            timer.newTimeout(t -> small.incrementAndGet(), 1, TimeUnit.MILLISECONDS);
            assertEquals(1, timer.advance(1, TimeUnit.MILLISECONDS));
        }
        assertEquals(70, small.get());
        burstInDeadlineOrder(timer, 5000);
    }

    private static void burstInDeadlineOrder(WheelTimer timer, int n) {
        long start = timer.nanoTime();
        long[] deadline = new long[n];
        List<Integer> order = new CopyOnWriteArrayList<>();
        long[] ranAt = new long[n];
        for (int i = 0; i < n; i++) {
            // Interleaved runs of rising and falling deadlines, 3 ms wide.
            int k = i % 2 == 0 ? i : n - i;
            deadline[i] = start + MS + k * (3 * MS / n);
            int id = i;
            timer.newTimeout(t -> {
                ranAt[id] = timer.nanoTime();
                order.add(id);
            }, deadline[i] - start, TimeUnit.NANOSECONDS);
        }
        assertEquals(n, timer.advance(5, TimeUnit.MILLISECONDS));
        assertEquals(n, order.size());
        assertEquals(n, new HashSet<>(order).size(), "each runs once");
        for (int j = 1; j < n; j++) {
            assertTrue(deadline[order.get(j - 1)] <= deadline[order.get(j)],
                       "deadline order at " + j + ": " + deadline[order.get(j - 1)] + " then "
                       + deadline[order.get(j)]);
        }
        for (int i = 0; i < n; i++) {
            assertTrue(ranAt[i] >= deadline[i], "never early");
        }
    }

    /**
     * A task in a round of many records cancels a later timeout of the
     * same round, schedules new ones and reads the statistics: the
     * cancelled one never runs, every other runs once, the new ones run at
     * their time, and nothing is logged as lost (a record for no timeout,
     * a cancel the library did not know).
     */
    @Test
    void aTaskMayCancelScheduleAndReadStatsInTheMiddleOfARound() {
        Logger logger = Logger.getLogger(WheelTimer.class.getName());
        List<LogRecord> errors = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel().intValue() >= java.util.logging.Level.SEVERE.intValue()) {
                    errors.add(r);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        logger.addHandler(handler);
        try {
            WheelTimer timer = virtual();
            int n = 3000;
            AtomicInteger[] runs = new AtomicInteger[n];
            WheelTimeout[] made = new WheelTimeout[n];
            AtomicInteger later = new AtomicInteger();
            for (int i = 0; i < n; i++) {
                AtomicInteger r = runs[i] = new AtomicInteger();
                int id = i;
                made[i] = timer.newTimeout(t -> {
                    r.incrementAndGet();
                    if (id == 0) {
                        // The last of the round: its record is read, its task not yet run.
                        assertTrue(made[n - 1].cancel());
                        for (int j = 0; j < 100; j++) {
                            timer.newTimeout(u -> later.incrementAndGet(), j % 2,
                                             TimeUnit.MILLISECONDS);
                        }
                        timer.stats();
                    }
                }, MS + i, TimeUnit.NANOSECONDS);
            }
            timer.advance(2, TimeUnit.MILLISECONDS);
            assertEquals(0, runs[n - 1].get(), "the cancelled one never ran");
            for (int i = 0; i < n - 1; i++) {
                assertEquals(1, runs[i].get(), "timeout " + i + " ran once");
            }
            // The first task ran at 2 ms: half of the new ones were due then,
            // and run in the same advance(); the others 1 ms later.
            assertEquals(50, later.get(), "those due at once ran in the same advance()");
            timer.advance(1, TimeUnit.MILLISECONDS);
            assertEquals(100, later.get(), "and the others at their time");
            assertEquals(0, timer.pendingTimeouts());
            assertEquals(0, timer.stats().live(), "the engine holds nothing");
            assertEquals(List.of(), errors, "nothing logged as lost");
        } finally {
            logger.removeHandler(handler);
        }
    }

    /**
     * A timeout cancelled before the worker took it from the hand-over
     * stack never reaches the engine: the worker is held by a task while
     * 200 timeouts are made and 100 of them cancelled.
     */
    @Test
    void aTimeoutCancelledBeforeTheWorkerTookItNeverReachesTheEngine() {
        WheelTimer timer = real(new Probe.Named());
        // Read first: stats() runs on the worker, which the task holds.
        long before = timer.stats().added() + 1;
        CountDownLatch gate = holdWorker(timer);
        List<Timeout> made = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            made.add(timer.newTimeout(x -> { }, 1, TimeUnit.HOURS));
        }
        for (int i = 0; i < 200; i += 2) {
            assertTrue(made.get(i).cancel());
        }
        gate.countDown();
        assertEquals(100, timer.pendingTimeouts());
        Probe.eventually(() -> timer.stats().live() == 100, "the 100 left reach the engine");
        assertEquals(before + 100, timer.stats().added(), "the cancelled ones never did");
    }

    /** Runs a task that holds the worker until the returned gate opens; returns once it does. */
    private static CountDownLatch holdWorker(WheelTimer timer) {
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        timer.newTimeout(t -> {
            held.countDown();
            Probe.await(gate, "the gate");
        }, 0, TimeUnit.MILLISECONDS);
        Probe.await(held, "the worker is held");
        return gate;
    }

    /**
     * An add already due when the worker takes it runs without the engine:
     * 100 timeouts of 0 ms made while a task holds the worker, released once
     * a tick of the resolution has begun after the last one's deadline (due
     * as the engine counts), all run, and the engine is given at most the
     * holder. Before, each went to the engine, to be fired at once and read
     * back.
     */
    @Test
    void timeoutsDueWhenTheWorkerTakesThemRunWithoutTheEngine() {
        WheelTimer timer = real(new Probe.Named());
        // Read first: stats() runs on the worker, which the task holds.
        WheelTimerStats before = timer.stats();
        CountDownLatch gate = holdWorker(timer);
        CountDownLatch ran = new CountDownLatch(100);
        WheelTimeout last = null;
        for (int i = 0; i < 100; i++) {
            last = timer.newTimeout(t -> ran.countDown(), 0, TimeUnit.MILLISECONDS);
        }
        while (timer.nanoTime() < last.deadlineNanos() + timer.resolutionNanos()) {
            Probe.sleep(1);
        }
        gate.countDown();
        Probe.await(ran, "the 100 run");
        WheelTimerStats after = timer.stats();
        assertTrue(after.submitted() - before.submitted() <= 1,
                   "operations the engine was given: " + (after.submitted() - before.submitted()));
        assertEquals(before.added() + 101, after.added(), "counted as added all the same");
        assertEquals(before.fired() + 101, after.fired(), "and as fired");
        assertEquals(before.tasksRun() + 101, after.tasksRun());
        assertEquals(0, timer.pendingTimeouts());
    }

    /**
     * An add due when the worker drains it, cancelled by a task that runs
     * before it in the same round: the cancel wins (true), the task never
     * runs, and the timeout is counted added and cancelled, not fired, as
     * the engine would count it; nothing stays pending.
     */
    @Test
    void aTimeoutDueWhenTakenCancelledBeforeItsTurnNeverRuns() {
        WheelTimer timer = real(new Probe.Named());
        WheelTimerStats before = timer.stats();
        CountDownLatch gate = holdWorker(timer);
        AtomicBoolean victimRan = new AtomicBoolean();
        AtomicBoolean cancelled = new AtomicBoolean();
        CountDownLatch done = new CountDownLatch(1);
        Timeout[] victim = new Timeout[1];
        timer.newTimeout(t -> cancelled.set(victim[0].cancel()), 0, TimeUnit.MILLISECONDS);
        victim[0] = timer.newTimeout(t -> victimRan.set(true), 0, TimeUnit.MILLISECONDS);
        WheelTimeout last = timer.newTimeout(t -> done.countDown(), 0, TimeUnit.MILLISECONDS);
        while (timer.nanoTime() < last.deadlineNanos() + timer.resolutionNanos()) {
            Probe.sleep(1);
        }
        gate.countDown();
        Probe.await(done, "the last runs");
        assertTrue(cancelled.get(), "the cancel won");
        assertFalse(victimRan.get(), "the cancelled task ran");
        assertTrue(victim[0].isCancelled());
        WheelTimerStats after = timer.stats();
        assertEquals(before.added() + 4, after.added());
        assertEquals(before.fired() + 3, after.fired(), "the cancelled one is not counted fired");
        assertEquals(before.cancelled() + 1, after.cancelled());
        assertEquals(before.tasksRun() + 3, after.tasksRun());
        assertEquals(0, timer.pendingTimeouts());
    }

    /**
     * The adds run at once and the records of the engine run in deadline
     * order together: one in the engine, due while a task holds the
     * worker, and one made before its deadline and one after, run in the
     * order of their deadlines (which a slow machine may change, so the
     * test reads them), whether the worker takes the last one due (its
     * deadline's tick has begun) or hands it to the engine.
     */
    @Test
    void timeoutsRunAtOnceKeepDeadlineOrderWithTheEngine() {
        WheelTimer timer = real(new Probe.Named());
        List<String> order = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(3);
        WheelTimeout inEngine = timer.newTimeout(t -> {
            order.add("engine");
            done.countDown();
        }, 200, TimeUnit.MILLISECONDS);
        // stats() hands what is pushed to the engine (on a slow machine it
        // may even have fired by the time the worker is held: it then has
        // the earliest deadline of the three, and runs first all the same).
        timer.stats();
        CountDownLatch gate = holdWorker(timer);
        WheelTimeout before = timer.newTimeout(t -> {
            order.add("before");
            done.countDown();
        }, 0, TimeUnit.MILLISECONDS);
        while (timer.nanoTime() <= inEngine.deadlineNanos()) {
            Probe.sleep(10);
        }
        WheelTimeout after = timer.newTimeout(t -> {
            order.add("after");
            done.countDown();
        }, 0, TimeUnit.MILLISECONDS);
        gate.countDown();
        Probe.await(done, "the three run");
        List<WheelTimeout> byDeadline = new ArrayList<>(List.of(before, inEngine, after));
        byDeadline.sort(Comparator.comparingLong(WheelTimeout::deadlineNanos));
        List<String> expected = new ArrayList<>();
        for (WheelTimeout t : byDeadline) {
            expected.add(t == before ? "before" : t == inEngine ? "engine" : "after");
        }
        assertEquals(expected, order);
    }

    /**
     * Nor does one cancelled just after the worker took it: an add due 10 ms
     * or more later waits a round in the worker before it goes to the
     * engine. The worker is held while a far timeout and a task that
     * cancels it are made; the round that takes both runs the task.
     */
    @Test
    void aTimeoutCancelledInTheRoundThatTookItNeverReachesTheEngine() {
        WheelTimer timer = real(new Probe.Named());
        CountDownLatch ran = new CountDownLatch(1);
        AtomicBoolean cancelled = new AtomicBoolean();
        // The holder and the canceller reach the engine.
        long before = timer.stats().added() + 2;
        CountDownLatch gate = holdWorker(timer);
        Timeout far = timer.newTimeout(x -> { }, 1, TimeUnit.HOURS);
        timer.newTimeout(x -> {
            cancelled.set(far.cancel());
            ran.countDown();
        }, 0, TimeUnit.MILLISECONDS);
        gate.countDown();
        Probe.await(ran, "the canceller ran");
        assertTrue(cancelled.get());
        assertEquals(0, timer.pendingTimeouts());
        assertEquals(before, timer.stats().added(), "the cancelled one never reached the engine");
        assertEquals(0, timer.stats().live());
    }

    /**
     * Holding an add back costs a lone one no wait more: the round that
     * holds it lingers, the one that hands it over sleeps until something
     * is due, as the round that took it did before.
     */
    @Test
    void aLoneFarTimeoutCostsTheWorkerTwoWaits() throws InterruptedException {
        WheelTimer timer = real(new Probe.Named());
        // stats() runs in a round of the worker's, whose wait is the first.
        long before = timer.stats().workerWakeups();
        Thread.sleep(50);
        timer.newTimeout(x -> { }, 1, TimeUnit.HOURS);
        Thread.sleep(200);
        assertEquals(before + 3, timer.stats().workerWakeups(),
                     "the wait after stats(), the linger, the sleep");
        assertEquals(1, timer.stats().live());
    }

    /**
     * Timeouts due seconds ahead, which the worker holds until their time
     * comes near, each run once, never before its deadline, in deadline
     * order, released by a worker kept busy (its lingering rounds, not the
     * end of an idle wait); one cancelled while held never runs; none is
     * counted pending once run.
     */
    @Test
    void timeoutsHeldFarRunOnceNeverEarlyInDeadlineOrder() throws Exception {
        WheelTimer timer = real(new Probe.Named());
        int n = 40;
        List<Long> late = new CopyOnWriteArrayList<>();
        List<Integer> order = new CopyOnWriteArrayList<>();
        AtomicBoolean cancelledRan = new AtomicBoolean();
        CountDownLatch ran = new CountDownLatch(n);
        AutoCloseable busy = Probe.keepBusy(() -> timer.newTimeout(t -> { }, 1, TimeUnit.MILLISECONDS));
        try {
            List<WheelTimeout> cancelled = new ArrayList<>();
            for (int i = n - 1; i >= 0; i--) {
                // 2.2 to 4.2 s: two to four of the hold's buckets ahead.
                long delay = 2200 * MS + i * 50 * MS;
                int k = i;
                WheelTimeout[] self = new WheelTimeout[1];
                self[0] = timer.newTimeout(t -> {
                    late.add(timer.nanoTime() - self[0].deadlineNanos());
                    order.add(k);
                    ran.countDown();
                }, delay, TimeUnit.NANOSECONDS);
                cancelled.add(timer.newTimeout(t -> cancelledRan.set(true), delay, TimeUnit.NANOSECONDS));
            }
            Probe.sleep(100);
            for (WheelTimeout c : cancelled) {
                assertTrue(c.cancel());
            }
            Probe.await(ran, "the far timeouts");
        } finally {
            busy.close();
        }
        for (long l : late) {
            assertTrue(l >= 0, "never early: " + -l + " ns before its deadline");
        }
        List<Integer> sorted = new ArrayList<>(order);
        Collections.sort(sorted);
        assertEquals(sorted, order, "in deadline order");
        assertEquals(n, order.size(), "each once");
        assertFalse(cancelledRan.get(), "a cancelled one never ran");
        Probe.eventually(() -> timer.pendingTimeouts() == 0, "nothing pending");
    }

    /**
     * An idle worker that holds far timeouts sleeps until the first of them
     * is due for release, not in ticks: no wake-up in 300 ms with timeouts
     * 30 to 60 s away; and one due 2.5 s away runs then, never early.
     */
    @Test
    void anIdleWorkerHoldingFarTimeoutsSleepsUntilTheirRelease() {
        Probe.Named threads = new Probe.Named();
        WheelTimer timer = real(threads);
        for (int i = 0; i < 100; i++) {
            timer.newTimeout(x -> { }, 30 + i * 3 / 10, TimeUnit.SECONDS);
        }
        Probe.eventually(() -> timer.stats().live() == 100, "the far timeouts taken");
        int tid = threads.tid();
        long before = Probe.settled(tid);
        Probe.sleep(300);
        assertEquals(before, Probe.contextSwitches(tid), "the idle worker never wakes");
        AtomicLong ranAt = new AtomicLong();
        CountDownLatch ran = new CountDownLatch(1);
        WheelTimeout t = timer.newTimeout(x -> {
            ranAt.set(timer.nanoTime());
            ran.countDown();
        }, 2500, TimeUnit.MILLISECONDS);
        Probe.await(ran, "the timeout 2.5 s away");
        assertTrue(ranAt.get() >= t.deadlineNanos(),
                   "never early: " + (t.deadlineNanos() - ranAt.get()) + " ns before");
    }

    /**
     * A timeout due a second or more ahead is made without a reading of
     * the clock: its deadline counts its delay from a
     * reading the worker takes after it met the timeout, or from the first
     * deadlineNanos(), whichever comes first, never from before the call.
     * It runs once, never before that deadline, which does not move once
     * read. On an idle worker (asleep until something is due: the call
     * wakes it) and on a lingering one (busy with an hour's timeouts: the
     * call does not wake it, and it meets the timeout within its linger).
     */
    @Test
    void aTimeoutDueAheadCountsItsDelayFromNoEarlierThanItsCall() {
        WheelTimer timer = real(new Probe.Named());
        long delay = TimeUnit.MILLISECONDS.toNanos(1100);
        for (String worker : List.of("idle", "lingering")) {
            if (worker.equals("lingering")) {
                for (int i = 0; i < 1000; i++) {
                    timer.newTimeout(x -> { }, 1, TimeUnit.HOURS);
                }
            }
            long[] ranAt = new long[2];
            AtomicInteger[] runs = {new AtomicInteger(), new AtomicInteger()};
            CountDownLatch ran = new CountDownLatch(2);
            TimerTask[] tasks = new TimerTask[2];
            for (int i = 0; i < 2; i++) {
                int k = i;
                tasks[k] = x -> {
                    ranAt[k] = timer.nanoTime();
                    runs[k].incrementAndGet();
                    ran.countDown();
                };
            }
            long before = timer.nanoTime();
            WheelTimeout asked = timer.newTimeout(tasks[0], 1100, TimeUnit.MILLISECONDS);
            long askedAt = asked.deadlineNanos();
            WheelTimeout left = timer.newTimeout(tasks[1], 1100, TimeUnit.MILLISECONDS);
            assertTrue(askedAt >= before + delay,
                       worker + ": read at once, " + (before + delay - askedAt) + " ns early");
            Probe.await(ran, worker + ": both timeouts");
            assertEquals(askedAt, asked.deadlineNanos(), worker + ": the deadline read moved");
            assertTrue(left.deadlineNanos() >= before + delay,
                       worker + ": set by the worker, " + (before + delay - left.deadlineNanos())
                       + " ns early");
            assertTrue(ranAt[0] >= asked.deadlineNanos(), worker + ": the first ran early");
            assertTrue(ranAt[1] >= left.deadlineNanos(), worker + ": the second ran early");
            Probe.sleep(50);
            assertEquals(1, runs[0].get(), worker + ": the first ran once");
            assertEquals(1, runs[1].get(), worker + ": the second ran once");
        }
    }

    /** stop() returns the timeouts the worker holds far, cancelled, as it returns the engine's. */
    @Test
    void stopReturnsTheTimeoutsHeldFar() {
        WheelTimer timer = real(new Probe.Named());
        Set<Timeout> made = new HashSet<>();
        for (int i = 0; i < 10; i++) {
            made.add(timer.newTimeout(t -> { }, 30, TimeUnit.SECONDS));
        }
        Probe.eventually(() -> timer.stats().live() == made.size(), "the far timeouts taken");
        assertEquals(made, timer.stop(), "every far timeout returned");
        for (Timeout t : made) {
            assertTrue(t.isCancelled());
        }
    }

    /** FIXED_RATE: every period either runs or is counted as an overrun; deadlines do not drift. */
    @Test
    void fixedRateRunsEveryPeriodOrCountsItAsAnOverrun() {
        WheelTimer timer = virtual();
        List<Long> at = new CopyOnWriteArrayList<>();
        WheelTimeout t = timer.scheduleAtFixedRate(x -> at.add(timer.nanoTime()), 10, 10,
                                                   TimeUnit.MILLISECONDS);
        assertTrue(t.isPeriodic());
        for (int i = 0; i < 3; i++) {
            timer.advance(10, TimeUnit.MILLISECONDS);
        }
        assertEquals(List.of(10 * MS, 20 * MS, 30 * MS), at);
        assertEquals(3, t.runs());
        assertEquals(0, t.overruns());
        // 40, 50, 60 and 70 pass in one step: one run, the rest counted.
        timer.advance(45, TimeUnit.MILLISECONDS);
        assertEquals(4, t.runs());
        assertEquals(7, t.runs() + t.overruns(), "periods 10 .. 70 all accounted for");
        timer.advance(5, TimeUnit.MILLISECONDS);
        assertEquals(5, t.runs(), "on at 80: the rate does not drift");
        assertEquals(80 * MS, at.get(at.size() - 1));
        assertEquals(1, timer.pendingTimeouts(), "a periodic timeout counts until it ends");
        assertTrue(t.cancel());
        assertEquals(0, timer.pendingTimeouts());
        timer.advance(100, TimeUnit.MILLISECONDS);
        assertEquals(5, t.runs(), "no run after the cancel");
        assertFalse(t.isExpired());
        assertTrue(t.isCancelled());
    }

    /** FIXED_DELAY: the next period starts when the worker collects the firing. */
    @Test
    void fixedDelayCountsFromTheCollectedFiring() {
        WheelTimer timer = virtual();
        List<Long> at = new CopyOnWriteArrayList<>();
        WheelTimeout t = timer.scheduleWithFixedDelay(x -> at.add(timer.nanoTime()), 10, 10,
                                                      TimeUnit.MILLISECONDS);
        timer.advance(10, TimeUnit.MILLISECONDS);
        assertEquals(List.of(10 * MS), at);
        // Due at 20, collected at 35: the next is due at 45, not 30 or 40.
        timer.advance(25, TimeUnit.MILLISECONDS);
        assertEquals(List.of(10 * MS, 35 * MS), at);
        timer.advance(9, TimeUnit.MILLISECONDS);
        assertEquals(2, at.size());
        timer.advance(1, TimeUnit.MILLISECONDS);
        assertEquals(List.of(10 * MS, 35 * MS, 45 * MS), at);
        assertEquals(0, t.overruns());
        assertTrue(t.cancel());
        timer.advance(1, TimeUnit.SECONDS);
        assertEquals(3, at.size());
    }

    /** A periodic timeout cancelled from another thread while it runs every millisecond. */
    @Test
    void noPeriodicRunStartsAfterCancelReturnedTrue() {
        WheelTimer timer = real(new Probe.Named());
        AtomicLong started = new AtomicLong();
        CountDownLatch three = new CountDownLatch(3);
        WheelTimeout t = timer.scheduleAtFixedRate(x -> {
            started.incrementAndGet();
            three.countDown();
        }, 1, 1, TimeUnit.MILLISECONDS);
        Probe.await(three, "three runs");
        assertTrue(t.cancel());
        long atCancel = started.get();
        CountDownLatch sentinel = new CountDownLatch(1);
        timer.newTimeout(x -> sentinel.countDown(), 20, TimeUnit.MILLISECONDS);
        Probe.await(sentinel, "the sentinel runs");
        // A run the worker had started before the cancel may still count itself.
        assertTrue(started.get() - atCancel <= 1, "runs after cancel(): " + (started.get() - atCancel));
        assertEquals(started.get(), t.runs());
        assertEquals(0, timer.pendingTimeouts());
    }

    @Test
    void slackLetsATaskRunLaterNeverEarlier() {
        WheelTimer timer = virtual();
        AtomicLong ranAt = new AtomicLong(-1);
        timer.newTimeout(x -> ranAt.set(timer.nanoTime()), 10, 5, TimeUnit.MILLISECONDS);
        for (int i = 0; i < 20 && ranAt.get() < 0; i++) {
            timer.advance(1, TimeUnit.MILLISECONDS);
        }
        assertTrue(ranAt.get() >= 10 * MS, "never early: " + ranAt.get());
        assertTrue(ranAt.get() <= 16 * MS, "within slack plus a resolution: " + ranAt.get());
        assertThrows(IllegalArgumentException.class,
                     () -> timer.newTimeout(x -> { }, 1, -1, TimeUnit.MILLISECONDS));
    }

    @Test
    void advanceNeedsAVirtualClockAndAnotherThread() {
        WheelTimer timer = real(new Probe.Named());
        assertThrows(IllegalStateException.class, () -> timer.advance(1, TimeUnit.SECONDS));
        WheelTimer v = virtual();
        AtomicLong thrown = new AtomicLong();
        v.newTimeout(x -> {
            try {
                v.advance(1, TimeUnit.MILLISECONDS);
            } catch (IllegalStateException e) {
                thrown.incrementAndGet();
            }
        }, 1, TimeUnit.MILLISECONDS);
        v.advance(1, TimeUnit.MILLISECONDS);
        assertEquals(1, thrown.get(), "advance() from a task is refused");
    }

    @Test
    void theEngineIsTheOneAskedFor() {
        WheelTimer p = WheelTimer.builder().engine(Engine.PROCESS).build();
        timers.add(p);
        assertEquals(Engine.PROCESS, p.engine());
        if (Files.exists(Path.of("/dev/wheeltimer"))) {
            WheelTimer k = WheelTimer.builder().engine(Engine.KERNEL).build();
            timers.add(k);
            assertEquals(Engine.KERNEL, k.engine());
        } else {
            WheelTimerException e = assertThrows(WheelTimerException.class,
                    () -> WheelTimer.builder().engine(Engine.KERNEL).build());
            assertEquals(2, e.error(), "ENOENT without the device: " + e.getMessage());
        }
        String forced = System.getProperty(Engine.PROPERTY);
        WheelTimer d = new WheelTimer();
        timers.add(d);
        if (forced != null) {
            assertEquals(Engine.valueOf(forced.toUpperCase(Locale.ROOT)), d.engine(),
                         "the system property chooses");
        }
        System.out.println("# the default timer runs on the " + d.engine() + " engine");
    }

    @Test
    void statsCountWhatHappened() {
        Probe.Named threads = new Probe.Named();
        WheelTimer timer = real(threads);
        CountDownLatch done = new CountDownLatch(10);
        for (int i = 0; i < 10; i++) {
            timer.newTimeout(x -> done.countDown(), i, TimeUnit.MILLISECONDS);
        }
        timer.newTimeout(x -> {
            throw new IllegalStateException("thrown on purpose: the failure is counted");
        }, 0, TimeUnit.MILLISECONDS);
        List<Timeout> far = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            far.add(timer.newTimeout(x -> { }, 1, TimeUnit.HOURS));
        }
        Probe.await(done, "ten tasks run");
        // stats() hands what is pushed to the engine: all 31 adds reach it
        // (else a cancel could meet a far add still on the stack).
        assertEquals(31, timer.stats().added());
        for (int i = 0; i < 5; i++) {
            assertTrue(far.get(i).cancel());
        }
        Probe.eventually(() -> timer.stats().taskFailures() == 1, "the failure is counted");
        WheelTimerStats s = timer.stats();
        assertEquals(timer.engine(), s.engine());
        assertEquals(timer.resolutionNanos(), s.resolutionNanos());
        assertEquals(timer.maxPendingTimeouts(), s.maxPending());
        assertEquals(11, s.tasksRun());
        assertEquals(15, s.pendingTimeouts());
        assertEquals(15, s.live(), "the cancels reached the engine before the counters were read");
        assertEquals(31, s.added());
        assertEquals(11, s.fired());
        assertEquals(5, s.cancelled(), "the five far ones, cancelled while armed");
        assertEquals(0, s.withdrawn(), "no record was withdrawn");
        assertEquals(0, s.overruns(), "nothing periodic");
        assertTrue(s.submits() >= 1 && s.submits() <= s.submitted(),
                   "batches " + s.submits() + ", each of one operation or more: " + s.submitted());
        // Any of the short adds that the worker took a tick after its
        // deadline's ran without the engine.
        assertTrue(s.submitted() >= 25, "the 20 far adds and their 5 cancels submitted: "
                   + s.submitted());
        assertTrue(s.reads() >= 1, "records were read: " + s.reads());
        assertTrue(s.timerPrograms() >= 1, "the engine's timer was set: " + s.timerPrograms());
        assertEquals(0, s.refused());
        assertEquals(threads.tid(), timer.workerThreadId());
    }

    /**
     * cancel() leaves the worker asleep; the engine hears of the cancel at
     * the worker's next wake-up.
     */
    @Test
    void cancelDoesNotWakeTheWorker() {
        Probe.Named threads = new Probe.Named();
        WheelTimer timer = real(threads);
        List<Timeout> far = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            far.add(timer.newTimeout(x -> { }, 1, TimeUnit.HOURS));
        }
        assertEquals(100, timer.stats().live());
        int tid = threads.tid();
        long before = Probe.settled(tid);
        for (Timeout t : far) {
            assertTrue(t.cancel());
        }
        assertEquals(0, timer.pendingTimeouts());
        Probe.sleep(100);
        assertEquals(before, Probe.contextSwitches(tid), "no wake-up for a cancel");
        assertEquals(0, timer.stats().live(), "the cancels are in the engine after a wake-up");
    }

    /**
     * stop() racing the expiry of one-shot timeouts: each ran once, or is
     * in the set stop() returned, cancelled, never both, never neither; and
     * nothing runs after stop() returned. The deadlines spread over 4 ms and
     * stop() comes 0 to 3 ms in, so that both outcomes occur.
     */
    @Test
    void stopRacingExpiryRunsOrCancelsEachTimeoutOnce() {
        int n = 300;
        int returned = 0;
        int ran = 0;
        for (int round = 0; round < 20; round++) {
            WheelTimer timer = WheelTimer.builder().build();
            AtomicInteger[] runs = new AtomicInteger[n];
            WheelTimeout[] made = new WheelTimeout[n];
            for (int i = 0; i < n; i++) {
                AtomicInteger r = runs[i] = new AtomicInteger();
                made[i] = timer.newTimeout(x -> r.incrementAndGet(), i * 4_000_000L / n,
                                           TimeUnit.NANOSECONDS);
            }
            Probe.sleep(round % 4);
            Set<Timeout> unprocessed = timer.stop();
            int[] after = new int[n];
            for (int i = 0; i < n; i++) {
                after[i] = runs[i].get();
            }
            Probe.sleep(10);
            for (int i = 0; i < n; i++) {
                WheelTimeout t = made[i];
                boolean in = unprocessed.contains(t);
                assertEquals(after[i], runs[i].get(), "timeout " + i + " ran after stop()");
                assertEquals(1, runs[i].get() + (in ? 1 : 0), "timeout " + i + ": ran "
                             + runs[i].get() + ", returned " + in);
                assertEquals(in, t.isCancelled(), "timeout " + i + ": returned means cancelled");
                assertEquals(!in, t.isExpired(), "timeout " + i + ": ran means expired");
                assertFalse(t.cancel(), "timeout " + i + ": nothing left to cancel");
                returned += in ? 1 : 0;
                ran += in ? 0 : 1;
            }
            assertEquals(unprocessed.size(), Arrays.stream(made).filter(unprocessed::contains).count(),
                         "stop() returns only timeouts of this timer");
            assertEquals(0, timer.pendingTimeouts(), "nothing pending after stop()");
        }
        System.out.println("# " + ran + " ran, " + returned + " were returned cancelled");
    }

    /**
     * The ranges of the arguments are one rule for the constructors and the
     * builder: a resolution (tick) above 0 and at most 1 hour, one below
     * 1 us raised to 1 us; a limit of pending timeouts at most the engine's.
     * Netty 4.1.48 accepts a tick above 1 hour and any limit (its wheel has
     * no coarsest tick and its queue no limit): there WheelTimer is stricter.
     */
    @Test
    void everyEntryPointRefusesTheSameRanges() {
        Probe.Named threads = new Probe.Named();
        TimeUnit ms = TimeUnit.MILLISECONDS;
        long hourMs = TimeUnit.HOURS.toMillis(1);
        assertThrows(IllegalArgumentException.class,
                     () -> new WheelTimer(threads, hourMs + 1, ms, 1, true, -1));
        assertThrows(IllegalArgumentException.class,
                     () -> new WheelTimer(hourMs + 1, ms));
        assertThrows(IllegalArgumentException.class,
                     () -> WheelTimer.builder().resolution(hourMs + 1, ms));
        assertThrows(IllegalArgumentException.class,
                     () -> WheelTimer.builder().resolution(Long.MAX_VALUE, ms));
        assertThrows(IllegalArgumentException.class,
                     () -> WheelTimer.builder().resolution(0, ms));
        // Netty's product rule with its largest wheel: 2^30 ticks of 8.6 s overflow.
        assertThrows(IllegalArgumentException.class,
                     () -> new WheelTimer(threads, 9, TimeUnit.SECONDS, 1 << 30, true, -1));
        assertThrows(IllegalArgumentException.class,
                     () -> new WheelTimer(threads, 9, TimeUnit.SECONDS, (1 << 29) + 1, true, -1));
        assertThrows(IllegalArgumentException.class,
                     () -> new WheelTimer(threads, 1, ms, 512, true, Long.MAX_VALUE));
        assertThrows(IllegalArgumentException.class,
                     () -> WheelTimer.builder().maxPendingTimeouts(Long.MAX_VALUE).build());

        List<WheelTimer> ok = List.of(
                new WheelTimer(new Probe.Named(), hourMs, ms, 1, true, -1),
                new WheelTimer(new Probe.Named(), 8, TimeUnit.SECONDS, 1 << 30, true, -1),
                new WheelTimer(new Probe.Named(), 500, TimeUnit.NANOSECONDS, 512, true, -1),
                WheelTimer.builder().resolution(500, TimeUnit.NANOSECONDS).build(),
                WheelTimer.builder().resolution(hourMs, ms).build());
        timers.addAll(ok);
        long[] expected = {TimeUnit.HOURS.toNanos(1), TimeUnit.SECONDS.toNanos(8), 1000, 1000,
                           TimeUnit.HOURS.toNanos(1)};
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], ok.get(i).resolutionNanos(), "timer " + i);
        }
    }

    /**
     * Callers fill the hand-over's queue while the worker drains it as fast
     * (each timeout due within a millisecond): every timeout runs. A caller
     * that lost the race to link the queue's next segment used the link it
     * read again, which the worker, having drained that next segment
     * meanwhile, could have replaced by its severed marker: the caller then
     * filled a slot of the marker, which no worker reads, and the timeout
     * never ran (WheelScheduledExecutor's shutdown() then missed a task:
     * once in CI, 29 November). The loss needs a caller preempted between
     * two of its instructions, about once in 7 seconds of this storm here,
     * so the storm runs for {@link #STORM_SECONDS}. On the in-process engine
     * only: the queue is the binding's, the same on both engines, and under
     * emulation the storm would be slower by a hundredfold.
     */
    @Test
    void callersFillingTheQueueAsTheWorkerDrainsItLoseNoTimeout() throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(STORM_SECONDS);
        int rounds = 0;
        do {
            WheelTimer timer = real(new Probe.Named());
            assumeTrue(timer.engine() == Engine.PROCESS, "the storm runs on the in-process engine");
            AtomicLong ran = new AtomicLong();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> callers = new ArrayList<>();
            for (int k = 0; k < STORM_CALLERS; k++) {
                Thread th = new Thread(() -> {
                    Probe.await(go, "the start");
                    for (int i = 0; i < STORM_TIMEOUTS; i++) {
                        timer.newTimeout(t -> ran.incrementAndGet(), i & 1, TimeUnit.MILLISECONDS);
                    }
                });
                th.start();
                callers.add(th);
            }
            go.countDown();
            for (Thread th : callers) {
                th.join();
            }
            long made = (long) STORM_CALLERS * STORM_TIMEOUTS;
            long limit = System.nanoTime() + TimeUnit.SECONDS.toNanos(Probe.LIMIT_SECONDS);
            while (ran.get() < made && System.nanoTime() - limit < 0) {
                Probe.sleep(2);
            }
            assertEquals(made, ran.get(), "round " + rounds + ": the timeouts that ran, with "
                         + timer.pendingTimeouts() + " still pending");
            timer.stop();
            rounds++;
        } while (System.nanoTime() - end < 0);
        System.out.println("# " + rounds + " rounds of " + STORM_CALLERS * STORM_TIMEOUTS
                           + " timeouts from " + STORM_CALLERS + " callers");
    }

    /** stop() racing newTimeout() from other threads: every timeout is returned or refused. */
    @Test
    void stopRacingNewTimeoutLosesNothing() throws InterruptedException {
        WheelTimer timer = WheelTimer.builder().build();
        Set<Timeout> made = ConcurrentHashMap.newKeySet();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger other = new AtomicInteger();
        CountDownLatch going = new CountDownLatch(4);
        List<Thread> callers = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            Thread th = new Thread(() -> {
                going.countDown();
                for (;;) {
                    try {
                        made.add(timer.newTimeout(x -> { }, 1, TimeUnit.HOURS));
                    } catch (IllegalStateException e) {
                        refused.incrementAndGet();
                        return;
                    } catch (RuntimeException e) {
                        other.incrementAndGet();
                        return;
                    }
                }
            });
            th.start();
            callers.add(th);
        }
        Probe.await(going, "the callers start");
        Probe.eventually(() -> made.size() > 1000, "some timeouts are made");
        Set<Timeout> unprocessed = timer.stop();
        for (Thread th : callers) {
            th.join();
        }
        assertEquals(4, refused.get(), "each caller ends on IllegalStateException");
        assertEquals(0, other.get());
        assertEquals(made, new HashSet<>(unprocessed), "stop() returns every timeout made");
        for (Timeout t : unprocessed) {
            assertTrue(t.isCancelled(), "stop() cancels what it returns");
        }
        assertEquals(0, timer.pendingTimeouts());
        System.out.println("# " + made.size() + " timeouts made before stop()");
    }

    /**
     * A pending timeout of newTimeout() is 32 bytes, as the binding's
     * README states: its deadline, state (with the worker's slot), lane and
     * task. The engine's handle is in the worker's table, not in the
     * timeout (it was, and the timeout was 40 bytes).
     */
    @Test
    void aPendingTimeoutIsThirtyTwoBytes() {
        WheelTimer t = real(new Probe.Named());
        List<Timeout> pending = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            pending.add(t.newTimeout(x -> { }, 1, TimeUnit.HOURS));
        }
        assertEquals(32, Probe.bytesPerInstance(pending.get(0).getClass()));
        pending.forEach(Timeout::cancel);
    }
}
