// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * AhcExample.java - AsyncHttpClient timing its requests with WheelTimer
 * instead of its own HashedWheelTimer: one line of its configuration
 */
package org.wheeltimer.ahc;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.asynchttpclient.AsyncHttpClient;
import org.asynchttpclient.DefaultAsyncHttpClient;
import org.asynchttpclient.DefaultAsyncHttpClientConfig;
import org.asynchttpclient.Dsl;
import org.asynchttpclient.Response;
import org.wheeltimer.WheelTimer;

/**
 * AsyncHttpClient arms a timeout per request (and per read) on a Netty
 * {@code Timer}: by default a {@code HashedWheelTimer} of its own, whose
 * thread ticks ten times a second for as long as the client lives.
 * {@code setNettyTimer()} gives it another; here, a {@link WheelTimer}:
 *
 * <pre>{@code
 * WheelTimer timer = new WheelTimer();
 * AsyncHttpClient client = new DefaultAsyncHttpClient(Dsl.config()
 *         .setNettyTimer(timer)            // the one line
 *         .setRequestTimeout(500)
 *         .build());
 * ...
 * client.close();
 * timer.stop();                            // the client stops only a timer it made
 * }</pre>
 *
 * <p>100 requests go to a local server (Netty's HTTP codec, in this
 * process), which answers nine in ten at once and never answers the
 * tenth; each held request fails with AsyncHttpClient's
 * {@link TimeoutException}, no earlier than its 500 ms. Each claim holds at
 * any speed: the answered requests get a timeout far longer than the run.
 */
public final class AhcExample {
    private static final int REQUESTS = 100;
    private static final int HELD_TIMEOUT_MS = 500;
    private static final int ANSWERED_TIMEOUT_MS = 120_000;

    private AhcExample() {
    }

    public static void main(String[] args) throws Exception {
        String unit = args.length == 2 && args[0].equals("--tap") ? args[1] : "example-ahc";
        System.out.println("# unit: " + unit);
        WheelTimer timer = new WheelTimer();
        int timedOut = 0;
        int early = 0;
        int answered = 0;
        int other = 0;
        try (LocalHttpServer server = new LocalHttpServer(1)) {
            String url = "http://127.0.0.1:" + server.port();
            try (AsyncHttpClient client = new DefaultAsyncHttpClient(Dsl.config()
                    .setNettyTimer(timer)
                    .setRequestTimeout(HELD_TIMEOUT_MS)
                    .setReadTimeout(-1)
                    .setMaxRequestRetry(0)
                    .setShutdownQuietPeriod(0)
                    .build())) {
                List<CompletableFuture<Response>> futures = new ArrayList<>();
                long[] sent = new long[REQUESTS];
                for (int i = 0; i < REQUESTS; i++) {
                    boolean held = i % 10 == 0;
                    sent[i] = System.nanoTime();
                    futures.add(client.executeRequest(Dsl.get(url + (held ? LocalHttpServer.HOLD : "/"))
                            .setRequestTimeout(held ? HELD_TIMEOUT_MS : ANSWERED_TIMEOUT_MS))
                                        .toCompletableFuture());
                }
                for (int i = 0; i < REQUESTS; i++) {
                    try {
                        Response r = futures.get(i).get(ANSWERED_TIMEOUT_MS, TimeUnit.MILLISECONDS);
                        answered += r.getStatusCode() == 200 && i % 10 != 0 ? 1 : 0;
                    } catch (ExecutionException e) {
                        Throwable cause = e.getCause() instanceof CompletionException c ? c.getCause()
                                : e.getCause();
                        if (cause instanceof TimeoutException && i % 10 == 0) {
                            timedOut++;
                            long after = System.nanoTime() - sent[i];
                            early += after < TimeUnit.MILLISECONDS.toNanos(HELD_TIMEOUT_MS) ? 1 : 0;
                        } else {
                            other++;
                            System.out.println("# request " + i + ": " + cause);
                        }
                    }
                }
            }
            System.out.printf("# %d answered, %d timed out, %d otherwise; the server held %d%n",
                              answered, timedOut, other, server.held());
        }
        timer.stop();

        claim(answered == REQUESTS - REQUESTS / 10,
              "every request the server answered completed with 200 (" + answered + ")");
        claim(timedOut == REQUESTS / 10 && early == 0 && other == 0,
              "every held request failed with AsyncHttpClient's TimeoutException, none before its "
              + HELD_TIMEOUT_MS + " ms (" + timedOut + ", early: " + early + ")");
        claim(Thread.getAllStackTraces().keySet().stream()
                      .noneMatch(t -> t.getName().startsWith("wheeltimer-")),
              "after close() and stop(), the timer's thread has ended");
        System.out.println("1.." + claims);
        System.out.printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0%n",
                          claims - failed, failed);
        System.out.flush();
        System.exit(failed == 0 ? 0 : 1);
    }

    private static int claims;
    private static int failed;

    private static void claim(boolean holds, String what) {
        claims++;
        if (!holds) {
            failed++;
        }
        System.out.println((holds ? "ok " : "not ok ") + claims + " " + what);
    }
}
