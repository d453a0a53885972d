// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Bench.java - WheelTimer against Netty's HashedWheelTimer at its default
 * 100 ms tick and at a 1 ms tick, in one JVM
 */
package org.wheeltimer.bench;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Stream;

import org.wheeltimer.LockedContext;
import org.wheeltimer.WheelTimer;

/**
 * {@code Bench [--quick]}: four measurements of each timer, then the two
 * ways of handing timeouts to WheelTimer's worker. Time is whatever the
 * machine gives (under QEMU's emulation, emulated time): only the ratios
 * between timers measured in the same run mean anything. Medians of
 * several rounds, after a round to warm the JIT up.
 *
 * <ul>
 * <li>newTimeout + cancel: one thread keeps 1024 request timeouts 10 s away
 *     in flight, cancelling the oldest for each new one; wall time per pair,
 *     which on one CPU includes the worker's share.
 * <li>expiry: N timeouts with one deadline; time per task from the first
 *     run to the last.
 * <li>idle wake-ups: 100 K timeouts an hour away, none due; the worker
 *     thread's context switches per second (/proc/self/task/TID/status).
 * <li>lateness: 2000 timeouts 20 to 220 ms away (all made before the
 *     first is due, so that making them does not compete with running
 *     them on a single CPU); when each ran, after its
 *     deadline: median, 99th percentile, maximum (each the median of the
 *     rounds').
 * </ul>
 *
 * <p>Every timer's code is warmed up first, and the rounds go round the
 * timers, so that a slow spell of the machine falls on all of them.
 */
public final class Bench {
    private static final TimerTask NOP = t -> { };
    private static final AtomicInteger THREADS = new AtomicInteger();

    private final boolean quick;
    private final int churnOps;
    private final int expiryTasks;
    private final int idleTimeouts;
    private final int idleSeconds;
    private final int latenessTimeouts;
    private final int rounds;

    private Bench(boolean quick) {
        this.quick = quick;
        churnOps = quick ? 20_000 : 200_000;
        expiryTasks = quick ? 10_000 : 100_000;
        idleTimeouts = quick ? 10_000 : 100_000;
        idleSeconds = quick ? 1 : 5;
        latenessTimeouts = quick ? 200 : 2000;
        rounds = quick ? 1 : 5;
    }

    /** A named worker thread, so that its kernel id can be found. */
    private static final class Named implements ThreadFactory {
        final String name = "bench-" + THREADS.incrementAndGet();

        @Override
        public Thread newThread(Runnable r) {
            return new Thread(r, name);
        }

        int tid() {
            try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
                return tasks.filter(p -> name.equals(comm(p)))
                        .mapToInt(p -> Integer.parseInt(p.getFileName().toString()))
                        .findFirst().orElseThrow();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private static String comm(Path task) {
            try {
                return Files.readString(task.resolve("comm")).trim();
            } catch (NoSuchFileException gone) {
                return "";
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private record Config(String name, Function<ThreadFactory, Timer> make) {
    }

    private record Result(double churnNs, double expiryNs, double wakeups, double[] lateUs) {
    }

    public static void main(String[] args) throws Exception {
        boolean quick = Arrays.asList(args).contains("--quick");
        new Bench(quick).run();
    }

    private void run() throws Exception {
        List<Config> configs = List.of(
                new Config("WheelTimer (1 ms resolution)", WheelTimer::new),
                new Config("HashedWheelTimer, 100 ms tick (default)",
                           f -> new HashedWheelTimer(f, 100, TimeUnit.MILLISECONDS)),
                new Config("HashedWheelTimer, 1 ms tick",
                           f -> new HashedWheelTimer(f, 1, TimeUnit.MILLISECONDS)));
        System.out.println("# java bench" + (quick ? " (quick)" : "") + ": "
                           + Runtime.getRuntime().availableProcessors() + " CPU(s), "
                           + System.getProperty("java.vm.name") + " "
                           + System.getProperty("java.version"));
        int n = configs.size();
        // Every timer's code is compiled before anything is measured.
        System.out.println("# warming up");
        for (Config c : configs) {
            withTimer(c, t -> churn(t, churnOps));
            withTimer(c, t -> expiry(t, expiryTasks / 10));
            withTimer(c, t -> lateness(t, latenessTimeouts / 10)[0]);
        }
        // Rounds go round the timers, so that the machine's moods fall on all.
        double[][] churn = new double[n][rounds];
        double[][] expiry = new double[n][rounds];
        double[][][] late = new double[n][3][rounds];
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < n; i++) {
                churn[i][r] = withTimer(configs.get(i), t -> churn(t, churnOps));
                expiry[i][r] = withTimer(configs.get(i), t -> expiry(t, expiryTasks));
                int k = r;
                double[][] l = late[i];
                withTimer(configs.get(i), t -> {
                    double[] p = lateness(t, latenessTimeouts);
                    for (int j = 0; j < 3; j++) {
                        l[j][k] = p[j];
                    }
                    return 0;
                });
            }
        }
        List<Result> results = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Config c = configs.get(i);
            Named idleThread = new Named();
            Timer idle = c.make.apply(idleThread);
            double wakeups;
            try {
                wakeups = idleWakeups(idle, idleThread);
            } finally {
                idle.stop();
            }
            double[] lat = {median(late[i][0]), median(late[i][1]), median(late[i][2])};
            Result r = new Result(median(churn[i]), median(expiry[i]), wakeups, lat);
            results.add(r);
            System.out.printf(Locale.ROOT, "# %s: newTimeout+cancel %.0f ns, expiry %.0f ns/task, "
                              + "idle %.1f wake-ups/s, lateness %.0f / %.0f / %.0f us%n",
                              c.name, r.churnNs, r.expiryNs, r.wakeups, lat[0], lat[1], lat[2]);
        }
        printTable(results);
        handOver();
    }

