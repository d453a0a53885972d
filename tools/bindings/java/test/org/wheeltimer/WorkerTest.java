// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * WorkerTest.java - the timer's worker seen from inside a task: what it
 * says is pending while it runs the adds it took due
 */
package org.wheeltimer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** In this package (on the class path beside the binding's jar) to reach the worker's pending list. */
@DisplayName("Worker")
class WorkerTest {
    private WheelTimer timer;

    @AfterEach
    void stop() {
        if (timer != null) {
            timer.stop();
        }
    }

    /**
     * Timeouts made while a task holds the worker are due when it takes
     * them, and run in one loop that empties each slot as its task runs:
     * what the first of them finds pending is exactly the ones not yet
     * run, and it is counted among those fired.
     */
    @Test
    void aTaskOfTheAddsTakenDueSeesTheOthersPendingAndNoneRun() throws Exception {
        timer = new WheelTimer(r -> new Thread(r, "worker-test"));
        long firedBefore = timer.stats().fired();
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        timer.newTimeout(x -> {
            held.countDown();
            gate.await();
        }, 0, TimeUnit.MILLISECONDS);
        assertTrue(held.await(60, TimeUnit.SECONDS), "the worker is held");
        int n = 4;
        List<WheelTimeout> made = new ArrayList<>();
        List<List<WheelTimeout>> seen = new ArrayList<>();
        CountDownLatch ran = new CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            TimerTask task = x -> {
                if (seen.isEmpty()) {
                    seen.add(timer.pendingList());
                }
                ran.countDown();
            };
            made.add(timer.newTimeout(task, 0, TimeUnit.MILLISECONDS));
        }
        // Past the tick they were made in: due when the worker takes them.
        Thread.sleep(10);
        gate.countDown();
        assertTrue(ran.await(60, TimeUnit.SECONDS), "every task ran");
        Set<Timeout> others = new HashSet<>(made.subList(1, n));
        assertEquals(others, new HashSet<>(seen.get(0)), "the first saw the others pending");
        assertEquals(n - 1, seen.get(0).size(), "each once, and nothing else");
        assertEquals(firedBefore + n + 1, timer.stats().fired(),
                     "each counted fired once, and the task that held the worker");
    }
}
