// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * HandOverTest.java - HandOver's rules at the states a race passes through,
 * made one step at a time from one thread
 */
package org.wheeltimer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A race between a caller and the worker passes through states that the
 * public API cannot hold still; here the test is both. In this package (on
 * the class path beside the binding's jar) to reach the hand-over itself,
 * with no engine: the native side is never called ({@code closing} is set,
 * so that a wake stops short of it).
 */
@DisplayName("HandOver")
class HandOverTest {
    private static final long FAR = 3_600_000_000_000L;

    /** What a round gives, in order, each taken as the worker takes it. */
    private static class Given implements HandOver.Round {
        final List<WheelTimeout> adds = new ArrayList<>();
        final List<Boolean> held = new ArrayList<>();
        /** Every call, adds and cancels, in order; and which were cancels. */
        final List<WheelTimeout> calls = new ArrayList<>();
        final List<Boolean> cancels = new ArrayList<>();

        @Override
        public void cancel(WheelTimeout t) {
            calls.add(t);
            cancels.add(true);
        }

        @Override
        public void add(WheelTimeout t, boolean wasHeld) {
            if (t.take(1)) {
                adds.add(t);
                held.add(wasHeld);
                calls.add(t);
                cancels.add(false);
            }
        }
    }

    /**
     * Pushes {@code n} adds due at {@code deadline} through the caller's
     * lane; returns them in push order.
     */
    private static List<WheelTimeout> pushAdds(HandOver h, int n, long deadline) {
        List<WheelTimeout> pushed = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            WheelTimeout t = new TaskTimeout(null, null, deadline);
            pushed.add(t);
            assertTrue(h.add(t, 0, h.addLane()));
        }
        return pushed;
    }

    /**
     * The adds a round holds back (due past its horizon) are given by the
     * next round, in the order pushed and before that round's new adds,
     * but for those cancelled in between; over several segments.
     */
    @Test
    void theAddsARoundHeldBackAreGivenByTheNextInPushOrderButTheCancelled() {
        HandOver h = new HandOver(0, false, Long.MAX_VALUE, null);
        h.closing = true;
        long horizon = 1_000_000;
        List<WheelTimeout> far = pushAdds(h, 4 * Lane.SLOTS + 10, FAR);
        Given round = new Given();
        assertEquals(0, h.drain(horizon, round), "all due past the horizon");
        assertTrue(h.holding());
        assertEquals(List.of(), round.adds);
        // Cancelled before the worker took them: a cancel pushes nothing then.
        List<WheelTimeout> want = new ArrayList<>();
        for (int i = 0; i < far.size(); i++) {
            if (i % 3 == 0) {
                assertTrue(far.get(i).cancelOnStop());
            } else {
                want.add(far.get(i));
            }
        }
        WheelTimeout near = new TaskTimeout(null, null, 10);
        assertTrue(h.add(near, 0, h.addLane()));
        assertEquals(1, h.drain(horizon, round), "the one new add");
        want.add(near);
        assertEquals(want, round.adds, "the held in push order, then the new");
        assertEquals(want.size() - 1, round.held.stream().filter(b -> b).count());
        assertFalse(h.holding());
        round.adds.clear();
        assertEquals(0, h.drain(horizon, round));
        assertEquals(List.of(), round.adds, "nothing given twice");
    }

    /**
     * A round's pass over the new pushes takes them a run of slots at a
     * time: what it held back in an early run is still held when the later
     * runs of the round hold nothing, and the next round gives it, in push
     * order; the adds a round gives are counted over all its runs. Here
     * the pass starts off a run's boundary and goes past a segment's end.
     */
    @Test
    void whatOneRunOfARoundHoldsBackTheNextRoundGivesWhateverTheLaterRunsHeld() {
        HandOver h = new HandOver(0, false, Long.MAX_VALUE, null);
        h.closing = true;
        long horizon = 1_000_000;
        Given round = new Given();
        pushAdds(h, 37, 10);
        assertEquals(37, h.drain(horizon, round));
        List<WheelTimeout> far = pushAdds(h, 50, FAR);
        List<WheelTimeout> near = pushAdds(h, 2 * Lane.SLOTS, 10);
        round.adds.clear();
        assertEquals(near.size(), h.drain(horizon, round), "every near add, over all the runs");
        assertEquals(near, round.adds);
        assertTrue(h.holding(), "the far adds of the first run");
        round.adds.clear();
        assertEquals(0, h.drain(horizon, round), "no new add");
        assertEquals(far, round.adds, "the held, in push order");
        assertFalse(h.holding());
    }

    /**
     * A one-shot add due two buckets of the far hold ahead goes into its
     * stripe's far hold, not its lane (rules, 11): no push, and the hold
     * gives it back at its release. Its caller wakes a sleeping worker only
     * if it moved the hold's next release before the worker's wait ends
     * by itself, and a worker about to sleep sees such a move instead. An
     * add made after stop() is cancelled, and once the hold is closed the
     * adds go to the lane.
     */
    @Test
    void aFarAddGoesToItsStripesHoldWhichWakesAWorkerThatWouldSleepPastItsRelease() {
        HandOver h = new HandOver(0, false, Long.MAX_VALUE, null);
        h.closing = true;
        long b = FarHold.BUCKET_NANOS;
        long now = 1000 * b + b / 3;
        Lane lane = h.addLane();
        // A lingering worker, whose wait ends long before the release.
        h.sleep(now + 1_000_000, true, now + 1_000_000);
        WheelTimeout later = new TaskTimeout(null, null, 1010 * b);
        assertTrue(h.add(later, now, lane));
        assertEquals(now + 1_000_000, h.sleep, "not woken: its wait ends before the release");
        assertFalse(h.mayNotSleep(true));
        assertEquals(1009 * b, h.nextFarRelease());
        // Asleep until something is due: an add that moves the release wakes it.
        h.sleep(HandOver.FOREVER, false, Long.MAX_VALUE);
        WheelTimeout sooner = new TaskTimeout(null, null, 1005 * b + 7);
        assertTrue(h.add(sooner, now, lane));
        assertEquals(HandOver.AWAKE, h.sleep, "woken for the sooner release");
        // One that does not move it wakes nobody.
        h.sleep(HandOver.FOREVER, false, Long.MAX_VALUE);
        WheelTimeout same = new TaskTimeout(null, null, 1005 * b + 3);
        assertTrue(h.add(same, now, lane));
        assertEquals(HandOver.FOREVER, h.sleep, "the release did not move");
        // A worker whose wait ends by the release is left to it.
        h.sleep(HandOver.FOREVER, false, 1003 * b);
        WheelTimeout third = new TaskTimeout(null, null, 1004 * b + 1);
        assertTrue(h.add(third, now, lane));
        assertEquals(HandOver.FOREVER, h.sleep, "its wait ends at the release");
        // A worker that planned its wait before a move sees it.
        h.sleep(HandOver.FOREVER, false, 1003 * b);
        h.awake();
        assertTrue(h.add(new TaskTimeout(null, null, 1002 * b), now, lane));
        h.sleep(HandOver.FOREVER, false, 1003 * b);
        assertTrue(h.mayNotSleep(false), "the release moved before its wait's end");
        h.awake();
        assertEquals(1001 * b, h.nextFarRelease());
        // Nothing pushed; the hold gives back at each release, in order held.
        Given round = new Given();
        assertEquals(0, h.drain(Long.MAX_VALUE, round));
        assertEquals(5, h.farSize(false));
        List<WheelTimeout> given = new ArrayList<>();
        h.releaseFar(1003 * b - 1, given::add);
        assertEquals(1, given.size(), "the bucket of 1002 only");
        assertTrue(third.cancelOnStop());
        h.releaseFar(1003 * b, given::add);
        assertEquals(third, given.get(1), "cancelled or not, the worker's to drop");
        h.releaseFar(1009 * b, given::add);
        assertEquals(List.of(sooner, same, later), given.subList(2, 5));
        assertEquals(Long.MAX_VALUE, h.nextFarRelease());
        // stop() first: the caller's add is cancelled, as a push would be (rules, 6).
        h.end();
        WheelTimeout afterStop = new TaskTimeout(null, null, 1020 * b);
        assertFalse(h.add(afterStop, 1009 * b, lane));
        assertTrue(afterStop.isCancelled());
        List<WheelTimeout> closed = new ArrayList<>();
        h.closeFar(closed::add);
        assertEquals(List.of(afterStop), closed);
        assertEquals(0, h.farSize(false));
        assertFalse(h.add(new TaskTimeout(null, null, 1020 * b), 1009 * b, lane));
        assertEquals(0, h.farSize(false), "a closed hold holds nothing: the push path");
    }

    /**
     * An add whose deadline is still its delay (a newTimeout() due a
     * second or more ahead, rules 9) is held back by a round
     * that holds anything back, whatever its horizon, and given by one that
     * holds nothing back (stop(), purge()); the hand-over leaves its
     * deadline to the worker. Its caller wakes the worker only if it
     * sleeps until something is due, not if it lingers.
     */
    @Test
    void anAddAheadIsHeldByARoundThatHoldsAndGivenByOneThatDoesNot() {
        HandOver h = new HandOver(0, false, Long.MAX_VALUE, null);
        h.closing = true;
        WheelTimeout first = new TaskTimeout(null, null, -HandOver.URGENT_NANOS);
        h.sleep(5_000_000, true, 5_000_000);
        assertTrue(h.addAhead(first, h.addLane()));
        assertEquals(5_000_000, h.sleep, "a lingering worker is left to its linger");
        Given round = new Given();
        assertEquals(0, h.drain(FAR, round), "held, whatever the horizon");
        assertTrue(h.holding());
        WheelTimeout second = new TaskTimeout(null, null, -FAR);
        h.sleep(HandOver.FOREVER, false, Long.MAX_VALUE);
        assertTrue(h.addAhead(second, h.addLane()));
        assertEquals(HandOver.AWAKE, h.sleep, "a worker asleep until something is due is woken");
        assertEquals(1, h.drain(Long.MAX_VALUE, round), "given when nothing is held");
        assertEquals(List.of(first, second), round.adds);
        assertEquals(List.of(true, false), round.held);
        assertEquals(-HandOver.URGENT_NANOS, first.deadline, "the worker's to set");
        assertEquals(-FAR, second.deadline, "the worker's to set");
    }

    /**
     * A round gives the cancels first, then the adds held back, then what
     * was pushed since in push order: an add that a cancel's uncounting
     * let in comes after that cancel, so that the engine never holds more
     * than the count allows. (Until 30 November, one queue for every
     * caller, cancels and adds came in push order.)
     */
    @Test
    void aRoundGivesTheCancelsThenTheHeldAddsThenWhatWasPushedInPushOrder() {
        HandOver h = new HandOver(0, false, Long.MAX_VALUE, null);
        h.closing = true;
        long horizon = 1_000_000;
        Given round = new Given();
        WheelTimeout taken = new TaskTimeout(null, null, 10);
        assertTrue(h.add(taken, 0, h.addLane()));
        assertEquals(1, h.drain(horizon, round));
        WheelTimeout far = new TaskTimeout(null, null, FAR);
        assertTrue(h.add(far, 0, h.addLane()));
        assertEquals(0, h.drain(horizon, round), "held back");
        // The engine has the first: its cancel pushes it again; then a new add.
        assertTrue(taken.cancelOnStop());
        h.cancelled(taken, true, null);
        WheelTimeout near = new TaskTimeout(null, null, 20);
        assertTrue(h.add(near, 0, h.addLane()));
        round.calls.clear();
        round.cancels.clear();
        assertEquals(1, h.drain(horizon, round), "the one new add");
        assertEquals(List.of(taken, far, near), round.calls);
        assertEquals(List.of(true, false, false), round.cancels);
    }

    /**
     * A cancel on one thread's lane, and an add its uncounting let in on
     * another's, at the limit: the round hands the cancel over first,
     * whichever lane it drains first, so that the engine never holds more
     * than the limit. It fails if a round drains each stripe's cancels and
     * adds together, one stripe after another.
     */
    @Test
    void anAddThatACancelOnAnotherLaneLetInComesAfterThatCancel() throws Exception {
        HandOver h = new HandOver(0, false, 1, null);
        h.closing = true;
        Given round = new Given();
        // Both ways round: the cancel's stripe before the add's, and after.
        for (int pass = 0; pass < 2; pass++) {
            int mine = Stripes.current();
            int other = (mine + 1 + pass * (Stripes.COUNT - 2)) % Stripes.COUNT;
            WheelTimeout taken = new TaskTimeout(null, null, 10);
            onStripe(other, () -> {
                assertNotNull(h.admit());
                assertTrue(h.add(taken, 0, h.addLane()));
            });
            round.calls.clear();
            round.cancels.clear();
            assertEquals(1, h.drain(Long.MAX_VALUE, round));
            assertNull(h.admit(), "at the limit");
            WheelTimeout next = new TaskTimeout(null, null, 20);
            onStripe(other, () -> {
                assertTrue(taken.cancelOnStop());
                h.cancelled(taken, true, null);
            });
            assertNotNull(h.admit(), "the cancel's credit, from the other stripe");
            assertTrue(h.add(next, 0, h.addLane()));
            round.calls.clear();
            round.cancels.clear();
            assertEquals(1, h.drain(Long.MAX_VALUE, round));
            assertEquals(List.of(taken, next), round.calls, "pass " + pass);
            assertEquals(List.of(true, false), round.cancels);
            assertTrue(next.cancelOnStop());
            h.cancelled(next, true, null);
            assertEquals(0, h.pending());
            round.calls.clear();
            assertEquals(0, h.drain(Long.MAX_VALUE, round));
            assertEquals(List.of(next), round.calls, "its cancel");
        }
    }

    /**
     * The count of pending timeouts is exact across stripes: a stripe
     * admits up to the limit, another is refused, then admits with the
     * credits the first one's cancels freed (taken back at the limit),
     * and with those the worker's ends freed; never one more.
     */
    @Test
    void theLimitHoldsAcrossStripesAndWhatOneFreesAnotherMayTake() throws Exception {
        HandOver h = new HandOver(0, false, 5, null);
        int mine = Stripes.current();
        int other = (mine + 1) % Stripes.COUNT;
        for (int i = 0; i < 5; i++) {
            assertNotNull(h.admit());
        }
        assertNull(h.admit(), "the sixth");
        assertEquals(5, h.pending());
        onStripe(other, () -> assertNull(h.admit(), "another stripe's sixth"));
        h.countDown();
        h.countDown();
        assertEquals(3, h.pending());
        onStripe(other, () -> {
            assertNotNull(h.admit(), "a credit the first stripe freed");
            assertNotNull(h.admit(), "the other");
            assertNull(h.admit(), "and no more");
        });
        assertEquals(5, h.pending());
        h.ended();
        assertFalse(h.nonePending());
        onStripe(other, () -> {
            assertNotNull(h.admit(), "what the worker ended");
            assertNull(h.admit());
        });
        assertNull(h.admit());
        assertEquals(5, h.pending(), "never more than the limit");
        for (int i = 0; i < 5; i++) {
            h.countDown();
        }
        assertEquals(0, h.pending());
        assertTrue(h.nonePending());
    }

    /**
     * Threads of every stripe admit and uncount at random against a small
     * limit: no more are ever admitted at once than the limit allows, and
     * the count ends exact.
     */
    @Test
    void manyThreadsNeverPassTheLimitAndTheCountEndsExact() throws Exception {
        int limit = 100;
        HandOver h = new HandOver(0, false, limit, null);
        java.util.concurrent.atomic.AtomicInteger held = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger most = new java.util.concurrent.atomic.AtomicInteger();
        Thread[] threads = new Thread[2 * Stripes.COUNT];
        long[] kept = new long[threads.length];
        for (int k = 0; k < threads.length; k++) {
            int kk = k;
            threads[k] = new Thread(() -> {
                java.util.Random rnd = new java.util.Random(kk);
                int mineHeld = 0;
                for (int i = 0; i < 200_000; i++) {
                    if (rnd.nextBoolean() && h.admit() != null) {
                        most.accumulateAndGet(held.incrementAndGet(), Math::max);
                        mineHeld++;
                    } else if (mineHeld > 0) {
                        held.decrementAndGet();
                        h.countDown();
                        mineHeld--;
                    }
                }
                kept[kk] = mineHeld;
            });
        }
        for (Thread t : threads) {
            t.start();
        }
        for (Thread t : threads) {
            t.join();
        }
        assertTrue(most.get() <= limit, "at most the limit at once: " + most.get());
        assertEquals(limit, most.get(), "the limit was reached");
        assertEquals(java.util.Arrays.stream(kept).sum(), h.pending(), "the count ends exact");
    }

    /** Runs {@code r} on a thread of stripe {@code stripe}; rethrows what it threw. */
    private static void onStripe(int stripe, Runnable r) throws Exception {
        Throwable[] thrown = new Throwable[1];
        for (;;) {
            boolean[] ran = new boolean[1];
            Thread t = new Thread(() -> {
                if (Stripes.current() == stripe) {
                    ran[0] = true;
                    try {
                        r.run();
                    } catch (Throwable e) {
                        thrown[0] = e;
                    }
                }
            });
            t.start();
            t.join();
            if (ran[0]) {
                break;
            }
        }
        if (thrown[0] instanceof Error e) {
            throw e;
        }
        if (thrown[0] != null) {
            throw new AssertionError(thrown[0]);
        }
    }

    /**
     * A round ends where the callers' tail was when it began: what is
     * pushed meanwhile (here by the round itself, as a stream of callers
     * faster than the worker would) waits for the next round, so that a
     * round always ends and the worker gets to run what fired.
     */
    @Test
    void aRoundEndsWhereTheTailWasWhenItBegan() {
        HandOver h = new HandOver(0, false, Long.MAX_VALUE, null);
        h.closing = true;
        int pushed = 3 * Lane.SLOTS + 5;
        pushAdds(h, pushed, 10);
        List<WheelTimeout> meanwhile = new ArrayList<>();
        Given round = new Given() {
            @Override
            public void add(WheelTimeout t, boolean wasHeld) {
                super.add(t, wasHeld);
                if (meanwhile.size() < 10 * Lane.SLOTS) {
                    WheelTimeout n = new TaskTimeout(null, null, 10);
                    meanwhile.add(n);
                    assertTrue(h.add(n, 0, h.addLane()));
                }
            }
        };
        assertEquals(pushed, h.drain(Long.MAX_VALUE, round), "those pushed before it");
        assertEquals(pushed, meanwhile.size());
        round.adds.clear();
        assertEquals(pushed, h.drain(Long.MAX_VALUE, round), "then those pushed during it");
        assertEquals(meanwhile.subList(0, pushed), round.adds.subList(0, pushed));
    }

    /**
     * A caller that finds a segment full links the next one, then fills its
     * first slot. A worker about to sleep until something is due, that
     * drained the full segment, must sleep in between (nothing is pushed;
     * the caller's fill sees it asleep and wakes it), and must not once the
     * slot is filled. Counting the link alone as a push kept it going round
     * after round, without sleeping, until the caller filled the slot.
     */
    @Test
    void aSegmentLinkedButNotYetFilledIsNoPush() {
        HandOver h = new HandOver(0, false, Long.MAX_VALUE, null);
        h.closing = true;
        pushAdds(h, Lane.SLOTS, FAR);
        Given round = new Given();
        assertEquals(Lane.SLOTS, h.drain(Long.MAX_VALUE, round));
        assertEquals(Lane.SLOTS, round.adds.size());
        // The next caller found the segment full and linked the next one.
        h.addLane().curSegment.next = new Lane.Segment(1);
        h.sleep(HandOver.FOREVER, false, Long.MAX_VALUE);
        assertFalse(h.mayNotSleep(false), "a linked segment with nothing in it is no push");
        // It fills the first slot: that is a push.
        assertTrue(h.add(new TaskTimeout(null, null, FAR), 0, h.addLane()));
        assertTrue(h.mayNotSleep(false), "the push into the linked segment");
        assertEquals(1, h.drain(Long.MAX_VALUE, round));
    }
}
