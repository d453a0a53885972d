// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Probe.java - what the tests wait for and measure: bounded waits, named
 * worker threads, a thread's context switches from /proc, the size of an
 * object as the JVM lays it out
 */
package org.wheeltimer.test;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;

import org.wheeltimer.measure.ClassHistogram;

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
     * short enough (15 characters) to be their kernel name too. Each thread
     * reads its own kernel id as it starts.
     */
    static final class Named implements ThreadFactory {
        final String name = "wtt-" + THREADS.incrementAndGet();
        private final AtomicInteger made = new AtomicInteger();
        private final CompletableFuture<Integer> tid = new CompletableFuture<>();

        @Override
        public Thread newThread(Runnable r) {
            assertTrue(made.incrementAndGet() == 1, "one worker thread per timer");
            return new Thread(() -> {
                tid.complete(ownTid());
                r.run();
            }, name);
        }

        /**
         * The kernel's id of the thread, once it started. It is not looked
         * up by name in /proc/self/task: a thread that ends during the walk
         * makes its comm unreadable (ESRCH).
         */
        int tid() {
            try {
                return tid.get(LIMIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for thread " + name, e);
            } catch (ExecutionException | TimeoutException e) {
                throw new AssertionError("thread " + name + " never started", e);
            }
        }
    }

    /** The kernel's id of the calling thread: /proc/thread-self is "PID/task/TID". */
    static int ownTid() {
        try {
            Path self = Files.readSymbolicLink(Path.of("/proc/thread-self"));
            return Integer.parseInt(self.getFileName().toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The kernel name (comm) of thread {@code tid} of this process. */
    static String comm(int tid) {
        return read(Path.of("/proc/self/task/" + tid + "/comm")).trim();
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

    /**
     * The bytes an instance of {@code cls} takes, from the heap's class
     * histogram ({@link ClassHistogram}): exact, as the JVM lays it out.
     * Some must be alive. Skips the test unless
     * references and class pointers are compressed, the layout that the
     * sizes the binding states are for.
     */
    static long bytesPerInstance(Class<?> cls) {
        try {
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            ObjectName diagnostic = new ObjectName("com.sun.management:type=HotSpotDiagnostic");
            for (String option : new String[] {"UseCompressedOops", "UseCompressedClassPointers"}) {
                CompositeData d = (CompositeData) server.invoke(diagnostic, "getVMOption",
                        new Object[] {option}, new String[] {String.class.getName()});
                assumeTrue("true".equals(d.get("value")), option + " is off");
            }
        } catch (JMException e) {
            throw new AssertionError("the JVM's options", e);
        }
        return ClassHistogram.bytesPerInstance(ClassHistogram.read(), cls.getName());
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
