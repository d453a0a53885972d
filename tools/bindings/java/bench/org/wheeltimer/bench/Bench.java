// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Bench.java - WheelTimer against Netty's HashedWheelTimer at its default
 * 100 ms tick and at a 1 ms tick, in one run
 */
package org.wheeltimer.bench;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.stream.Stream;

import org.wheeltimer.LockedContext;
import org.wheeltimer.WheelTimer;
import org.wheeltimer.measure.ClassHistogram;

/**
 * {@code Bench [--quick]}: WheelTimer against HashedWheelTimer at a 100 ms
 * and a 1 ms tick, in one run, on whatever engine {@code wheeltimer.engine}
 * names. Only the ratios between timers measured in the same run mean
 * anything (under QEMU's emulation time is emulated; on a shared host the
 * other processes come and go). Each figure is the median of several
 * rounds after a warm-up of six rounds of the first two measures, and the
 * rounds go round the timers, so that a slow spell of the machine falls
 * on all of them.
 *
 * <ul>
 * <li>newTimeout + cancel: one thread keeps 1024 request timeouts 10 s away
 *     in flight, cancelling the oldest for each new one: the caller's wall
 *     time per pair (the target's measure), and the CPU time per pair of
 *     the caller and the worker together, counted until the worker has
 *     dealt with the round (HashedWheelTimer's does so at its next ticks,
 *     after the caller's clock stopped).
 * <li>expiry: a task holds the worker while 100 K timeouts are made due at
 *     once, then lets go: the wall time per task from the first run to the
 *     last, and the worker's CPU time per task from letting go to the last
 *     run (handing the timeouts over, firing, collecting, running).
 * <li>idle wake-ups: 100 K timeouts an hour away, none due; the worker
 *     thread's context switches per second.
 * <li>lateness: 2000 timeouts 20 to 220 ms away (all made before the
 *     first is due): median, 99th percentile, maximum after the deadline.
 * <li>cold: Netty's own testExecutionOnTime, each run in a fresh JVM: a
 *     200 ms tick, 100 000 tasks scheduled at once, each 125 ms after it
 *     was made; the median lateness, and the median time after the tick
 *     that ran it (what is left when the tick's own rounding is taken
 *     out). Netty's ticks count from its worker's start, which the first
 *     newTimeout makes; WheelTimer's are on the clock, so its run first
 *     waits for a tick, and both bursts start at the same phase of their
 *     ticks.
 * <li>size: bytes per timeout, from the heap's class histogram (where the
 *     runtime has jdk.management).
 * </ul>
 *
 * <p>The timers of the first four are made once and kept for all rounds,
 * as a program keeps its one timer; the cold runs make theirs in a new
 * process each time.
 */
public final class Bench {
    private static final TimerTask NOP = t -> { };
    private static final AtomicInteger THREADS = new AtomicInteger();

    /* Netty's testExecutionOnTime. */
    private static final int COLD_TICK_MS = 200;
    private static final int COLD_DELAY_MS = 125;
    private static final int COLD_TASKS = 100_000;

    private final boolean quick;
    private final int churnOps;
    private final int expiryTasks;
    private final int idleTimeouts;
    private final int idleSeconds;
    private final int latenessTimeouts;
    private final int rounds;
    private final int warmRounds;
    private final int coldRuns;

    private Bench(boolean quick) {
        this.quick = quick;
        churnOps = quick ? 20_000 : 200_000;
        expiryTasks = quick ? 10_000 : 100_000;
        idleTimeouts = quick ? 10_000 : 100_000;
        idleSeconds = quick ? 1 : 5;
        latenessTimeouts = quick ? 200 : 2000;
        rounds = quick ? 1 : 7;
        warmRounds = quick ? 1 : 6;
        coldRuns = quick ? 1 : 5;
    }

    /** A named worker thread, so that its kernel id can be found. */
    private static final class Named implements ThreadFactory {
        final String name = "bench-" + THREADS.incrementAndGet();
        private int tid;

        @Override
        public Thread newThread(Runnable r) {
            return new Thread(r, name);
        }

