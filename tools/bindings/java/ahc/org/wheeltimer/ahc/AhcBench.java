// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * AhcBench.java - AsyncHttpClient with WheelTimer against its default
 * HashedWheelTimer: CPU per request, the timer thread's idle wake-ups,
 * the request timeout's lateness
 */
package org.wheeltimer.ahc;

import io.netty.util.Timer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import org.asynchttpclient.AsyncHttpClient;
import org.asynchttpclient.DefaultAsyncHttpClient;
import org.asynchttpclient.DefaultAsyncHttpClientConfig;
import org.asynchttpclient.Dsl;
import org.wheeltimer.WheelTimer;

/**
 * {@code AhcBench [--quick] [--connections N] [--rounds N]}: one client per timer, in
 * turn, against one {@link LocalHttpServer} in a process of its own (so
 * that this process's CPU is the client's alone). For each:
 *
 * <ul>
 * <li>warm-up: N requests at once, which leaves N keep-alive connections
 *     in the client's pool (N = 10 000 by default);
 * <li>idle wake-ups: with those N connections idle, the context switches
 *     per second of the timer's thread (AsyncHttpClient's pool cleaner runs
 *     on it once a second);
 * <li>CPU per request: rounds of N requests at once over the pooled
 *     connections, each with its request and read timeouts (two timeouts
 *     armed and cancelled per request); this process's CPU time
 *     (/proc/self/stat) per request, median of the rounds;
 * <li>lateness: 1000 requests the server holds, ten every 10 ms, with a
 *     1 s request timeout; how long after it each failed with
 *     AsyncHttpClient's TimeoutException: median, 99th percentile, maximum.
 * </ul>
 *
 * Every client's code is compiled first (a client of each timer makes two
 * bursts); then rounds go round the timers, each round a new client per
 * timer (the limit of open files does not allow two pools of 10 000 at
 * once), whose first burst fills its pool and whose second is measured.
 *
 * The timers: {@link WheelTimer} with its default 1 ms resolution, given
 * by {@code setNettyTimer()}; and AsyncHttpClient's own, a
 * {@code HashedWheelTimer} with a 100 ms tick.
 */
public final class AhcBench {
    private static final AtomicInteger CLIENTS = new AtomicInteger();
    private static final int HELD = 1000;
    private static final int HELD_TIMEOUT_MS = 1000;
    private static final int LONG_TIMEOUT_MS = 600_000;

    private final int connections;
    private final int rounds;
    private final int idleSeconds;
    private final boolean quick;

    private AhcBench(boolean quick, int connections, int rounds) {
        this.connections = connections;
        this.rounds = rounds > 0 ? rounds : quick ? 1 : 5;
        this.quick = quick;
        idleSeconds = quick ? 2 : 10;
    }

    private record Config(String name, Supplier<Timer> timer) {
    }

    public static void main(String[] args) throws Exception {
        List<String> a = Arrays.asList(args);
        new AhcBench(a.contains("--quick"), option(a, "--connections", 10_000),
                     option(a, "--rounds", 0)).run();
    }

    private static int option(List<String> args, String name, int otherwise) {
        int i = args.indexOf(name);
        return i >= 0 ? Integer.parseInt(args.get(i + 1)) : otherwise;
    }

