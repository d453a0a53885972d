// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * ThreadCpu.java - the CPU time of this process's threads, one by one and
 * by kind, as the kernel's scheduler counts it
 */
package org.wheeltimer.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU time in ns from /proc/self/task/TID/schedstat (which needs
 * CONFIG_SCHED_INFO): exact, where /proc/self/stat counts ticks of 10 ms,
 * and in a guest under QEMU's icount a count of instructions. A thread that
 * ends between two snapshots takes its time with it.
 */
final class ThreadCpu {
    /** What a thread does, told by its name (the kernel's comm, 15 characters at most). */
    enum Kind {
        /** The benchmark's callers: threads named with {@link #CALLER_PREFIX}. */
        CALLERS,
        /** Every other: the timers' and executors' own threads, the JVM's idle ones. */
        OTHER,
        /** The collector's threads, and HotSpot's VM thread (where the serial collector runs). */
        COLLECTOR,
        /** The JIT's compiler threads. */
        COMPILER
    }

    /** The name's start that makes a thread one of {@link Kind#CALLERS}. */
    static final String CALLER_PREFIX = "xb-caller-";

    private ThreadCpu() {
    }

    /** A thread's CPU time in ns; -1 if it has ended, or without CONFIG_SCHED_INFO. */
    static long of(int tid) {
        return read(Path.of("/proc/self/task/" + tid));
    }

    private static long read(Path task) {
        try {
            String s = Files.readString(task.resolve("schedstat"));
            return Long.parseLong(s.substring(0, s.indexOf(' ')));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static Kind kind(String comm) {
        if (comm.startsWith(CALLER_PREFIX)) {
            return Kind.CALLERS;
        }
        if (comm.equals("VM Thread") || comm.startsWith("GC Thread") || comm.startsWith("G1 ")) {
            return Kind.COLLECTOR;
        }
        if (comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre")) {
            return Kind.COMPILER;
        }
        return Kind.OTHER;
    }

    /** Every live thread's kind and CPU time, by its kernel id. */
    static Map<Integer, long[]> snapshot() {
        Map<Integer, long[]> m = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc/self/task"))) {
            for (Path t : tasks) {
                String comm;
                try {
                    comm = Files.readString(t.resolve("comm")).trim();
                } catch (IOException gone) {
                    continue;
                }
                long ns = read(t);
                if (ns >= 0) {
                    m.put(Integer.parseInt(t.getFileName().toString()),
                          new long[] {kind(comm).ordinal(), ns});
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return m;
    }

    /** The CPU time each kind of thread spent from {@code before} to {@code after}, by {@link Kind#ordinal()}. */
    static long[] between(Map<Integer, long[]> before, Map<Integer, long[]> after) {
        long[] ns = new long[Kind.values().length];
        for (Map.Entry<Integer, long[]> e : after.entrySet()) {
            long[] was = before.get(e.getKey());
            long[] is = e.getValue();
            ns[(int) is[0]] += is[1] - (was != null ? was[1] : 0);
        }
        return ns;
    }
}
