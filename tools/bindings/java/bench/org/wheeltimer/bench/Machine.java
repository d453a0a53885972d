// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Machine.java - what a benchmark's figures were measured on: the CPU
 * model, the CPUs, the runtime, and how loaded the machine was
 */
package org.wheeltimer.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The lines a benchmark prints first and last, so that each run names its
 * CPU (the ratios depend on it: a cache line moving between two cores
 * costs more on some than on others) and says how busy the machine was
 * (on a shared machine, other processes come and go).
 */
final class Machine {
    private Machine() {
    }

    /** "# NAME: MODEL, N CPU(s), JVM VERSION, load 1 / 5 / 15 min A / B / C". */
    static String describe(String name) {
        return String.format(Locale.ROOT, "# %s: %s, %d CPU(s), %s %s, load average %s", name,
                             cpuModel(), Runtime.getRuntime().availableProcessors(),
                             System.getProperty("java.vm.name"), System.getProperty("java.version"),
                             load());
    }

    /** "# load average at the end: A / B / C (1, 5, 15 min)". */
    static String loadAtEnd() {
        return "# load average at the end: " + load();
    }

    /**
     * The first "model name" of /proc/cpuinfo with its "cpu family" and
     * "model" (a virtual machine may name only the vendor's line, "AMD
     * EPYC", which several generations share), else the architecture; or,
     * with {@code -Dwheeltimer.bench.icount=true} (a guest under QEMU's
     * {@code -icount shift=0}, whose clock advances one ns per instruction
     * it executes), what every ns of the run then is, and of which
     * architecture.
     */
    static String cpuModel() {
        if (Boolean.getBoolean("wheeltimer.bench.icount")) {
            return "instructions (QEMU icount: each ns below is one instruction of the guest's one "
                   + System.getProperty("os.arch") + " CPU)";
        }
        String name = null;
        String family = null;
        String model = null;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                String value = line.substring(line.indexOf(':') + 1).trim();
                if (line.startsWith("model name") && name == null) {
                    name = value;
                } else if (line.startsWith("cpu family") && family == null) {
                    family = value;
                } else if (line.matches("model\\s*:.*") && model == null) {
                    model = value;
                }
            }
        } catch (IOException | RuntimeException e) {
            // Not Linux, or hidden: the architecture will do.
        }
        if (name == null) {
            return System.getProperty("os.arch");
        }
        return family == null || model == null ? name
                : name + " (family " + family + ", model " + model + ")";
    }

    /** The 1, 5 and 15 minute load averages of /proc/loadavg, "A / B / C (1, 5, 15 min)". */
    static String load() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " / " + f[1] + " / " + f[2] + " (1, 5, 15 min)";
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
