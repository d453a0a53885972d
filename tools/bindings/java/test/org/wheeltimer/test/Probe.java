// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Probe.java - what the tests wait for and measure: bounded waits, named
 * worker threads, a thread's context switches from /proc
 */
package org.wheeltimer.test;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

/**
 * Waits are bounded by {@link #LIMIT_SECONDS}, far beyond what any of them
 * needs even under emulation: a wait that runs out is a lost wake-up or a
 * lost task, not a slow machine. No test asserts how long anything took.
 */
final class Probe {
    /** How long a test waits for something that must happen. */
    static final long LIMIT_SECONDS = 120;

    private static final AtomicInteger THREADS = new AtomicInteger();

    private Probe() {
    }

    /** Waits for the latch to reach 0. */
    static void await(CountDownLatch latch, String what) {
        try {
            if (!latch.await(LIMIT_SECONDS, TimeUnit.SECONDS)) {
                fail(what + ": not within " + LIMIT_SECONDS + " s (" + latch.getCount() + " left)");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted waiting for " + what);
        }
    }

    /** Polls {@code cond} until it holds. */
    static void eventually(BooleanSupplier cond, String what) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                fail(what + ": not within " + LIMIT_SECONDS + " s");
            }
            sleep(2);
        }
    }

    /**
     * Calls {@code add} (a schedule due in a millisecond or so) about every
     * half millisecond from a thread of its own, until closed: a worker so
     * fed never goes idle, and releases the far adds it holds in its
     * lingering rounds.
     */
    static AutoCloseable keepBusy(Runnable add) {
        AtomicBoolean stop = new AtomicBoolean();
        Thread t = new Thread(() -> {
            while (!stop.get()) {
                add.run();
                LockSupport.parkNanos(500_000);
            }
        }, "keep-busy");
        t.start();
        return () -> {
            stop.set(true);
            t.join();
        };
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted");
        }
    }

    /**
     * A thread factory whose threads have a name unique in the process and
     * short enough (15 characters) to be their kernel name too.
     */
    static final class Named implements ThreadFactory {
        final String name = "wtt-" + THREADS.incrementAndGet();
        private final AtomicInteger made = new AtomicInteger();

        @Override
        public Thread newThread(Runnable r) {
            assertTrue(made.incrementAndGet() == 1, "one worker thread per timer");
            return new Thread(r, name);
        }

        /** The kernel's id of the thread, found by its name. */
        int tid() {
            try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
                return tasks.filter(p -> name.equals(comm(p)))
                        .mapToInt(p -> Integer.parseInt(p.getFileName().toString()))
                        .findFirst().orElseThrow(() -> new AssertionError("no thread " + name));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /** A thread's name, or "" if it ended since it was listed. */
    private static String comm(Path task) {
        try {
            return Files.readString(task.resolve("comm")).trim();
        } catch (NoSuchFileException gone) {
            return "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Voluntary plus involuntary context switches of thread {@code tid} of this process. */
    static long contextSwitches(int tid) {
        long n = 0;
        for (String line : read(Path.of("/proc/self/task/" + tid + "/status")).split("\n")) {
            if (line.startsWith("voluntary_ctxt_switches:")
                    || line.startsWith("nonvoluntary_ctxt_switches:")) {
                n += Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        return n;
    }

    /**
     * Waits until thread {@code tid} sleeps and stays asleep for 100 ms
     * (WheelTimer's worker lingers a millisecond after a round that took
     * new timeouts); returns its context switches then.
     */
    static long settled(int tid) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(LIMIT_SECONDS);
        long last = -1;
        for (;;) {
            long now = contextSwitches(tid);
            if (now == last && state(tid) == 'S') {
                return now;
            }
            if (System.nanoTime() - end > 0) {
                fail("thread " + tid + " never settled asleep");
            }
            last = now;
            sleep(100);
        }
    }

    /** The state letter of thread {@code tid} (R running, S sleeping, ...). */
    static char state(int tid) {
        String stat = read(Path.of("/proc/self/task/" + tid + "/stat"));
        return stat.charAt(stat.lastIndexOf(')') + 2);
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
