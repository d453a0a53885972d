// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * ClassHistogram.java - the heap's class histogram, as jcmd
 * GC.class_histogram prints it, from within the process: the bytes an
 * object takes, for the tests and the benchmark alike
 */
package org.wheeltimer.measure;

import java.lang.management.ManagementFactory;

import javax.management.JMException;
import javax.management.ObjectName;

/**
 * The DiagnosticCommand MBean's {@code gcClassHistogram}: one line per
 * class, "num: #instances #bytes class name", of the objects alive after
 * a full collection. A class of its own, loaded only where the runtime
 * has jdk.management, so that what uses it runs without it. Compiled
 * into both the tests' jar and the benchmark's.
 */
public final class ClassHistogram {
    private ClassHistogram() {
    }

    /** The histogram now. @throws IllegalStateException if the MBean refuses */
    public static String read() {
        try {
            return (String) ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"),
                    "gcClassHistogram", new Object[] {new String[0]},
                    new String[] {String[].class.getName()});
        } catch (JMException e) {
            throw new IllegalStateException("the class histogram", e);
        }
    }

    /**
     * The bytes an instance of {@code className} takes, from {@code
     * histogram}: exact, as the JVM lays it out.
     *
     * @throws IllegalStateException if no instance of it is alive
     */
    public static long bytesPerInstance(String histogram, String className) {
        for (String line : histogram.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 4 && f[3].equals(className)) {
                return Long.parseLong(f[2]) / Long.parseLong(f[1]);
            }
        }
        throw new IllegalStateException("no " + className + " alive in the class histogram");
    }
}
