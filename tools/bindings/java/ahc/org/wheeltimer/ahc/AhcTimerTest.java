// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * AhcTimerTest.java - AsyncHttpClient with WheelTimer swapped in by one
 * line: 10 000 requests in flight, the held ones time out, the others
 * complete, and nothing of ours is left after close()
 */
package org.wheeltimer.ahc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.Timeout;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.asynchttpclient.AsyncHttpClient;
import org.asynchttpclient.DefaultAsyncHttpClient;
import org.asynchttpclient.DefaultAsyncHttpClientConfig;
import org.asynchttpclient.Dsl;
import org.asynchttpclient.Response;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.wheeltimer.WheelTimer;
import org.wheeltimer.WheelTimerStats;

/**
 * Debian's AsyncHttpClient 2.12.3 on Debian's Netty 4.1.48, against
 * {@link LocalHttpServer} in a process of its own. Every claim holds at any
 * speed: the held requests get a 2 s timeout and the others one longer than
 * any wait here, so that a slow machine cannot turn an answered request
 * into a timed-out one; how late the timeouts came is printed, and
 * measured in the benchmark ({@link AhcBench}), not asserted.
 */
@DisplayName("AsyncHttpClient with WheelTimer")
class AhcTimerTest {
    private static final long LIMIT_SECONDS = 120;
    private static final int REQUESTS = 10_000;
    /** One request in this many is held by the server. */
    private static final int HELD_EVERY = 10;
    private static final int HELD_TIMEOUT_MS = 2000;
    private static final int OTHER_TIMEOUT_MS = (int) TimeUnit.SECONDS.toMillis(LIMIT_SECONDS);

    /** Threads that are recorded, so that the test can see them end. */
    private static final class Threads implements ThreadFactory {
        private final String prefix;
        final List<Thread> made = Collections.synchronizedList(new ArrayList<>());

        Threads(String prefix) {
            this.prefix = prefix;
        }

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, prefix + made.size());
            made.add(t);
            return t;
        }
    }

    /** What became of one request. */
    private static final class Outcome {
        final boolean held;
        final long start;
        volatile long end;
        volatile Response response;
        volatile Throwable failure;

        Outcome(boolean held, long start) {
            this.held = held;
            this.start = start;
        }
    }

    @Test
    void tenThousandRequestsInFlightTheHeldOnesTimeOutTheOthersComplete() throws Exception {
        Threads clientThreads = new Threads("ahc-io-");
        Threads timerThreads = new Threads("ahc-wt-");
        WheelTimer timer = new WheelTimer(timerThreads);
        Outcome[] outcomes = new Outcome[REQUESTS];
        try (ServerProcess server = ServerProcess.start(2)) {
            AsyncHttpClient client = new DefaultAsyncHttpClient(new DefaultAsyncHttpClientConfig.Builder()
                    .setNettyTimer(timer)
                    .setThreadFactory(clientThreads)
                    .setConnectTimeout(OTHER_TIMEOUT_MS)
                    .setReadTimeout(-1)
                    .setMaxRequestRetry(0)
                    .setShutdownQuietPeriod(0)
                    .build());
            try {
                CountDownLatch done = new CountDownLatch(REQUESTS);
                for (int i = 0; i < REQUESTS; i++) {
                    boolean held = i % HELD_EVERY == 0;
                    Outcome o = new Outcome(held, System.nanoTime());
                    outcomes[i] = o;
                    client.executeRequest(Dsl.get(server.url() + (held ? LocalHttpServer.HOLD + "/" : "/") + i)
                                                  .setRequestTimeout(held ? HELD_TIMEOUT_MS : OTHER_TIMEOUT_MS))
                            .toCompletableFuture().whenComplete((res, err) -> {
                                o.end = System.nanoTime();
                                o.response = res;
                                o.failure = err;
                                done.countDown();
                            });
                }
                assertTrue(done.await(LIMIT_SECONDS, TimeUnit.SECONDS),
                           done.getCount() + " requests never completed nor failed");
                WheelTimerStats stats = timer.stats();
                assertTrue(stats.tasksRun() >= REQUESTS / HELD_EVERY,
                           "the held requests' timeouts ran on WheelTimer: " + stats);
            } finally {
                client.close();
            }
        }
        Set<Timeout> left = timer.stop();
        System.out.println("# timeouts still pending at stop(): " + left.size());

        long[] late = new long[REQUESTS / HELD_EVERY];
        int h = 0;
        int completed = 0;
        long timeout = TimeUnit.MILLISECONDS.toNanos(HELD_TIMEOUT_MS);
        for (int i = 0; i < REQUESTS; i++) {
            Outcome o = outcomes[i];
            if (o.held) {
                Throwable cause = o.failure instanceof CompletionException c ? c.getCause() : o.failure;
                assertNull(o.response, "held request " + i + " got an answer");
                assertInstanceOf(TimeoutException.class, cause, "held request " + i + " times out");
                assertTrue(cause.getMessage().startsWith("Request timeout"), cause.getMessage());
                long after = o.end - o.start;
                assertTrue(after >= timeout, "held request " + i + " failed "
                           + (timeout - after) + " ns before its timeout");
                late[h++] = after - timeout;
            } else {
                assertNull(o.failure, "request " + i + " failed");
                assertNotNull(o.response);
                assertEquals(200, o.response.getStatusCode());
                assertEquals("ok", o.response.getResponseBody());
                completed++;
            }
        }
        assertEquals(REQUESTS / HELD_EVERY, h);
        assertEquals(REQUESTS - h, completed);
        Arrays.sort(late);
        System.out.printf("# %d held requests timed out, %d completed; after the %d ms timeout: "
                          + "p50 %.1f ms, p99 %.1f ms, max %.1f ms%n", h, completed, HELD_TIMEOUT_MS,
                          late[h / 2] / 1e6, late[h * 99 / 100] / 1e6, late[h - 1] / 1e6);

        // Nothing of ours is left: the timer's worker and the client's threads end.
        AtomicInteger alive = new AtomicInteger();
        for (Threads f : List.of(timerThreads, clientThreads)) {
            for (Thread t : new ArrayList<>(f.made)) {
                t.join(TimeUnit.SECONDS.toMillis(LIMIT_SECONDS));
                if (t.isAlive()) {
                    alive.incrementAndGet();
                }
            }
        }
        assertFalse(timerThreads.made.isEmpty());
        assertEquals(0, alive.get(), "threads of the timer or the client still alive after close()");
    }
}
