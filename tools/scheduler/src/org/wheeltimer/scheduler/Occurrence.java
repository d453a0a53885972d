// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Occurrence.java - one scheduled time of one job, armed in the wheel
 */
package org.wheeltimer.scheduler;

import io.netty.util.Timeout;
import io.netty.util.TimerTask;

/**
 * A job's occurrence held by this node: the wheel's task for it. When the
 * wheel fires it, it only notes the time and hands itself to the
 * {@link Runner}, through the {@link Agenda}: the wheel's thread never
 * waits for the database.
 */
final class Occurrence implements TimerTask {
    final Job job;
    final long dueUs;
    /** The generation of the lease it was armed under: it fires under that one only. */
    final long generation;
    private final Agenda agenda;
    /** The wheel's timeout; written under the agenda's lock for this job. */
    Timeout timeout;
    /** When the wheel fired it, on this node's clock (0 until then). */
    volatile long firedUs;
    /**
     * How many times a runner found its key held by another transaction;
     * only runners use it, each in turn (the queue orders them).
     */
    int busyTries;

    Occurrence(Agenda agenda, Job job, long dueUs, long generation) {
        this.agenda = agenda;
        this.job = job;
        this.dueUs = dueUs;
        this.generation = generation;
    }

    @Override
    public void run(Timeout t) {
        agenda.fired(this);
    }

    @Override
    public String toString() {
        return "job " + job.id() + " v" + job.version() + " at " + Micros.toInstant(dueUs);
    }
}