    private void run() throws Exception {
        List<Config> configs = List.of(
                new Config("WheelTimer (1 ms)", () -> new WheelTimer(named("ahcwt-"))),
                new Config("HashedWheelTimer (AHC's default, 100 ms)", () -> null));
        int n = configs.size();
        System.out.println("# AsyncHttpClient bench: " + connections + " connections, "
                           + Runtime.getRuntime().availableProcessors() + " CPU(s), "
                           + System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        double[][] cpu = new double[n][rounds];
        double[] wakeups = new double[n];
        double[][] late = new double[n][];
        try (ServerProcess server = ServerProcess.start(2)) {
            // Every client's code is compiled before anything is measured.
            System.out.println("# warming up");
            for (Config c : configs) {
                withClient(c, server.url(), (client, timerThread) -> {
                    burst(client, server.url(), connections);
                    if (!quick && rounds > 1) {
                        burst(client, server.url(), connections);
                    }
                });
            }
            // Rounds go round the timers; the first also measures the rest.
            for (int r = 0; r < rounds; r++) {
                System.out.println("# round " + (r + 1) + " of " + rounds);
                for (int i = 0; i < n; i++) {
                    int k = i;
                    int round = r;
                    withClient(configs.get(i), server.url(), (client, timerThread) -> {
                        burst(client, server.url(), connections);
                        long before = processCpuNanos();
                        burst(client, server.url(), connections);
                        cpu[k][round] = (processCpuNanos() - before) / 1e3 / connections;
                        if (round == 0) {
                            wakeups[k] = idleWakeups(timerThread);
                            late[k] = lateness(client, server.url());
                        }
                    });
                }
            }
        }
        System.out.println();
        System.out.println("=== AsyncHttpClient bench: (x) = HashedWheelTimer / WheelTimer");
        System.out.println("| measurement | " + configs.get(0).name + " | " + configs.get(1).name + " |");
        System.out.println("| --- | --- | --- |");
        double w = median(cpu[0]);
        double h = median(cpu[1]);
        System.out.printf(Locale.ROOT, "| CPU per request (%d at once, keep-alive), us | %.1f | %.1f%s |%n",
                          connections, w, h, ratio(h, w));
        System.out.printf(Locale.ROOT, "| timer thread wake-ups per second, %d idle keep-alive connections "
                          + "| %.1f | %.1f%s |%n", connections, wakeups[0], wakeups[1],
                          ratio(wakeups[1], wakeups[0]));
        System.out.printf(Locale.ROOT, "| request timeout lateness p50 / p99 / max, ms (%d held, %d ms) "
                          + "| %.1f / %.1f / %.1f | %.1f / %.1f / %.1f |%n", HELD, HELD_TIMEOUT_MS,
                          late[0][0], late[0][1], late[0][2], late[1][0], late[1][1], late[1][2]);
        System.out.println("=== end");
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    private static String ratio(double other, double ours) {
        if (ours == 0) {
            return other == 0 ? "" : " (WheelTimer: 0)";
        }
        return String.format(Locale.ROOT, " (%.2fx)", other / ours);
    }

    /** Threads named {@code prefix} and a number, so that /proc finds them. */
    private static ThreadFactory named(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    private interface ClientWork {
        void run(AsyncHttpClient client, String timerThread) throws Exception;
    }

    /**
     * A client on {@code c}'s timer, closed after {@code work}; the work is
     * told the name prefix of the timer's thread: ours, or AsyncHttpClient's
     * ("POOL-timer-...").
     */
    private static void withClient(Config c, String url, ClientWork work) throws Exception {
        String pool = "ahc" + CLIENTS.incrementAndGet();
        Timer timer = c.timer.get();
        DefaultAsyncHttpClientConfig.Builder b = Dsl.config()
                .setThreadPoolName(pool)
                .setConnectTimeout(LONG_TIMEOUT_MS)
                .setRequestTimeout(LONG_TIMEOUT_MS)
                .setReadTimeout(LONG_TIMEOUT_MS)
                .setMaxRequestRetry(0)
                .setShutdownQuietPeriod(0);
        if (timer != null) {
            b.setNettyTimer(timer);
        }
        try (AsyncHttpClient client = new DefaultAsyncHttpClient(b.build())) {
            work.run(client, timer != null ? "ahcwt-" : pool + "-timer");
        } finally {
            if (timer != null) {
                timer.stop();
            }
        }
    }

    /** {@code n} requests at once; waits for all, which must succeed. */
    private static void burst(AsyncHttpClient client, String url, int n) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(n);
        AtomicInteger failed = new AtomicInteger();
        AtomicReference<String> first = new AtomicReference<>();
        for (int i = 0; i < n; i++) {
            client.executeRequest(Dsl.get(url + "/")).toCompletableFuture().whenComplete((res, err) -> {
                if (err != null || res.getStatusCode() != 200) {
                    failed.incrementAndGet();
                    first.compareAndSet(null, err != null ? err.toString() : "status " + res.getStatusCode());
                }
                done.countDown();
            });
        }
        if (!done.await(LONG_TIMEOUT_MS, TimeUnit.MILLISECONDS) || failed.get() != 0) {
            throw new IllegalStateException(failed.get() + " requests failed, the first with " + first.get());
        }
    }

    /** Context switches per second of the threads whose names start with {@code prefix}. */
    private double idleWakeups(String prefix) throws InterruptedException {
        Thread.sleep(1000);
        long before = contextSwitches(prefix);
        long start = System.nanoTime();
        Thread.sleep(TimeUnit.SECONDS.toMillis(idleSeconds));
        long n = contextSwitches(prefix) - before;
        return n / ((System.nanoTime() - start) / 1e9);
    }

    /** ms after the 1 s request timeout that each held request failed: p50, p99, max. */
    private static double[] lateness(AsyncHttpClient client, String url) throws InterruptedException {
        long[] late = new long[HELD];
        CountDownLatch done = new CountDownLatch(HELD);
        AtomicInteger wrong = new AtomicInteger();
        long timeout = TimeUnit.MILLISECONDS.toNanos(HELD_TIMEOUT_MS);
        // Ten every 10 ms: their deadlines spread over a second, as requests' do.
        for (int i = 0; i < HELD; i++) {
            if (i % 10 == 9) {
                Thread.sleep(10);
            }
            int k = i;
            long start = System.nanoTime();
            client.executeRequest(Dsl.get(url + LocalHttpServer.HOLD).setRequestTimeout(HELD_TIMEOUT_MS))
                    .toCompletableFuture().whenComplete((res, err) -> {
                        late[k] = System.nanoTime() - start - timeout;
                        Throwable cause = err instanceof CompletionException x ? x.getCause() : err;
                        if (!(cause instanceof TimeoutException) || late[k] < 0) {
                            wrong.incrementAndGet();
                        }
                        done.countDown();
                    });
        }
        if (!done.await(LONG_TIMEOUT_MS, TimeUnit.MILLISECONDS) || wrong.get() != 0) {
            throw new IllegalStateException(wrong.get() + " held requests did not time out, or early");
        }
        Arrays.sort(late);
        return new double[] {late[HELD / 2] / 1e6, late[HELD * 99 / 100] / 1e6, late[HELD - 1] / 1e6};
    }

    /**
     * This process's CPU time, user and system, in ns: the clock ticks of
     * /proc/self/stat, 100 a second (USER_HZ on every architecture Debian's
     * JDK runs on).
     */
    static long processCpuNanos() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
            return ticks * 10_000_000L;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long contextSwitches(String prefix) {
        long sum = 0;
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path p : (Iterable<Path>) tasks::iterator) {
                try {
                    if (!Files.readString(p.resolve("comm")).startsWith(prefix)) {
                        continue;
                    }
                    for (String line : Files.readAllLines(p.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")
                                || line.startsWith("nonvoluntary_ctxt_switches:")) {
                            sum += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                } catch (IOException gone) {
                    // The thread ended: its files are gone (ENOENT) or, a
                    // moment before, answer ESRCH.
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return sum;
    }
}
