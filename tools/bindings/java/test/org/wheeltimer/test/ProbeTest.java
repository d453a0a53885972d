// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * ProbeTest.java - the tests' own instruments, checked: a test that reads a
 * thread's context switches must find that thread whatever else runs
 */
package org.wheeltimer.test;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class ProbeTest {
    /**
     * Threads ending beside it (the JVM's compiler threads, an earlier
     * test's workers) neither hide a named thread nor give another's id.
     * Each round starts 100 threads, then a named one, and looks the named
     * one up while the 100 end: the endings fall among the ids listed
     * before it.
     */
    @Test
    void aNamedThreadIsFoundWhileThreadsBeforeItEnd() throws InterruptedException {
        for (int round = 0; round < 50; round++) {
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> brief = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                Thread t = new Thread(() -> Probe.await(go, "the round's start"));
                t.start();
                brief.add(t);
            }
            Probe.Named named = new Probe.Named();
            CountDownLatch end = new CountDownLatch(1);
            Thread thread = named.newThread(() -> Probe.await(end, "the round's end"));
            thread.start();
            go.countDown();
            try {
                do {
                    assertEquals(named.name, Probe.comm(named.tid()));
                } while (brief.stream().anyMatch(Thread::isAlive));
            } finally {
                end.countDown();
                thread.join();
            }
        }
    }
}
