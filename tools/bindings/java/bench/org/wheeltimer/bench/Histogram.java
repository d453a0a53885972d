// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Histogram.java - the heap's class histogram, as jcmd GC.class_histogram
 * prints it, from within the process
 */
package org.wheeltimer.bench;

import java.lang.management.ManagementFactory;

import javax.management.JMException;
import javax.management.ObjectName;

/**
 * The DiagnosticCommand MBean's {@code gcClassHistogram}: one line per
 * class, "num: #instances #bytes class name". A class of its own, loaded
 * only where the runtime has jdk.management, so that the benchmark runs
 * without it.
 */
final class Histogram {
    private Histogram() {
    }

    static String read() {
        try {
            return (String) ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"),
                    "gcClassHistogram", new Object[] {new String[0]},
                    new String[] {String[].class.getName()});
        } catch (JMException e) {
            throw new IllegalStateException("the class histogram", e);
        }
    }
}