    private interface Measure {
        double on(Timer t) throws Exception;
    }

    /** One measurement on a new timer of {@code c}, stopped after. */
    private static double withTimer(Config c, Measure m) throws Exception {
        Timer t = c.make.apply(new Named());
        try {
            return m.on(t);
        } finally {
            t.stop();
        }
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    private interface Round {
        double run() throws Exception;
    }

    private double median(Round round) throws Exception {
        double[] v = new double[rounds];
        for (int i = 0; i < rounds; i++) {
            v[i] = round.run();
        }
        return median(v);
    }

    /** ns per newTimeout + cancel, 1024 in flight. */
    private static double churn(Timer t, int n) {
        Timeout[] window = new Timeout[1024];
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            int k = i & 1023;
            if (window[k] != null) {
                window[k].cancel();
            }
            window[k] = t.newTimeout(NOP, 10, TimeUnit.SECONDS);
        }
        long end = System.nanoTime();
        for (Timeout x : window) {
            x.cancel();
        }
        return (end - start) / (double) n;
    }

    /** ns per task from the first run to the last, all due together. */
    private static double expiry(Timer t, int n) throws InterruptedException {
        long[] first = new long[1];
        long[] last = new long[1];
        CountDownLatch done = new CountDownLatch(n);
        TimerTask task = x -> {
            long now = System.nanoTime();
            if (first[0] == 0) {
                first[0] = now;
            }
            last[0] = now;
            done.countDown();
        };
        // Every timeout is scheduled before the common deadline, or again.
        for (long lead = 200; ; lead *= 2) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(lead);
            List<Timeout> made = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                made.add(t.newTimeout(task, deadline - System.nanoTime(), TimeUnit.NANOSECONDS));
            }
            if (System.nanoTime() < deadline - TimeUnit.MILLISECONDS.toNanos(10)) {
                break;
            }
            made.forEach(Timeout::cancel);
        }
        if (!done.await(600, TimeUnit.SECONDS)) {
            throw new IllegalStateException("expiry: tasks lost");
        }
        return (last[0] - first[0]) / (double) (n - 1);
    }

    /** The worker's context switches per second, with many timeouts pending and none due. */
    private double idleWakeups(Timer t, Named thread) throws InterruptedException {
        for (int i = 0; i < idleTimeouts; i++) {
            t.newTimeout(NOP, 1, TimeUnit.HOURS);
        }
        CountDownLatch taken = new CountDownLatch(1);
        t.newTimeout(x -> taken.countDown(), 0, TimeUnit.MILLISECONDS);
        taken.await();
        Thread.sleep(500);
        int tid = thread.tid();
        long before = contextSwitches(tid);
        long start = System.nanoTime();
        Thread.sleep(TimeUnit.SECONDS.toMillis(idleSeconds));
        long switches = contextSwitches(tid) - before;
        return switches / ((System.nanoTime() - start) / 1e9);
    }

    private static long contextSwitches(int tid) {
        long n = 0;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/task/" + tid + "/status"))) {
                if (line.startsWith("voluntary_ctxt_switches:")
                        || line.startsWith("nonvoluntary_ctxt_switches:")) {
                    n += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return n;
    }

    /** Lateness after the deadline in us: median, 99th percentile, maximum. */
    private static double[] lateness(Timer t, int n) throws InterruptedException {
        long[] late = new long[n];
        CountDownLatch done = new CountDownLatch(n);
        Random random = new Random(42);
        for (int i = 0; i < n; i++) {
            int k = i;
            long delay = TimeUnit.MICROSECONDS.toNanos(20_000 + random.nextInt(200_000));
            long deadline = System.nanoTime() + delay;
            t.newTimeout(x -> {
                late[k] = System.nanoTime() - deadline;
                done.countDown();
            }, delay, TimeUnit.NANOSECONDS);
        }
        if (!done.await(600, TimeUnit.SECONDS)) {
            throw new IllegalStateException("lateness: tasks lost");
        }
        Arrays.sort(late);
        if (late[0] < 0) {
            throw new IllegalStateException("a task ran " + -late[0] + " ns early");
        }
        return new double[] {late[n / 2] / 1e3, late[n * 99 / 100] / 1e3, late[n - 1] / 1e3};
    }

    private static String ratio(double other, double wheel) {
        if (wheel == 0) {
            return other == 0 ? "" : " (wheeltimer: 0)";
        }
        double x = other / wheel;
        return String.format(Locale.ROOT, x >= 10 ? " (%.0fx)" : " (%.2fx)", x);
    }

    private static void printTable(List<Result> r) {
        Result w = r.get(0);
        System.out.println();
        System.out.println("=== java bench: (x) = HashedWheelTimer / WheelTimer");
        System.out.println("| measurement | WheelTimer | HashedWheelTimer 100 ms | HashedWheelTimer 1 ms |");
        System.out.println("| --- | --- | --- | --- |");
        row("newTimeout + cancel, ns", r, Result::churnNs, w.churnNs, "%.0f");
        row("per expired task, ns", r, Result::expiryNs, w.expiryNs, "%.0f");
        StringBuilder b = new StringBuilder("| worker wake-ups/s, 100 K pending an hour away |");
        for (Result x : r) {
            b.append(String.format(Locale.ROOT, " %.1f |", x.wakeups));
        }
        System.out.println(b);
        b = new StringBuilder("| lateness p50 / p99 / max, us |");
        for (Result x : r) {
            b.append(String.format(Locale.ROOT, " %.0f / %.0f / %.0f |", x.lateUs[0], x.lateUs[1],
                                   x.lateUs[2]));
        }
        System.out.println(b);
        b = new StringBuilder("| lateness p99 ratio |");
        for (Result x : r) {
            b.append(ratio(x.lateUs[1], w.lateUs[1])).append(" |");
        }
        System.out.println(b);
        System.out.println("=== end");
    }

    private static void row(String what, List<Result> r, Function<Result, Double> f, double wheel,
                            String format) {
        StringBuilder b = new StringBuilder("| ").append(what).append(" |");
        for (int i = 0; i < r.size(); i++) {
            double v = f.apply(r.get(i));
            b.append(' ').append(String.format(Locale.ROOT, format, v));
            if (i > 0) {
                b.append(ratio(v, wheel));
            }
            b.append(" |");
        }
        System.out.println(b);
    }

    /**
     * The hand-over: WheelTimer's two lock-free stacks against a lock around
     * the context with a submit per add (LockedContext), callers' ns per
     * newTimeout + cancel, from one thread and from four.
     */
    private void handOver() throws Exception {
        System.out.println();
        System.out.println("=== java bench: hand-over to the worker, ns per add + cancel");
        System.out.println("| callers | stacks (WheelTimer) | lock + submit per add |");
        System.out.println("| --- | --- | --- |");
        for (int threads : new int[] {1, 4}) {
            double stacks = median(() -> {
                WheelTimer t = new WheelTimer();
                try {
                    int per = churnOps / threads;
                    parallel(threads, per * (long) threads, () -> churn(t, per));
                    return parallel(threads, per * (long) threads, () -> churn(t, per));
                } finally {
                    t.stop();
                }
            });
            double locked = median(() -> {
                try (LockedContext l = new LockedContext()) {
                    int per = churnOps / threads;
                    parallel(threads, per * (long) threads, () -> lockedChurn(l, per));
                    return parallel(threads, per * (long) threads, () -> lockedChurn(l, per));
                }
            });
            System.out.printf(Locale.ROOT, "| %d | %.0f | %.0f%s |%n", threads, stacks, locked,
                              ratio(locked, stacks));
        }
        System.out.println("=== end");
    }

    private static double lockedChurn(LockedContext l, int n) {
        long[] window = new long[1024];
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            int k = i & 1023;
            if (window[k] != 0) {
                l.cancel(window[k]);
            }
            window[k] = l.add(TimeUnit.SECONDS.toNanos(10));
        }
        long end = System.nanoTime();
        for (long h : window) {
            if (h != 0) {
                l.cancel(h);
            }
        }
        return (end - start) / (double) n;
    }

    private interface Work {
        double run();
    }

    /** Runs {@code work} on {@code threads} threads at once; wall ns per operation of all {@code ops}. */
    private static double parallel(int threads, long ops, Work work) throws InterruptedException {
        List<Thread> list = new ArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        for (int i = 0; i < threads; i++) {
            Thread th = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                work.run();
            });
            th.start();
            list.add(th);
        }
        long start = System.nanoTime();
        go.countDown();
        for (Thread th : list) {
            th.join();
        }
        return (System.nanoTime() - start) / (double) ops;
    }
}