        int tid() {
            if (tid != 0) {
                return tid;
            }
            try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
                tid = tasks.filter(p -> name.equals(comm(p)))
                        .mapToInt(p -> Integer.parseInt(p.getFileName().toString()))
                        .findFirst().orElseThrow();
                return tid;
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

    /**
     * A timer to measure: how to make it, and how long its worker needs,
     * once pendingTimeouts() is 0, to have dealt with a round (Netty's
     * moves at most 100 000 timeouts a tick from its queue to its wheel,
     * cancelled ones included).
     */
    private record Config(String name, Function<ThreadFactory, Timer> make, long drainMs) {
    }

    /** A timer of a config, kept for the rounds, and its worker thread. */
    private record Kept(Timer timer, Named thread, long drainMs) {
    }

    public static void main(String[] args) throws Exception {
        List<String> a = Arrays.asList(args);
        int cold = a.indexOf("--cold");
        if (cold >= 0) {
            coldChild(a.get(cold + 1));
            return;
        }
        new Bench(a.contains("--quick")).run();
    }

    private void run() throws Exception {
        List<Config> configs = List.of(
                new Config("WheelTimer (1 ms resolution)", WheelTimer::new, 20),
                new Config("HashedWheelTimer, 100 ms tick (default)",
                           f -> new HashedWheelTimer(f, 100, TimeUnit.MILLISECONDS), 350),
                new Config("HashedWheelTimer, 1 ms tick",
                           f -> new HashedWheelTimer(f, 1, TimeUnit.MILLISECONDS), 20));
        System.out.println(Machine.describe("java bench" + (quick ? " (quick)" : "")) + ", engine "
                           + System.getProperty("wheeltimer.engine", "auto"));
        int n = configs.size();
        List<Kept> kept = new ArrayList<>();
        for (Config c : configs) {
            Named thread = new Named();
            kept.add(new Kept(c.make.apply(thread), thread, c.drainMs));
        }
        double[][][] churn = new double[n][3][rounds];
        double[][][] expiry = new double[n][3][rounds];
        double[][][] late = new double[n][3][rounds];
        try {
            // Every timer's code is compiled, and its cost has settled,
            // before anything is measured: both timers' pairs, and
            // WheelTimer's expired task, cost less round after round for
            // about six full rounds (bench/README.md, "1 December, Bench's
            // warm-up").
            System.out.println("# warming up");
            for (int r = 0; r < warmRounds; r++) {
                for (Kept k : kept) {
                    churn(k, churnOps);
                    expiry(k, expiryTasks);
                }
            }
            for (Config c : configs) {
                withTimer(c, t -> lateness(t, latenessTimeouts / 10)[0]);
            }
            for (int r = 0; r < rounds; r++) {
                for (int i = 0; i < n; i++) {
                    double[] c = churn(kept.get(i), churnOps);
                    double[] e = expiry(kept.get(i), expiryTasks);
                    double[] l = withTimer(configs.get(i), t -> lateness(t, latenessTimeouts));
                    for (int j = 0; j < 3; j++) {
                        churn[i][j][r] = c[j];
                    }
                    for (int j = 0; j < 3; j++) {
                        expiry[i][j][r] = e[j];
                    }
                    for (int j = 0; j < 3; j++) {
                        late[i][j][r] = l[j];
                    }
                }
            }
        } finally {
            for (Kept k : kept) {
                k.timer.stop();
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
            Result r = new Result(median(churn[i][0]), median(churn[i][1]), median(churn[i][2]),
                                  median(expiry[i][0]),
                                  median(expiry[i][1]), median(expiry[i][2]), wakeups,
                                  new double[] {median(late[i][0]), median(late[i][1]),
                                                median(late[i][2])});
            results.add(r);
            System.out.printf(Locale.ROOT, "# %s: newTimeout+cancel %.0f ns (cpu %.0f), expiry %.0f"
                              + " ns/task (cpu %.0f), idle %.1f wake-ups/s, lateness %.0f / %.0f"
                              + " / %.0f us%n", c.name, r.churnNs, r.churnCpuNs, r.expiryNs,
                              r.expiryCpuNs, r.wakeups, r.lateUs[0], r.lateUs[1], r.lateUs[2]);
        }
        Cold cold = cold();
        Sizes sizes = Sizes.measure();
        printTable(results, cold, sizes);
        handOver();
        System.out.println(Machine.loadAtEnd());
    }

    private record Result(double churnNs, double churnCpuNs, double churnWorkerCpuNs,
                          double expiryNs, double expiryCpuNs,
                          double expiryRunCpuNs, double wakeups, double[] lateUs) {
    }

    private interface Measure<T> {
        T on(Timer t) throws Exception;
    }

    /** One measurement on a new timer of {@code c}, stopped after. */
    private static <T> T withTimer(Config c, Measure<T> m) throws Exception {
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

    /** The calling thread's kernel id. */
    private static int selfTid() {
        try {
            return Integer.parseInt(Files.readSymbolicLink(Path.of("/proc/thread-self"))
                                    .getFileName().toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits until the timer's worker has dealt with what it was handed. */
    private static void quiesce(Kept k) throws InterruptedException {
        // HashedWheelTimer counts a cancelled timeout until a tick has
        // dealt with it; WheelTimer stops at the cancel, and its worker
        // lingers a millisecond after a busy round.
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (pending(k.timer) != 0 && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        Thread.sleep(k.drainMs);
    }

    private static long pending(Timer t) {
        return t instanceof WheelTimer w ? w.pendingTimeouts()
                : ((HashedWheelTimer) t).pendingTimeouts();
    }

    /** ns per newTimeout + cancel with 1024 in flight: the caller's wall time, and CPU time. */
    private static double[] churn(Kept k, int n) throws InterruptedException {
        Timer t = k.timer;
        // The worker runs, and its thread is known, before the clock starts.
        t.newTimeout(NOP, 10, TimeUnit.SECONDS).cancel();
        quiesce(k);
        int self = selfTid();
        int worker = k.thread.tid();
        Timeout[] window = new Timeout[1024];
        long s0 = ThreadCpu.of(self);
        long w0 = ThreadCpu.of(worker);
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            int j = i & 1023;
            if (window[j] != null) {
                window[j].cancel();
            }
            window[j] = t.newTimeout(NOP, 10, TimeUnit.SECONDS);
        }
        long end = System.nanoTime();
        long s1 = ThreadCpu.of(self);
        for (Timeout x : window) {
            x.cancel();
        }
        quiesce(k);
        long w1 = ThreadCpu.of(worker);
        return new double[] {(end - start) / (double) n,
                             s0 < 0 ? -1 : (s1 - s0 + w1 - w0) / (double) n,
                             s0 < 0 ? -1 : (w1 - w0) / (double) n};
    }

    /**
     * ns per task of {@code n} due at once while a task held the worker: the
     * wall time from the first run to the last, the worker's CPU time from
     * letting it go to the last run, and from the first run to the last
     * (the wall time's share that the worker ran; the rest it waited for a
     * CPU).
     */
    private static double[] expiry(Kept k, int n) throws InterruptedException {
        Timer t = k.timer;
        int worker = k.thread.tid();
        long[] first = new long[1];
        long[] last = new long[1];
        long[] cpu = new long[2];
        CountDownLatch done = new CountDownLatch(n);
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch gate = new CountDownLatch(1);
        TimerTask task = x -> {
            long now = System.nanoTime();
            if (first[0] == 0) {
                first[0] = now;
                cpu[0] = ThreadCpu.of(worker);
            }
            last[0] = now;
            if (done.getCount() == 1) {
                cpu[1] = ThreadCpu.of(worker);
            }
            done.countDown();
        };
        t.newTimeout(x -> {
            held.countDown();
            gate.await();
        }, 0, TimeUnit.MILLISECONDS);
        held.await();
        for (int i = 0; i < n; i++) {
            t.newTimeout(task, 0, TimeUnit.MILLISECONDS);
        }
        long c0 = ThreadCpu.of(worker);
        gate.countDown();
        if (!done.await(600, TimeUnit.SECONDS)) {
            throw new IllegalStateException("expiry: tasks lost");
        }
        long c1 = ThreadCpu.of(worker);
        return new double[] {(last[0] - first[0]) / (double) (n - 1),
                             c0 < 0 ? -1 : (c1 - c0) / (double) n,
                             c0 < 0 ? -1 : (cpu[1] - cpu[0]) / (double) (n - 1)};
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
    static double[] lateness(Timer t, int n) throws InterruptedException {
        return lateness(n, (task, delay) -> t.newTimeout(x -> task.run(), delay, TimeUnit.NANOSECONDS));
    }

    /** How {@link #lateness(int, Scheduler)} hands a task and its delay in ns to a timer. */
    interface Scheduler {
        void schedule(Runnable task, long delayNanos);
    }

    /**
     * Lateness after the deadline in us of {@code n} tasks of 20 to 220 ms
     * given to {@code scheduler}: median, 99th percentile, maximum. The same
     * delays, from the same seed, for every timer and executor.
     */
    static double[] lateness(int n, Scheduler scheduler) throws InterruptedException {
        long[] late = new long[n];
        CountDownLatch done = new CountDownLatch(n);
        Random random = new Random(42);
        for (int i = 0; i < n; i++) {
            int k = i;
            long delay = TimeUnit.MICROSECONDS.toNanos(20_000 + random.nextInt(200_000));
            long deadline = System.nanoTime() + delay;
            scheduler.schedule(() -> {
                late[k] = System.nanoTime() - deadline;
                done.countDown();
            }, delay);
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

    /**
     * The cold runs' medians in ms, per timer: lateness, time after the
     * tick, and the CPU time of the worker and of the whole process (the
     * JIT and the collector included) over the run.
     */
    private record Cold(double[] lateMs, double[] afterTickMs, double[] workerCpuMs,
                        double[] processCpuMs) {
    }

    /** Netty's testExecutionOnTime in fresh JVMs, the timers taking turns. */
    private Cold cold() throws IOException, InterruptedException {
        String[] kinds = {"wheeltimer", "hashed"};
        double[][][] v = new double[2][5][coldRuns];
        for (int r = 0; r < coldRuns; r++) {
            for (int i = 0; i < 2; i++) {
                double[] c = runColdChild(kinds[i]);
                for (int j = 0; j < 5; j++) {
                    v[i][j][r] = c[j];
                }
                System.out.printf(Locale.ROOT, "# cold %s run %d: median lateness %.1f ms, %.1f ms"
                                  + " after its tick, the last ran %.1f ms after the first was"
                                  + " made; CPU: worker %.1f ms, process %.0f ms%n", kinds[i],
                                  r + 1, c[0], c[1], c[2], c[3], c[4]);
            }
        }
        double[][] m = new double[5][2];
        for (int j = 0; j < 5; j++) {
            for (int i = 0; i < 2; i++) {
                m[j][i] = median(v[i][j]);
            }
        }
        return new Cold(m[0], m[1], m[3], m[4]);
    }

    /** Runs this program with --cold in a new JVM with the same options; its five figures. */
    private static double[] runColdChild(String kind) throws IOException, InterruptedException {
        ProcessHandle.Info info = ProcessHandle.current().info();
        List<String> cmd = new ArrayList<>();
        cmd.add(info.command().orElseThrow());
        for (String a : info.arguments().orElseThrow()) {
            if (a.equals(Bench.class.getName())) {
                break;
            }
            cmd.add(a);
        }
        cmd.add(Bench.class.getName());
        cmd.add("--cold");
        cmd.add(kind);
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String result = null;
        StringBuilder all = new StringBuilder();
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                all.append(line).append('\n');
                if (line.startsWith("cold ")) {
                    result = line;
                }
            }
        }
        int status = p.waitFor();
        if (status != 0 || result == null) {
            throw new IllegalStateException("the cold run of " + kind + " failed (status "
                                            + status + "):\n" + all);
        }
        String[] f = result.split(" ");
        double[] v = new double[5];
        for (int i = 0; i < 5; i++) {
            v[i] = Double.parseDouble(f[i + 1]);
        }
        return v;
    }

    /**
     * In the fresh JVM: Netty's testExecutionOnTime, with the timer named.
     * Prints "cold LATE AFTER SPAN WORKER PROCESS": the median lateness, the
     * median time after the tick that ran the task, the time from the
     * first newTimeout to the last run, and the CPU time of the worker
     * and of the process, in ms.
     */
    private static void coldChild(String kind) throws Exception {
        boolean wheel = kind.equals("wheeltimer");
        Named thread = new Named();
        Timer timer = wheel ? new WheelTimer(thread, COLD_TICK_MS, TimeUnit.MILLISECONDS)
                            : new HashedWheelTimer(thread, COLD_TICK_MS, TimeUnit.MILLISECONDS);
        BlockingQueue<long[]> queue = new LinkedBlockingQueue<>();
        if (wheel) {
            startAtATick(((WheelTimer) timer).resolutionNanos());
        }
        long first = System.nanoTime();
        for (int i = 0; i < COLD_TASKS; i++) {
            final long start = System.nanoTime();
            timer.newTimeout(t -> queue.add(new long[] {start, System.nanoTime()}),
                             COLD_DELAY_MS, TimeUnit.MILLISECONDS);
        }
        Grid grid = wheel ? new WheelGrid((WheelTimer) timer) : new NettyGrid((HashedWheelTimer) timer);
        long delay = TimeUnit.MILLISECONDS.toNanos(COLD_DELAY_MS);
        long[] late = new long[COLD_TASKS];
        long[] after = new long[COLD_TASKS];
        long lastRun = 0;
        List<long[]> runs = new ArrayList<>();
        for (int i = 0; i < COLD_TASKS; i++) {
            long[] run = queue.take();
            late[i] = run[1] - run[0] - delay;
            lastRun = Math.max(lastRun, run[1]);
            runs.add(run);
        }
        long workerCpu = ThreadCpu.of(thread.tid());
        long processCpu = processCpuNanos();
        timer.stop();
        // Each deadline is the delay after its start (the timer read its
        // clock a little later, which moves no deadline past a tick but
        // one in some 10^5): the grid finds the tick that ran it.
        for (int i = 0; i < COLD_TASKS; i++) {
            long[] run = runs.get(i);
            after[i] = run[1] - grid.tickAfter(run[0] + delay);
        }
        Arrays.sort(late);
        Arrays.sort(after);
        if (late[0] < 0) {
            throw new IllegalStateException("a task ran " + -late[0] + " ns early");
        }
        if (System.getProperty("bench.cold.detail") != null) {
            System.out.printf(Locale.ROOT, "# after tick: min %.1f p10 %.1f p50 %.1f p90 %.1f max %.1f ms;"
                              + " late min %.1f max %.1f%n", after[0] / 1e6,
                              after[COLD_TASKS / 10] / 1e6, after[COLD_TASKS / 2] / 1e6,
                              after[COLD_TASKS * 9 / 10] / 1e6, after[COLD_TASKS - 1] / 1e6,
                              late[0] / 1e6, late[COLD_TASKS - 1] / 1e6);
        }
        System.out.printf(Locale.ROOT, "cold %.3f %.3f %.3f %.3f %.3f%n", late[COLD_TASKS / 2] / 1e6,
                          after[COLD_TASKS / 2] / 1e6, (lastRun - first) / 1e6, workerCpu / 1e6,
                          processCpu / 1e6);
    }

    /**
     * Waits for the next tick of a grid of {@code r} ns on the clock:
     * Netty's ticks count from its worker's start, which the burst's first
     * newTimeout makes, so its burst starts at a tick; WheelTimer's are on
     * the clock, so its burst waits for one, and each timer's deadlines
     * fall at the same place in its ticks.
     */
    private static void startAtATick(long r) {
        long tick = Math.floorDiv(System.nanoTime(), r) * r + r;
        for (long now = System.nanoTime(); now < tick; now = System.nanoTime()) {
            LockSupport.parkNanos(tick - now);
        }
    }

    /** The process's CPU time in ns, every thread's (the JIT's and the GC's too). */
    private static long processCpuNanos() {
        try {
            String s = Files.readString(Path.of("/proc/self/stat"));
            String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
            // utime and stime, fields 14 and 15, in clock ticks of 10 ms.
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** When a timer's tick runs a task due at a time: its rounding, without the work. */
    private interface Grid {
        long tickAfter(long deadline);
    }

    /** WheelTimer's: ticks of one resolution on the clock (the engine's ceil(D / R)). */
    private record WheelGrid(WheelTimer timer) implements Grid {
        @Override
        public long tickAfter(long deadline) {
            long r = timer.resolutionNanos();
            return Math.floorDiv(deadline + r - 1, r) * r;
        }
    }

    /**
     * Netty's: ticks counted from its worker's start (a private field, read
     * here for the benchmark alone); a timeout due in tick k runs when tick
     * k ends.
     */
    private static final class NettyGrid implements Grid {
        private final long startTime;
        private final long tick;

        NettyGrid(HashedWheelTimer timer) throws ReflectiveOperationException {
            Field f = HashedWheelTimer.class.getDeclaredField("startTime");
            f.setAccessible(true);
            startTime = f.getLong(timer);
            tick = TimeUnit.MILLISECONDS.toNanos(COLD_TICK_MS);
        }

        @Override
        public long tickAfter(long deadline) {
            return startTime + ((deadline - startTime) / tick + 1) * tick;
        }
    }

    private static String ratio(double wheel, double other) {
        if (other <= 0 || wheel < 0) {
            return "-";
        }
        return String.format(Locale.ROOT, "%.2f", wheel / other);
    }

    private static void printTable(List<Result> r, Cold cold, Sizes sizes) {
        Result w = r.get(0);
        Result h100 = r.get(1);
        Result h1 = r.get(2);
        System.out.println();
        System.out.println("=== java bench: medians; ratio = WheelTimer / HashedWheelTimer");
        System.out.println("| measurement | WheelTimer | HashedWheelTimer 100 ms | HashedWheelTimer"
                           + " 1 ms | ratio to 100 ms | ratio to 1 ms |");
        System.out.println("| --- | --- | --- | --- | --- | --- |");
        row("newTimeout + cancel, ns (caller's wall time)", w.churnNs, h100.churnNs, h1.churnNs);
        row("newTimeout + cancel, ns of CPU (caller and worker)", w.churnCpuNs, h100.churnCpuNs,
            h1.churnCpuNs);
        row("the same, the worker's share", w.churnWorkerCpuNs, h100.churnWorkerCpuNs,
            h1.churnWorkerCpuNs);
        row("per expired task, ns (wall, first run to last)", w.expiryNs, h100.expiryNs,
            h1.expiryNs);
        row("the same, ns of the worker's CPU, first run to last", w.expiryRunCpuNs,
            h100.expiryRunCpuNs, h1.expiryRunCpuNs);
        row("per expired task, ns of the worker's CPU, from handing it over", w.expiryCpuNs,
            h100.expiryCpuNs, h1.expiryCpuNs);
        System.out.printf(Locale.ROOT, "| worker wake-ups/s, 100 K pending an hour away | %.1f |"
                          + " %.1f | %.1f | | |%n", w.wakeups, h100.wakeups, h1.wakeups);
        StringBuilder b = new StringBuilder("| lateness p50 / p99 / max, us |");
        for (Result x : r) {
            b.append(String.format(Locale.ROOT, " %.0f / %.0f / %.0f |", x.lateUs[0], x.lateUs[1],
                                   x.lateUs[2]));
        }
        b.append(" ").append(ratio(w.lateUs[1], h100.lateUs[1])).append(" (p99) | ")
                .append(ratio(w.lateUs[1], h1.lateUs[1])).append(" (p99) |");
        System.out.println(b);
        System.out.printf(Locale.ROOT, "| cold JVM, Netty's testExecutionOnTime (200 ms tick, 100 K"
                          + " tasks): median lateness, ms | %.1f | %.1f | | %s | |%n",
                          cold.lateMs[0], cold.lateMs[1], ratio(cold.lateMs[0], cold.lateMs[1]));
        System.out.printf(Locale.ROOT, "| the same, median time after its tick, ms | %.1f | %.1f |"
                          + " | %s | |%n", cold.afterTickMs[0], cold.afterTickMs[1],
                          ratio(cold.afterTickMs[0], cold.afterTickMs[1]));
        System.out.printf(Locale.ROOT, "| the same, CPU time of the worker / of the process, ms |"
                          + " %.1f / %.0f | %.1f / %.0f | | %s / %s | |%n", cold.workerCpuMs[0],
                          cold.processCpuMs[0], cold.workerCpuMs[1], cold.processCpuMs[1],
                          ratio(cold.workerCpuMs[0], cold.workerCpuMs[1]),
                          ratio(cold.processCpuMs[0], cold.processCpuMs[1]));
        if (sizes != null) {
            System.out.printf(Locale.ROOT, "| bytes per timeout (heap histogram) | %d | %d | %d |"
                              + " %s | |%n", sizes.wheel, sizes.netty, sizes.netty,
                              ratio(sizes.wheel, sizes.netty));
        }
        System.out.println("=== end");
        System.out.println();
        System.out.println("=== java bench: issue 27's targets, WheelTimer / HashedWheelTimer 100 ms, on "
                           + Machine.cpuModel());
        target("newTimeout + cancel (wall)", w.churnNs, h100.churnNs, 0.9);
        target("newTimeout + cancel (CPU, caller and worker)", w.churnCpuNs, h100.churnCpuNs, 0.9);
        target("per expired task (wall)", w.expiryNs, h100.expiryNs, 0.9);
        target("cold 100 K tasks, median lateness", cold.lateMs[0], cold.lateMs[1], 1.0);
        if (sizes != null) {
            System.out.printf(Locale.ROOT, "bytes per timeout: %d (at most 48: %s)%n", sizes.wheel,
                              sizes.wheel <= 48 ? "met" : "not met");
        }
        System.out.printf(Locale.ROOT, "idle wake-ups per second: %.1f (0: %s)%n", w.wakeups,
                          w.wakeups == 0 ? "met" : "not met");
        System.out.println("=== end");
    }

    private static void target(String what, double wheel, double netty, double at) {
        double x = wheel / netty;
        System.out.printf(Locale.ROOT, "%s: %.2f (target at most %.1f: %s)%n", what, x, at,
                          x <= at ? "met" : "not met");
    }

    private static void row(String what, double wheel, double h100, double h1) {
        System.out.printf(Locale.ROOT, "| %s | %.0f | %.0f | %.0f | %s | %s |%n", what, wheel, h100,
                          h1, ratio(wheel, h100), ratio(wheel, h1));
    }

    /**
     * The hand-over: WheelTimer's lock-free queue against a lock around the
     * context with a submit per add (LockedContext), callers' ns per
     * newTimeout + cancel, from one thread and from four.
     */
    private void handOver() throws Exception {
        System.out.println();
        System.out.println("=== java bench: hand-over to the worker, ns per add + cancel");
        System.out.println("| callers | queue (WheelTimer) | lock + submit per add |");
        System.out.println("| --- | --- | --- |");
        for (int threads : new int[] {1, 4}) {
            double stacks = median(() -> {
                WheelTimer t = new WheelTimer();
                try {
                    int per = churnOps / threads;
                    parallel(threads, per * (long) threads, () -> plainChurn(t, per));
                    return parallel(threads, per * (long) threads, () -> plainChurn(t, per));
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
            System.out.printf(Locale.ROOT, "| %d | %.0f | %.0f (%.2fx) |%n", threads, stacks, locked,
                              locked / stacks);
        }
        System.out.println("=== end");
    }

    private static double plainChurn(Timer t, int n) {
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

    /**
     * Bytes per timeout object, WheelTimer's and Netty's, from the heap's
     * class histogram with 10 000 of each pending: exact, as the JVM lays
     * them out. Needs jdk.management (the host's JDK and the VM's runtime
     * have it; a runtime without it prints no size).
     */
    private record Sizes(long wheel, long netty) {
        static Sizes measure() {
            if (ModuleLayer.boot().findModule("jdk.management").isEmpty()) {
                return null;
            }
            WheelTimer w = new WheelTimer();
            HashedWheelTimer h = new HashedWheelTimer();
            try {
                Timeout wheel = null;
                Timeout netty = null;
                for (int i = 0; i < 10_000; i++) {
                    wheel = w.newTimeout(NOP, 1, TimeUnit.HOURS);
                    netty = h.newTimeout(NOP, 1, TimeUnit.HOURS);
                }
                // The classes newTimeout() makes (WheelTimeout is abstract).
                String histogram = ClassHistogram.read();
                return new Sizes(ClassHistogram.bytesPerInstance(histogram, wheel.getClass().getName()),
                                 ClassHistogram.bytesPerInstance(histogram, netty.getClass().getName()));
            } finally {
                w.stop();
                h.stop();
            }
        }
    }
}
