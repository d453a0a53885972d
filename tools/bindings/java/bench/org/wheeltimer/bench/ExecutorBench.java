// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * ExecutorBench.java - WheelScheduledExecutor against the JDK's
 * ScheduledThreadPoolExecutor, with either removal policy, in one JVM
 */
package org.wheeltimer.bench;

import io.netty.util.Timeout;
import io.netty.util.TimerTask;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

import org.wheeltimer.WheelScheduledExecutor;
import org.wheeltimer.WheelTimer;

/**
 * {@code ExecutorBench [--quick] [--max-pending N] [--rounds N] [--ops N] [--resolution NS]}:
 * each executor, with a pool of one thread, measured the same way in turn,
 * rounds going round the executors so that a slow spell of the machine
 * falls on all of them; medians of the rounds (5; --rounds), after a round
 * that warms the JIT up. Only ratios between executors of one run mean
 * anything. --ops is the operations per measurement of schedule + cancel
 * (1 M), --max-pending leaves out the larger pending counts, --resolution
 * gives WheelScheduledExecutor another resolution than its default.
 *
 * <ul>
 * <li>schedule + cancel: {@code P} request timeouts 30 s away pending (1 K,
 *     100 K, 1 M), shared by 1 or 4 threads; each operation cancels a
 *     random one of the caller's (a response came) and schedules a new one
 *     in its place; wall ns per operation over all threads (on fewer CPUs
 *     than threads, it includes their waiting for each other and the
 *     timer's worker's share), and the process's CPU ns per operation (all
 *     its threads: the callers', the timer's worker's, the collector's),
 *     which a busy machine inflates less (in ticks of 10 ms: a figure
 *     within a few percent only from about a second of CPU, the full 1 M
 *     operations); and that CPU by kind of thread ({@link ThreadCpu}): the
 *     callers, the executor's own threads (the timer's worker, the pool)
 *     and the JVM's idle ones, the collector, the JIT's compilers, exact,
 *     and in instructions under QEMU's icount; a full collection before
 *     each measurement, the window filled; counted from a worker that has
 *     caught up with the filling to one that has caught up with the
 *     operations (20 ms for it before and after: four callers on one CPU
 *     leave it behind). The same on a WheelTimer alone
 *     (newTimeout + cancel): the floor under the executor, what the timer
 *     itself costs.
 * <li>schedule + cancel in a steady stream: 1 and 4 callers, 100 K and
 *     1 M pending, 2 s of the stream before 5 s measured (1 s and 1 s
 *     with --quick), once per executor: the process's CPU ns per
 *     operation. The rows above measure 1 M operations just after a full
 *     collection, before ScheduledThreadPoolExecutor pays the collector
 *     for the cancelled tasks it keeps (each of those rows' operations
 *     leaves one in its queue for 30 s), and whether a window holds a
 *     young collection of either executor depends on the sizes the
 *     collector chose after the window before; here that is paid as it
 *     comes. What neither measures: the heap's pool thread taking each
 *     cancelled task off its queue when it falls due, 30 s later (below).
 *     (Its default policy keeps about 7 M at 1 M pending by the end: 15 s
 *     of the stream ran it out of a 2 GB heap.)
 * <li>the window's cancelled tasks falling due: what a window of schedule
 *     + cancel above leaves its executor to do once it has ended, the
 *     same count of cancelled tasks with the same pending ones, due 2.5 s
 *     after their schedule rather than 30 s so as not to wait; the
 *     process's CPU ns per task from a full collection after their
 *     schedules to the time the last has fallen due (3 rounds at most).
 *     ScheduledThreadPoolExecutor's default policy takes each off its heap
 *     then; WheelScheduledExecutor has dropped most in its callers'
 *     compactions, inside the window, and drops the rest as its worker
 *     releases them. Issue 27's rows of schedule + cancel are given both
 *     ways: the window's CPU alone, as the issue measures it, and with
 *     this added, the whole of what the operations cost.
 * <li>expiry: N tasks with one deadline; ns per task from the first run to
 *     the last. A full collection before it and before the lateness below,
 *     as before schedule + cancel: a young pause over the garbage of the
 *     measurement before (up to 185 ms in this project's VM after a burst)
 *     would fall in the window of whichever executor came next.
 * <li>lateness: 2000 tasks 20 to 220 ms away; how long after its delay each
 *     ran: median, 99th percentile, maximum; the medians of 21 runs (3 with
 *     --quick), the executors taking turns after the rounds, each run on a
 *     new executor. A run's tail is where a stall of the machine falls: in
 *     9 runs of one executor its p99 spread tenfold, and the median of
 *     fewer runs moved with them. The floor is a WheelTimer at the
 *     executor's resolution running each task on its worker: one wake-up
 *     per due task, as the heap's one thread has, where the executor's
 *     due task waits for its timer's worker and then a pool thread.
 * <li>heap retained by 1 M cancelled tasks: 1 M tasks 30 s away, all
 *     cancelled; the heap in use after a collection, less that before.
 * <li>monitoring reads: with the idle tasks pending (below), the CPU ns
 *     of a call to {@code getQueue().size()}, {@code getActiveCount()} and
 *     {@code getTaskCount()}, what a metrics library reads (both
 *     executors are ThreadPoolExecutors; the floor is none).
 * <li>idle wake-ups: 100 K tasks an hour away; context switches per second
 *     of all the executor's threads.
 * </ul>
 */
