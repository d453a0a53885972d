// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * FarHoldTest.java - the worker's hold of far adds: what it holds, when it
 * gives it back, in what order, and how much it may keep of the cancelled
 */
package org.wheeltimer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * In this package (on the class path beside the binding's jar) to reach
 * the hold itself, with no timer: its timeouts are made bare, and
 * cancelled as stop() cancels them, without telling a worker.
 */
@DisplayName("FarHold")
class FarHoldTest {
    private static final long B = FarHold.BUCKET_NANOS;
    /** A time inside bucket 1000. */
    private static final long NOW = 1000 * B + B / 3;

    private final List<WheelTimeout> given = new ArrayList<>();
    private final List<WheelTimeout> dropped = new ArrayList<>();

    private static WheelTimeout at(long deadline) {
        return new TaskTimeout(null, null, deadline);
    }

    /** Holds only what is due two buckets or more after now's, and within reach. */
    @Test
    void holdsOnlyWhatIsDueTwoBucketsAheadOrMoreAndWithinReach() {
        FarHold h = new FarHold();
        h.release(NOW, given::add);
        assertFalse(h.offer(at(NOW), NOW, dropped::add), "due now");
        assertFalse(h.offer(at(1001 * B + B - 1), NOW, dropped::add), "in the next bucket");
        assertTrue(h.offer(at(1002 * B), NOW, dropped::add), "two buckets ahead");
        assertTrue(h.offer(at((1000 + FarHold.BUCKETS - 1) * B), NOW, dropped::add), "the last in reach");
        assertFalse(h.offer(at((1000 + FarHold.BUCKETS) * B), NOW, dropped::add), "out of reach");
        assertEquals(2, h.size());
        assertTrue(given.isEmpty() && dropped.isEmpty());
    }

    /**
     * A bucket is given back, in the order held, cancelled or not, when the
     * bucket before it begins: never before, and each timeout once.
     */
    @Test
    void aBucketIsGivenBackInTheOrderHeldWhenTheBucketBeforeItBegins() {
        FarHold h = new FarHold();
        h.release(NOW, given::add);
        WheelTimeout a = at(1003 * B + 5);
        WheelTimeout b = at(1003 * B + 1);
        WheelTimeout c = at(1003 * B + 9);
        WheelTimeout later = at(1004 * B);
        for (WheelTimeout t : List.of(a, later, b, c)) {
            assertTrue(h.offer(t, NOW, dropped::add));
        }
        assertTrue(b.cancelOnStop());
        h.release(1002 * B - 1, given::add);
        assertTrue(given.isEmpty(), "not before the bucket before begins");
        h.release(1002 * B, given::add);
        assertEquals(List.of(a, b, c), given, "in the order held, the cancelled too");
        h.release(1002 * B + 7, given::add);
        assertEquals(3, given.size(), "once");
        h.release(1003 * B, given::add);
        assertEquals(List.of(a, b, c, later), given);
        assertEquals(0, h.size());
        assertFalse(h.offer(at(1003 * B + 2), 1001 * B, dropped::add),
                    "a bucket released takes no more: the engine has its time");
    }

    /**
     * A stripe's hold, which its callers fill before the worker ever
     * released it, or while the worker sleeps through many buckets: a
     * first release gives only the buckets due, and a bucket a whole turn
     * after one not yet released, which would share its slot, is not
     * held (its caller pushes it instead).
     */
    @Test
    void aHoldFilledBeforeItsReleasesGivesOnlyWhatIsDueAndNeverSharesASlot() {
        FarHold h = new FarHold();
        WheelTimeout soon = at(1003 * B);
        WheelTimeout later = at(1050 * B);
        assertTrue(h.offer(soon, NOW, dropped::add));
        assertTrue(h.offer(later, NOW, dropped::add));
        assertEquals(1002 * B, h.nextRelease());
        h.release(1002 * B, given::add);
        assertEquals(List.of(soon), given, "only the bucket due");
        assertEquals(1049 * B, h.nextRelease());
        // A caller ten buckets past the release of 1050, which the worker
        // has yet to make (a late worker), reaches the turn after it.
        long callerNow = 1060 * B;
        WheelTimeout turnAfter = at((1050 + FarHold.BUCKETS) * B);
        assertFalse(h.offer(turnAfter, callerNow, dropped::add), "the slot of 1050 holds 1050");
        WheelTimeout slotBefore = at((1049 + FarHold.BUCKETS) * B);
        assertTrue(h.offer(slotBefore, callerNow, dropped::add), "the slot of 1049 is free");
        h.release(callerNow, given::add);
        assertEquals(List.of(soon, later), given, "1050 alone, late");
        assertEquals((1048 + FarHold.BUCKETS) * B, h.nextRelease());
        assertEquals(1, h.size());
    }

    /**
     * A release whose receiver throws (a worker failing in its engine)
     * keeps the timeout it was giving and those after it held, so that
     * stop() still finds them; the ones given before are gone.
     */
    @Test
    void aReleaseThatFailsKeepsWhatItDidNotGive() {
        FarHold h = new FarHold();
        h.release(NOW, given::add);
        List<WheelTimeout> held = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            WheelTimeout t = at(1003 * B + i);
            held.add(t);
            assertTrue(h.offer(t, NOW, dropped::add));
        }
        RuntimeException failure = new IllegalStateException("the engine failed");
        try {
            h.release(1002 * B, t -> {
                if (given.size() == 2) {
                    throw failure;
                }
                given.add(t);
            });
        } catch (IllegalStateException e) {
            assertSame(failure, e);
        }
        assertEquals(held.subList(0, 2), given);
        List<WheelTimeout> left = new ArrayList<>();
        h.forEach(left::add);
        assertEquals(held.subList(2, 5), left, "kept, in order");
        assertEquals(3, h.size());
    }

    /** A clock that jumps ahead more than a whole turn gives everything back once. */
    @Test
    void aJumpOfMoreThanATurnGivesEverythingBackOnce() {
        FarHold h = new FarHold();
        h.release(NOW, given::add);
        for (int k = 2; k < FarHold.BUCKETS; k += 7) {
            assertTrue(h.offer(at((1000 + k) * B), NOW, dropped::add));
        }
        int held = h.size();
        h.release(NOW + 10 * FarHold.BUCKETS * B, given::add);
        assertEquals(held, given.size());
        assertEquals(held, given.stream().distinct().count());
        assertEquals(0, h.size());
    }

    /**
     * The worker is to wake for the first bucket that holds anything, when
     * the bucket before it begins; not at all for an empty hold.
     */
    @Test
    void theNextReleaseIsTheFirstBucketThatHoldsAnything() {
        FarHold h = new FarHold();
        h.release(NOW, given::add);
        assertEquals(Long.MAX_VALUE, h.nextRelease(), "nothing held");
        WheelTimeout late = at(1090 * B);
        assertTrue(h.offer(late, NOW, dropped::add));
        assertEquals(1089 * B, h.nextRelease());
        WheelTimeout early = at(1005 * B + 3);
        assertTrue(h.offer(early, NOW, dropped::add));
        assertEquals(1004 * B, h.nextRelease());
        h.release(1004 * B, given::add);
        assertEquals(List.of(early), given);
        assertEquals(1089 * B, h.nextRelease(), "the next that holds anything");
        assertTrue(late.cancelOnStop());
        h.compact(dropped::add);
        assertEquals(List.of(late), dropped);
        assertEquals(Long.MAX_VALUE, h.nextRelease(), "emptied by the compaction");
    }

    /**
     * A stream of adds each cancelled soon after keeps the hold small: it
     * never holds more than twice what was alive at its last compaction
     * plus its slack, and the adds made while a compaction passes over it
     * ({@code SWEEP_EVERY} between two steps of {@code SWEEP_STEP} looks, a
     * bucket passed being one), drops only the cancelled, and keeps the
     * order of the rest.
     */
    @Test
    void aStreamOfCancelledAddsKeepsTheHoldSmall() {
        FarHold h = new FarHold();
        int[] most = new int[1];
        WheelTimeout[] window = new WheelTimeout[100];
        List<WheelTimeout> alive = stream(h, 200_000, 1000, window,
                                          (i, drops) -> most[0] = Math.max(most[0], h.size()));
        int compactAt = 2 * (alive.size() + window.length) + FarHold.SLACK;
        int steps = (compactAt + FarHold.BUCKETS + FarHold.SWEEP_STEP)
                / (FarHold.SWEEP_STEP - FarHold.SWEEP_EVERY) + 1;
        int duringOne = steps * FarHold.SWEEP_EVERY;
        assertTrue(most[0] <= compactAt + duringOne, "held at most " + most[0]);
        h.compact(dropped::add);
        assertEquals(alive.size() + window.length, h.size());
        assertDroppedOnlyTheCancelledAndKeptTheOrder(h, alive, window);
    }

    /**
     * A compaction is spread over the adds that follow it: none of them
     * looks at more than {@code SWEEP_STEP} timeouts, however many the hold
     * holds in one bucket (a compaction at once looked at every one); and
     * what it keeps stays in the order held.
     */
    @Test
    void aCompactionIsSpreadOverTheAddsThatFollowIt() {
        FarHold h = new FarHold();
        WheelTimeout[] window = new WheelTimeout[1000];
        List<WheelTimeout> alive = stream(h, 100_000, 10, window, (i, drops) ->
                assertTrue(drops <= FarHold.SWEEP_STEP, "add " + i + " dropped " + drops));
        assertTrue(dropped.size() > 50_000, "compactions ran: " + dropped.size() + " dropped");
        h.compact(dropped::add);
        assertDroppedOnlyTheCancelledAndKeptTheOrder(h, alive, window);
    }

    /** What a stream's test sees after each add: its number, and what it dropped. */
    private interface AfterAdd {
        void check(int add, int drops);
    }

    /**
     * Offers {@code adds} timeouts, all in one bucket (the case a
     * compaction of whole buckets cannot split), to {@code h}, released up
     * to now: every {@code aliveEvery}th stays alive, each other one is
     * cancelled {@code window.length} adds later, and {@code window} ends
     * with the last of those, not cancelled. Returns the alive ones, in
     * order.
     */
    private List<WheelTimeout> stream(FarHold h, int adds, int aliveEvery, WheelTimeout[] window,
                                      AfterAdd after) {
        h.release(NOW, given::add);
        List<WheelTimeout> alive = new ArrayList<>();
        for (int i = 0; i < adds; i++) {
            WheelTimeout t = at(1010 * B + i);
            if (i % aliveEvery == 0) {
                alive.add(t);
            } else {
                WheelTimeout old = window[i % window.length];
                if (old != null) {
                    assertTrue(old.cancelOnStop());
                }
                window[i % window.length] = t;
            }
            int before = dropped.size();
            assertTrue(h.offer(t, NOW, dropped::add));
            after.check(i, dropped.size() - before);
        }
        return alive;
    }

    /**
     * After a stream and a compaction: only the cancelled were dropped,
     * and the bucket's release gives the alive ones in order, with what
     * is left in the window.
     */
    private void assertDroppedOnlyTheCancelledAndKeptTheOrder(FarHold h, List<WheelTimeout> alive,
                                                              WheelTimeout[] window) {
        for (WheelTimeout t : dropped) {
            assertTrue(t.isCancelled(), "only the cancelled are dropped");
        }
        h.release(1009 * B, given::add);
        List<WheelTimeout> kept = new ArrayList<>(given);
        kept.removeAll(Arrays.asList(window));
        assertEquals(alive, kept, "the rest in the order held");
    }

    /**
     * While a compaction is under way in a bucket, a walk over the hold and
     * that bucket's release give each timeout it holds once, in the order
     * held, and never a hole; the compaction goes on after them.
     */
    @Test
    void aWalkOrAReleaseDuringACompactionGivesWhatIsHeldOnceInOrder() {
        FarHold h = new FarHold();
        h.release(NOW, given::add);
        List<WheelTimeout> offered = new ArrayList<>();
        // Enough in one bucket, every other one cancelled, that the first
        // step of the compaction which begins at SLACK stops inside it.
        for (int i = 0; i < FarHold.SLACK + 100; i++) {
            WheelTimeout t = at(1003 * B + i);
            offered.add(t);
            assertTrue(h.offer(t, NOW, dropped::add));
            if (i % 2 == 1) {
                assertTrue(t.cancelOnStop());
            }
        }
        long cancelled = offered.stream().filter(WheelTimeout::isCancelled).count();
        assertTrue(!dropped.isEmpty() && dropped.size() < cancelled,
                   "the compaction is under way: " + dropped.size() + " of " + cancelled + " dropped");
        List<WheelTimeout> held = new ArrayList<>(offered);
        held.removeAll(dropped);
        List<WheelTimeout> walked = new ArrayList<>();
        h.forEach(walked::add);
        assertEquals(held, walked, "the walk");
        assertEquals(held.size(), h.size());

        // Adds in a later bucket go on with the compaction; then the release.
        for (int i = 0; i < 200; i++) {
            WheelTimeout t = at(1005 * B + i);
            offered.add(t);
            assertTrue(h.offer(t, NOW, dropped::add));
        }
        held = new ArrayList<>(offered.subList(0, FarHold.SLACK + 100));
        held.removeAll(dropped);
        h.release(1002 * B, given::add);
        assertEquals(held, given, "the release of the bucket under compaction");
        assertEquals(200, h.size());

        for (int i = 0; i < 200; i++) {
            assertTrue(h.offer(at(1006 * B + i), NOW, dropped::add));
        }
        given.clear();
        h.release(1005 * B, given::add);
        assertEquals(400, given.size(), "nothing lost or given twice after it");
        for (WheelTimeout t : dropped) {
            assertTrue(t.isCancelled(), "only the cancelled are dropped");
        }
    }
}
