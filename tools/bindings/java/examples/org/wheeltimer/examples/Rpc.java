// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Rpc.java - Dubbo-style request timeouts: one timeout per call,
 * cancelled when the response arrives
 */
package org.wheeltimer.examples;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.Timer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.wheeltimer.WheelTimer;

/**
 * Dubbo's client keeps a {@code DefaultFuture} per call and a
 * {@code HashedWheelTimer} timeout that fails the call if no response came
 * in time; the response cancels it. Most calls are answered: their
 * timeouts are cancelled long before they are due, which is the cheap path
 * of a timing wheel (and, on WheelTimer, a cancel that neither blocks nor
 * wakes the timer's thread).
 *
 * <p>Here 2000 calls go to a simulated server on two other threads, which
 * answers nine in ten after 0 to 150 ms and drops the tenth; each call has
 * a 300 ms timeout. The response and the timeout race for each call, and
 * {@link Timeout#cancel()} decides: the response completes the call if it
 * cancelled the timeout, else the timeout already did. Every claim holds at
 * any speed (a slow machine only moves calls from answered to timed out).
 * {@code --timer hashed} runs the same on Netty's HashedWheelTimer.
 */
public final class Rpc {
    private static final int CALLS = 2000;
    private static final long TIMEOUT_MS = 300;

    private Rpc() {
    }

    /** One call in flight. */
    private static final class Call {
        final int id;
        final boolean dropped;
        final long sentAt;
        volatile Timeout timeout;
        final AtomicInteger completions = new AtomicInteger();
        volatile boolean timedOut;
        volatile long timedOutAt;
        volatile boolean lateResponse;

        Call(int id, boolean dropped) {
            this.id = id;
            this.dropped = dropped;
            this.sentAt = System.nanoTime();
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Check check = Check.of(args, "java/example-rpc");
        boolean hashed = Arrays.asList(args).contains("hashed");
        Timer timer = hashed ? new HashedWheelTimer() : new WheelTimer();
        Check.note("timer: %s", timer);
        ScheduledExecutorService server = Executors.newScheduledThreadPool(2);
        Map<Integer, Call> inflight = new ConcurrentHashMap<>();
        List<Call> calls = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(CALLS);
        AtomicInteger answered = new AtomicInteger();
        Random random = new Random(7);
        try {
            for (int i = 0; i < CALLS; i++) {
                Call call = new Call(i, random.nextInt(10) == 0);
                calls.add(call);
                inflight.put(call.id, call);
                // The timeout is armed before the request leaves.
                call.timeout = timer.newTimeout(t -> {
                    call.timedOutAt = System.nanoTime();
                    call.timedOut = true;
                    call.completions.incrementAndGet();
                    inflight.remove(call.id);
                    done.countDown();
                }, TIMEOUT_MS, TimeUnit.MILLISECONDS);
                if (!call.dropped) {
                    server.schedule(() -> {
                        // The response: it completes the call if it beats the timeout.
                        if (call.timeout.cancel()) {
                            answered.incrementAndGet();
                            call.completions.incrementAndGet();
                            inflight.remove(call.id);
                            done.countDown();
                        } else {
                            call.lateResponse = true;
                        }
                    }, random.nextInt(150), TimeUnit.MILLISECONDS);
                }
                if (i % 200 == 199) {
                    Thread.sleep(10);
                }
            }
            check.that(done.await(120, TimeUnit.SECONDS), "every call completes");
        } finally {
            server.shutdown();
            server.awaitTermination(60, TimeUnit.SECONDS);
        }

        int once = 0;
        int timedOut = 0;
        int droppedTimedOut = 0;
        int dropped = 0;
        int early = 0;
        int late = 0;
        for (Call c : calls) {
            once += c.completions.get() == 1 ? 1 : 0;
            if (c.timedOut) {
                timedOut++;
                if (c.timedOutAt - c.sentAt < TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MS)) {
                    early++;
                }
            }
            if (c.dropped) {
                dropped++;
                droppedTimedOut += c.timedOut ? 1 : 0;
            }
            late += c.lateResponse ? 1 : 0;
        }
        Check.note("%d calls: %d answered, %d timed out (%d dropped by the server, %d answered too late)",
                   CALLS, answered.get(), timedOut, dropped, late);
        check.that(once == CALLS, "each call completed exactly once: by its response or by its timeout");
        check.that(answered.get() + timedOut == CALLS, "answered + timed out = calls");
        check.that(droppedTimedOut == dropped, "every dropped call timed out");
        check.that(early == 0, "no timeout fired before its 300 ms");
        check.that(inflight.isEmpty(), "nothing left in flight");
        if (timer instanceof WheelTimer w) {
            check.that(w.pendingTimeouts() == 0, "no timeout pending");
            check.that(w.stats().live() == 0, "the engine holds nothing once the cancels reached it");
        }
        check.that(timer.stop().isEmpty(), "stop() finds nothing unprocessed");
        check.finish();
    }
}