public final class ExecutorBench {
    private static final AtomicInteger FACTORIES = new AtomicInteger();
    private static final Runnable NOP = () -> { };
    private static final long REQUEST_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** How far ahead the cancelled tasks of {@link #fallingDue} are due. */
    private static final long FALLING_DUE_NANOS = TimeUnit.MILLISECONDS.toNanos(2500);
    /** How long a worker is given to catch up, before and after a churn's window. */
    private static final long SETTLE_MILLIS = 20;
    /** Where the monitoring reads' sum goes, so that the JIT keeps them. */
    private static long readSink;

    private final boolean quick;
    private final int rounds;
    private final int churnOps;
    private final int[] pendings;
    private final int expiryTasks;
    private final int latenessTasks;
    private final int latenessRuns;
    private final int retainedTasks;
    private final int idleTasks;
    private final int idleSeconds;
    private final int steadyWarmSeconds;
    private final int steadySeconds;

    private ExecutorBench(boolean quick, int maxPending, int rounds, int ops) {
        this.quick = quick;
        this.rounds = rounds > 0 ? rounds : quick ? 1 : 5;
        churnOps = ops > 0 ? ops : quick ? 20_000 : 1_000_000;
        pendings = Arrays.stream(new int[] {1_000, 100_000, 1_000_000})
                .filter(p -> p <= maxPending).toArray();
        expiryTasks = quick ? 10_000 : 100_000;
        latenessTasks = quick ? 200 : 2000;
        latenessRuns = quick ? 3 : 21;
        retainedTasks = Math.min(maxPending, quick ? 100_000 : 1_000_000);
        idleTasks = quick ? 10_000 : 100_000;
        idleSeconds = quick ? 1 : 5;
        steadyWarmSeconds = quick ? 1 : 2;
        steadySeconds = quick ? 1 : 5;
    }

    /** Threads with one name prefix, found in /proc by it. */
    private static final class Named implements ThreadFactory {
        final String prefix = "xb" + FACTORIES.incrementAndGet() + "-";
        private final AtomicInteger n = new AtomicInteger();

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        }

        /** Voluntary and involuntary context switches of every thread of ours. */
        long contextSwitches() {
            long sum = 0;
            try (var tasks = Files.list(Path.of("/proc/self/task"))) {
                for (Path p : (Iterable<Path>) tasks::iterator) {
                    if (comm(p).startsWith(prefix)) {
                        sum += switches(p);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return sum;
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

    private static long switches(Path task) {
        long n = 0;
        try {
            for (String line : Files.readAllLines(task.resolve("status"))) {
                if (line.startsWith("voluntary_ctxt_switches:")
                        || line.startsWith("nonvoluntary_ctxt_switches:")) {
                    n += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        } catch (NoSuchFileException gone) {
            return 0;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return n;
    }

    private record Config(String name, Function<ThreadFactory, ScheduledExecutorService> make) {
    }

    public static void main(String[] args) throws Exception {
        List<String> a = Arrays.asList(args);
        int resolution = option(a, "--resolution", 0);
        new ExecutorBench(a.contains("--quick"), option(a, "--max-pending", 1_000_000),
                          option(a, "--rounds", 0), option(a, "--ops", 0)).run(resolution);
    }

    private static int option(List<String> args, String name, int otherwise) {
        int i = args.indexOf(name);
        return i >= 0 ? Integer.parseInt(args.get(i + 1)) : otherwise;
    }

    private void run(int resolution) throws Exception {
        List<Config> configs = List.of(
                new Config("WheelScheduledExecutor", f -> resolution > 0
                        ? WheelScheduledExecutor.builder().threadFactory(f)
                                .resolution(resolution, TimeUnit.NANOSECONDS).build()
                        : new WheelScheduledExecutor(1, f)),
                new Config("STPE", f -> new ScheduledThreadPoolExecutor(1, f)),
                new Config("STPE, removeOnCancel", f -> {
                    ScheduledThreadPoolExecutor s = new ScheduledThreadPoolExecutor(1, f);
                    s.setRemoveOnCancelPolicy(true);
                    return s;
                }));
        int n = configs.size();
        ScheduledExecutorService first = configs.get(0).make.apply(new Named());
        floorResolution = ((WheelScheduledExecutor) first).resolutionNanos();
        close(first);
        System.out.println(Machine.describe("executor bench" + (quick ? " (quick)" : "")) + ", heap "
                           + Runtime.getRuntime().maxMemory() / (1 << 20) + " MiB"
                           + ", WheelScheduledExecutor's resolution " + floorResolution + " ns"
                           + (resolution > 0 ? " (--resolution)" : " (its default)"));
        System.out.println("# warming up");
        for (Config c : configs) {
            with(c, e -> churn(of(e), 1_000, 1, churnOps / 4, new double[1]));
            with(c, e -> churn(of(e), 1_000, 4, churnOps / 4, new double[1]));
            with(c, e -> expiry(e, expiryTasks / 10));
            with(c, e -> lateness(e, latenessTasks / 10)[0]);
        }
        timerChurn(1_000, 1, churnOps / 4, new double[1]);
        timerLateness(latenessTasks / 10);
        int[] threads = {1, 4};
        // Index n: WheelTimer alone, for the schedule + cancel rows.
        double[][][][] churn = new double[n + 1][pendings.length][threads.length][rounds];
        double[][][][] churnCpu = new double[n + 1][pendings.length][threads.length][rounds];
        // CPU ns by kind of thread (ThreadCpu.Kind), each round.
        int kinds = ThreadCpu.Kind.values().length;
        double[][][][][] churnByKind = new double[n + 1][pendings.length][threads.length][kinds][rounds];
        double[][] expiry = new double[n][rounds];
        // Index n: WheelTimer alone, each task run on its worker.
        double[][][] late = new double[n + 1][3][latenessRuns];
        for (int r = 0; r < rounds; r++) {
            System.out.println("# round " + (r + 1) + " of " + rounds);
            for (int p = 0; p < pendings.length; p++) {
                for (int t = 0; t < threads.length; t++) {
                    for (int i = 0; i < n; i++) {
                        int pending = pendings[p];
                        int th = threads[t];
                        double[] cpu = new double[1 + kinds];
                        churn[i][p][t][r] = with(configs.get(i), e -> churn(of(e), pending, th, churnOps, cpu));
                        churnCpu[i][p][t][r] = cpu[0];
                        fileByKind(churnByKind[i][p][t], r, cpu);
                    }
                    double[] cpu = new double[1 + kinds];
                    churn[n][p][t][r] = timerChurn(pendings[p], threads[t], churnOps, cpu);
                    churnCpu[n][p][t][r] = cpu[0];
                    fileByKind(churnByKind[n][p][t], r, cpu);
                }
            }
            for (int i = 0; i < n; i++) {
                expiry[i][r] = with(configs.get(i), e -> expiry(e, expiryTasks));
            }
        }
        System.out.println("# lateness, " + latenessRuns + " runs");
        for (int r = 0; r < latenessRuns; r++) {
            for (int i = 0; i < n; i++) {
                int k = r;
                double[][] l = late[i];
                with(configs.get(i), e -> {
                    file(l, k, lateness(e, latenessTasks));
                    return 0;
                });
            }
            file(late[n], r, timerLateness(latenessTasks));
        }
        int fallingRounds = Math.min(rounds, 3);
        System.out.println("# cancelled tasks falling due, " + fallingRounds + " rounds");
        double[][][] falling = new double[n][pendings.length][fallingRounds];
        for (int r = 0; r < fallingRounds; r++) {
            for (int p = 0; p < pendings.length; p++) {
                for (int i = 0; i < n; i++) {
                    int pending = pendings[p];
                    falling[i][p][r] = with(configs.get(i), e -> fallingDue(e, pending, churnOps));
                }
            }
        }
        int[] steadyPendings = Arrays.stream(pendings).filter(p -> p >= 100_000).toArray();
        double[][][] steady = new double[steadyPendings.length][threads.length][n];
        for (int p = 0; p < steadyPendings.length; p++) {
            for (int t = 0; t < threads.length; t++) {
                for (int i = 0; i < n; i++) {
                    int pending = steadyPendings[p];
                    int th = threads[t];
                    steady[p][t][i] = with(configs.get(i), e -> steady(of(e), pending, th));
                }
            }
        }
        double[] retained = new double[n];
        double[] wakeups = new double[n];
        double[][] reads = new double[n][];
        for (int i = 0; i < n; i++) {
            retained[i] = with(configs.get(i), e -> retained(e, retainedTasks));
            int k = i;
            with(configs.get(i), e -> {
                reads[k] = monitoringReads((ThreadPoolExecutor) e);
                return 0;
            });
            Named f = new Named();
            ScheduledExecutorService e = configs.get(i).make.apply(f);
            try {
                wakeups[i] = idleWakeups(e, f);
            } finally {
                close(e);
            }
        }

        System.out.println();
        System.out.println("=== executor bench: (x) = ScheduledThreadPoolExecutor / WheelScheduledExecutor");
        StringBuilder head = new StringBuilder("| measurement |");
        StringBuilder rule = new StringBuilder("| --- |");
        for (Config c : configs) {
            head.append(' ').append(c.name).append(" |");
            rule.append(" --- |");
        }
        head.append(" WheelTimer alone (the floor) |");
        rule.append(" --- |");
        System.out.println(head);
        System.out.println(rule);
        List<String> targets = new ArrayList<>();
        List<String> wholeTargets = new ArrayList<>();
        for (int p = 0; p < pendings.length; p++) {
            double[] f = new double[n];
            for (int i = 0; i < n; i++) {
                f[i] = median(falling[i][p]);
            }
            row(String.format(Locale.ROOT, "the window's %s cancelled tasks falling due, %s pending, CPU ns"
                              + " per task", count(churnOps), count(pendings[p])), f, "%.0f");
            for (int t = 0; t < threads.length; t++) {
                double[] v = new double[n + 1];
                double[] c = new double[n + 1];
                for (int i = 0; i <= n; i++) {
                    v[i] = median(churn[i][p][t]);
                    c[i] = median(churnCpu[i][p][t]);
                }
                String what = String.format(Locale.ROOT, "schedule + cancel, %s pending, %d thread%s",
                                            count(pendings[p]), threads[t], threads[t] > 1 ? "s" : "");
                row(what + ", wall ns", v, "%.0f");
                row(what + ", CPU ns", c, "%.0f");
                StringBuilder split = new StringBuilder("| " + what + ", CPU ns by thread: callers"
                                                        + " / the executor's and others / collector"
                                                        + " / compiler |");
                for (int i = 0; i <= n; i++) {
                    String sep = " ";
                    for (int k = 0; k < kinds; k++) {
                        split.append(sep).append(String.format(Locale.ROOT, "%.0f",
                                                               median(churnByKind[i][p][t][k])));
                        sep = " / ";
                    }
                    split.append(" |");
                }
                System.out.println(split);
                targets.add(target(what + ", CPU", c[0], c[1], 1.0));
                wholeTargets.add(target(what + ", CPU with its cancelled tasks falling due",
                                        c[0] + f[0], c[1] + f[1], 1.0));
            }
        }
        for (int p = 0; p < steadyPendings.length; p++) {
            for (int t = 0; t < threads.length; t++) {
                row(String.format(Locale.ROOT, "schedule + cancel, steady stream (%d s, then %d s measured),"
                                  + " %s pending, %d thread%s, CPU ns", steadyWarmSeconds, steadySeconds,
                                  count(steadyPendings[p]), threads[t], threads[t] > 1 ? "s" : ""),
                    steady[p][t], "%.0f");
            }
        }
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            v[i] = median(expiry[i]);
        }
        row("per expired task, " + count(expiryTasks) + " due together, ns", v, "%.0f");
        targets.addAll(wholeTargets);
        targets.add(target("per expired task", v[0], v[1], 1.0));
        targets.add(target("lateness p99", median(late[0][1]), median(late[1][1]), 2.0));
        StringBuilder b = new StringBuilder("| lateness p50 / p99 / max, us (" + latenessTasks
                                            + " tasks, 20 to 220 ms) |");
        for (int i = 0; i <= n; i++) {
            b.append(String.format(Locale.ROOT, " %.0f / %.0f / %.0f |", median(late[i][0]),
                                   median(late[i][1]), median(late[i][2])));
        }
        System.out.println(b);
        for (int i = 0; i <= n; i++) {
            double[] p99 = late[i][1].clone();
            Arrays.sort(p99);
            System.out.println(String.format(Locale.ROOT, "# lateness p99 of each run, sorted, us, %s:",
                                             i < n ? configs.get(i).name : "WheelTimer alone")
                               + Arrays.stream(p99).mapToObj(x -> String.format(Locale.ROOT, " %.0f", x))
                                       .collect(Collectors.joining()));
        }
        row("heap retained by " + count(retainedTasks) + " cancelled tasks, MiB", retained, "%.1f");
        row("wake-ups per second, " + count(idleTasks) + " tasks an hour away", wakeups, "%.1f");
        b = new StringBuilder("| monitoring read, CPU ns: queue size / active count / task count ("
                              + count(idleTasks) + " pending) |");
        for (int i = 0; i < n; i++) {
            b.append(String.format(Locale.ROOT, " %.0f / %.0f / %.0f |", reads[i][0], reads[i][1], reads[i][2]));
        }
        System.out.println(b.append(" — |"));
        System.out.println("=== end");
        System.out.println();
        System.out.println("=== executor bench: issue 27's targets, WheelScheduledExecutor / "
                           + "ScheduledThreadPoolExecutor (default policy), on " + Machine.cpuModel());
        targets.forEach(System.out::println);
        System.out.println("=== end");
        System.out.println(Machine.loadAtEnd());
    }

    /** A target's line: ours / theirs, against the most it may be. */
    private static String target(String what, double ours, double theirs, double at) {
        double x = ours / theirs;
        return String.format(Locale.ROOT, "%s: %.2f (target at most %.1f: %s)", what, x, at,
                             x <= at ? "met" : "not met");
    }

    private static String count(int n) {
        return n >= 1_000_000 ? n / 1_000_000 + " M" : n >= 1000 ? n / 1000 + " K" : Integer.toString(n);
    }

    /** One row: the executors' values, ratios to the first; "—" where the floor has none. */
    private static void row(String what, double[] v, String format) {
        StringBuilder b = new StringBuilder("| ").append(what).append(" |");
        for (int i = 0; i < v.length; i++) {
            b.append(' ').append(String.format(Locale.ROOT, format, v[i]));
            if (i > 0) {
                b.append(ratio(v[i], v[0]));
            }
            b.append(" |");
        }
        if (v.length == 3) {
            b.append(" — |");
        }
        System.out.println(b);
    }

    private static String ratio(double other, double ours) {
        if (ours == 0) {
            return other == 0 ? "" : " (ours: 0)";
        }
        double x = other / ours;
        return String.format(Locale.ROOT, x >= 10 ? " (%.0fx)" : " (%.2fx)", x);
    }

    private interface Measure {
        double on(ScheduledExecutorService e) throws Exception;
    }

    private static double with(Config c, Measure m) throws Exception {
        ScheduledExecutorService e = c.make.apply(new Named());
        try {
            return m.on(e);
        } finally {
            close(e);
        }
    }

    private static void close(ScheduledExecutorService e) throws InterruptedException {
        e.shutdownNow();
        if (!e.awaitTermination(600, TimeUnit.SECONDS)) {
            throw new IllegalStateException("did not terminate: " + e);
        }
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    /** What schedule + cancel is measured on: an executor, or the timer alone. */
    private interface Churner {
        Object add();

        void cancel(Object handle);
    }

    private static Churner of(ScheduledExecutorService e) {
        return new Churner() {
            @Override
            public Object add() {
                return e.schedule(NOP, REQUEST_TIMEOUT_NANOS, TimeUnit.NANOSECONDS);
            }

            @Override
            public void cancel(Object handle) {
                ((ScheduledFuture<?>) handle).cancel(false);
            }
        };
    }

    private static final TimerTask TIMER_NOP = t -> { };

    private static Churner of(WheelTimer t) {
        return new Churner() {
            @Override
            public Object add() {
                return t.newTimeout(TIMER_NOP, REQUEST_TIMEOUT_NANOS, TimeUnit.NANOSECONDS);
            }

            @Override
            public void cancel(Object handle) {
                ((Timeout) handle).cancel();
            }
        };
    }

    /** The resolution of WheelScheduledExecutor as measured, which its floor is measured at. */
    private long floorResolution = WheelTimer.DEFAULT_RESOLUTION_NANOS;

    /** The timer alone, as WheelScheduledExecutor opens it: the floor of its schedule + cancel. */
    private double timerChurn(int pending, int threads, int ops, double[] cpu)
            throws InterruptedException {
        WheelTimer t = floorTimer();
        try {
            return churn(of(t), pending, threads, ops, cpu);
        } finally {
            t.stop();
        }
    }

    /**
     * {@link #lateness} on a WheelTimer alone at the executor's resolution,
     * each task run on the timer's worker: a due task waits for one wake-up,
     * where the executor's waits for its timer's worker and then a pool
     * thread.
     */
    private double[] timerLateness(int n) throws InterruptedException {
        WheelTimer t = floorTimer();
        try {
            System.gc();
            return Bench.lateness(t, n);
        } finally {
            t.stop();
        }
    }

    /** The floor: a WheelTimer at the executor's resolution. */
    private WheelTimer floorTimer() {
        return WheelTimer.builder().threadFactory(new Named())
                .resolution(floorResolution, TimeUnit.NANOSECONDS).build();
    }

    /** Files one run's lateness {@code q} (median, p99, maximum) as run {@code r} of {@code late}. */
    private static void file(double[][] late, int r, double[] q) {
        for (int j = 0; j < q.length; j++) {
            late[j][r] = q[j];
        }
    }

    /** Files a churn's CPU by kind of thread ({@code cpu[1 + k]}) as round {@code r} of {@code byKind[k]}. */
    private static void fileByKind(double[][] byKind, int r, double[] cpu) {
        for (int k = 0; k < byKind.length; k++) {
            byKind[k][r] = cpu[1 + k];
        }
    }

    /**
     * Wall ns per cancel + schedule, {@code pending} in flight over
     * {@code threads} callers, each of which cancels a random one of its own;
     * {@code cpu[0]}: the process's CPU ns per operation (every thread's: the
     * callers', the timer's, the collector's), counted until the timer's
     * worker has caught up with them; {@code cpu[1 + k]}: that of
     * the threads of {@link ThreadCpu.Kind} {@code k}, from their schedstat
     * (exact; instructions under icount).
     */
    private static double churn(Churner e, int pending, int threads, int ops, double[] cpu)
            throws InterruptedException {
        int opsPer = ops / threads;
        Callers callers = new Callers(e, pending / threads, threads, window -> {
            replace(e, window, opsPer);
            return opsPer;
        });
        callers.awaitFilled();
        // Neither the garbage of the measurement before (another executor's
        // cancelled tasks) nor the copying of this one's window out of the
        // young generation falls in this measurement: the pending tasks
        // start old, as request timeouts of a running server are.
        System.gc();
        // The CPU counted is the operations' whole: a worker's backlog is
        // counted in the window whose callers pushed it, here and at its
        // end (four callers on one CPU leave their worker behind).
        Thread.sleep(SETTLE_MILLIS);
        Map<Integer, long[]> threadsBefore = ThreadCpu.snapshot();
        long cpuStart = processCpuNanos();
        long start = System.nanoTime();
        callers.go();
        callers.awaitMeasured();
        long wall = System.nanoTime() - start;
        Thread.sleep(SETTLE_MILLIS);
        double n = (long) opsPer * threads;
        cpu[0] = (processCpuNanos() - cpuStart) / n;
        long[] byKind = ThreadCpu.between(threadsBefore, ThreadCpu.snapshot());
        for (int k = 0; k < byKind.length && 1 + k < cpu.length; k++) {
            cpu[1 + k] = byKind[k] / n;
        }
        callers.finish();
        return wall / n;
    }

    /**
     * The process's CPU ns per cancel + schedule from {@code threads}
     * callers with {@code pending} in flight between them, each cancelling
     * a random one of its own: measured for {@link #steadySeconds} after
     * {@link #steadyWarmSeconds} of the same stream, from the time the
     * warm-up ends for all of them, each counting the operations of the
     * batches it starts after that time.
     */
    private double steady(Churner e, int pending, int threads) throws InterruptedException {
        long[] ends = new long[2];
        Callers callers = new Callers(e, pending / threads, threads, window -> {
            stream(e, window, ends[0]);
            return stream(e, window, ends[1]);
        });
        callers.awaitFilled();
        long warmEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(steadyWarmSeconds);
        ends[0] = warmEnd;
        ends[1] = warmEnd + TimeUnit.SECONDS.toNanos(steadySeconds);
        // go() publishes the ends.
        callers.go();
        TimeUnit.NANOSECONDS.sleep(Math.max(0, warmEnd - System.nanoTime()));
        long cpuStart = processCpuNanos();
        callers.awaitMeasured();
        double cpu = processCpuNanos() - cpuStart;
        return cpu / callers.finish();
    }

    /**
     * The callers of a schedule + cancel measurement, one thread each: each
     * fills a window of its own with {@code per} tasks, waits for
     * {@link #go}, runs its part (which returns its operations), and once
     * {@link #finish} releases it cancels its window, after the
     * measurement.
     */
    private static final class Callers {
        private final CountDownLatch filled;
        private final CountDownLatch go = new CountDownLatch(1);
        private final CountDownLatch measured;
        private final CountDownLatch release = new CountDownLatch(1);
        private final long[] ops;
        private final List<Thread> threads = new ArrayList<>();

        Callers(Churner e, int per, int count, ToLongFunction<Object[]> part) {
            filled = new CountDownLatch(count);
            measured = new CountDownLatch(count);
            ops = new long[count];
            for (int t = 0; t < count; t++) {
                int k = t;
                threads.add(new Thread(() -> {
                    Object[] window = new Object[per];
                    for (int i = 0; i < per; i++) {
                        window[i] = e.add();
                    }
                    filled.countDown();
                    try {
                        go.await();
                        ops[k] = part.applyAsLong(window);
                        measured.countDown();
                        release.await();
                    } catch (InterruptedException x) {
                        return;
                    }
                    for (Object f : window) {
                        e.cancel(f);
                    }
                }, ThreadCpu.CALLER_PREFIX + t));
            }
            threads.forEach(Thread::start);
        }

        void awaitFilled() throws InterruptedException {
            filled.await();
        }

        void go() {
            go.countDown();
        }

        void awaitMeasured() throws InterruptedException {
            measured.await();
        }

        /** Lets the callers cancel their windows and end; returns their operations. */
        long finish() throws InterruptedException {
            release.countDown();
            for (Thread t : threads) {
                t.join();
            }
            return Arrays.stream(ops).sum();
        }
    }

    /** {@link #replace} in thousands until {@code end}; returns how many operations. */
    private static long stream(Churner e, Object[] window, long end) {
        long ops = 0;
        while (System.nanoTime() < end) {
            replace(e, window, 1000);
            ops += 1000;
        }
        return ops;
    }

    /** {@code ops} times, cancels a random one of {@code window} and adds one in its place. */
    private static void replace(Churner e, Object[] window, int ops) {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        for (int i = 0; i < ops; i++) {
            int k = rnd.nextInt(window.length);
            e.cancel(window[k]);
            window[k] = e.add();
        }
    }

    /**
     * The process's CPU ns per task as {@code ops} cancelled tasks fall
     * due, with {@code pending} others 30 s away: what a churn's window
     * leaves to be done after it (its {@code ops} cancelled tasks, due
     * when the window's {@code pending} still are not). They are due
     * {@link #FALLING_DUE_NANOS} after their schedule, not 30 s, so that
     * the measure does not wait the 30 s; both delays are seconds ahead,
     * which WheelScheduledExecutor treats alike (its far hold). Counted
     * from a full collection after the schedules and cancels to the time
     * the last has fallen due, the executor's queue back to the pending
     * tasks, and 20 ms more.
     */
    private static double fallingDue(ScheduledExecutorService e, int pending, int ops)
            throws InterruptedException {
        for (int i = 0; i < pending; i++) {
            e.schedule(NOP, REQUEST_TIMEOUT_NANOS, TimeUnit.NANOSECONDS);
        }
        for (int i = 0; i < ops; i++) {
            e.schedule(NOP, FALLING_DUE_NANOS, TimeUnit.NANOSECONDS).cancel(false);
        }
        long lastDue = System.nanoTime() + FALLING_DUE_NANOS;
        System.gc();
        Thread.sleep(SETTLE_MILLIS);
        long cpuStart = processCpuNanos();
        TimeUnit.NANOSECONDS.sleep(Math.max(0, lastDue - System.nanoTime()));
        BlockingQueue<Runnable> queue = ((ThreadPoolExecutor) e).getQueue();
        for (int waited = 0; queue.size() > pending; waited++) {
            if (waited == 60_000) {
                throw new IllegalStateException("falling due: the cancelled tasks stay queued");
            }
            Thread.sleep(1);
        }
        Thread.sleep(SETTLE_MILLIS);
        return (processCpuNanos() - cpuStart) / (double) ops;
    }

    /** ns per task from the first run to the last, all due together. */
    private static double expiry(ScheduledExecutorService e, int n) throws InterruptedException {
        System.gc();
        long[] first = new long[1];
        long[] last = new long[1];
        CountDownLatch done = new CountDownLatch(n);
        Runnable task = () -> {
            long now = System.nanoTime();
            if (first[0] == 0) {
                first[0] = now;
            }
            last[0] = now;
            done.countDown();
        };
        for (long lead = 200; ; lead *= 2) {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(lead);
            List<ScheduledFuture<?>> made = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                made.add(e.schedule(task, deadline - System.nanoTime(), TimeUnit.NANOSECONDS));
            }
            if (System.nanoTime() < deadline - TimeUnit.MILLISECONDS.toNanos(10)) {
                break;
            }
            made.forEach(f -> f.cancel(false));
        }
        if (!done.await(600, TimeUnit.SECONDS)) {
            throw new IllegalStateException("expiry: tasks lost");
        }
        return (last[0] - first[0]) / (double) (n - 1);
    }

    /** Lateness after the delay in us: median, 99th percentile, maximum. */
    private static double[] lateness(ScheduledExecutorService e, int n) throws InterruptedException {
        System.gc();
        return Bench.lateness(n, (task, delay) -> e.schedule(task, delay, TimeUnit.NANOSECONDS));
    }

    /**
     * This process's CPU time, user and system, in ns: the clock ticks of
     * /proc/self/stat, 100 a second (USER_HZ); 1 M operations make enough
     * of them.
     */
    private static long processCpuNanos() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * 10_000_000L;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long heapInUse() throws InterruptedException {
        Runtime rt = Runtime.getRuntime();
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(50);
            best = Math.min(best, rt.totalMemory() - rt.freeMemory());
        }
        return best;
    }

    /**
     * MiB of heap still in use once {@code n} scheduled tasks have all been
     * cancelled (and 200 ms have passed), against before they were made:
     * the cancelled tasks kept, and the capacity the executor's structures
     * grew to and kept (ScheduledThreadPoolExecutor's heap array,
     * WheelTimer's worker's slot arrays: 4 bytes a task each).
     */
    private static double retained(ScheduledExecutorService e, int n) throws InterruptedException {
        // The executor's threads and first structures exist before the baseline.
        e.schedule(NOP, 1, TimeUnit.MILLISECONDS).cancel(false);
        long before = heapInUse();
        cancelAll(e, n);
        Thread.sleep(200);
        return Math.max(0, heapInUse() - before) / (double) (1 << 20);
    }

    /** {@code n} tasks scheduled, then cancelled; nothing of them stays here. */
    private static void cancelAll(ScheduledExecutorService e, int n) {
        ScheduledFuture<?>[] made = new ScheduledFuture<?>[n];
        for (int i = 0; i < n; i++) {
            made[i] = e.schedule(NOP, REQUEST_TIMEOUT_NANOS, TimeUnit.NANOSECONDS);
        }
        for (ScheduledFuture<?> f : made) {
            f.cancel(false);
        }
    }

    /**
     * CPU ns of this thread per call of each of a metrics library's reads,
     * with the idle tasks pending and the pool's thread started.
     */
    private double[] monitoringReads(ThreadPoolExecutor e) throws Exception {
        ScheduledExecutorService s = (ScheduledExecutorService) e;
        for (int i = 0; i < idleTasks; i++) {
            s.schedule(NOP, 1, TimeUnit.HOURS);
        }
        s.submit(NOP).get();
        List<ToLongFunction<ThreadPoolExecutor>> reads = List.of(
                x -> x.getQueue().size(), ThreadPoolExecutor::getActiveCount, ThreadPoolExecutor::getTaskCount);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        int calls = quick ? 100_000 : 2_000_000;
        double[] ns = new double[reads.size()];
        long sum = 0;
        for (int r = 0; r < ns.length; r++) {
            ToLongFunction<ThreadPoolExecutor> read = reads.get(r);
            for (int i = 0; i < calls; i++) {
                sum += read.applyAsLong(e);
            }
            long start = mx.getCurrentThreadCpuTime();
            for (int i = 0; i < calls; i++) {
                sum += read.applyAsLong(e);
            }
            ns[r] = (mx.getCurrentThreadCpuTime() - start) / (double) calls;
        }
        readSink += sum;
        return ns;
    }

    /** Context switches per second of the executor's threads, with many tasks pending and none due. */
    private double idleWakeups(ScheduledExecutorService e, Named threads) throws InterruptedException {
        for (int i = 0; i < idleTasks; i++) {
            e.schedule(NOP, 1, TimeUnit.HOURS);
        }
        CountDownLatch ran = new CountDownLatch(1);
        e.schedule(ran::countDown, 1, TimeUnit.MILLISECONDS);
        ran.await();
        Thread.sleep(500);
        long before = threads.contextSwitches();
        long start = System.nanoTime();
        Thread.sleep(TimeUnit.SECONDS.toMillis(idleSeconds));
        long n = threads.contextSwitches() - before;
        return n / ((System.nanoTime() - start) / 1e9);
    }
}
