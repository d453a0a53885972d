// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Agenda.java - the occurrences a node holds in its wheel: at most one per
 * job, and only ever a newer one in place of another
 */
package org.wheeltimer.scheduler;

import io.netty.util.Timer;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The next occurrence of each job this node owns that is due before its
 * horizon, each armed as one timeout of the {@link Timer} (a
 * {@code WheelTimer}). Four threads offer occurrences: the control thread
 * loading from the database, the listener applying a notified change, the
 * runners after a run, and the wheel's thread re-arming one that fired
 * early by the wall clock. They can bring old news (a load's snapshot
 * taken before a run committed), so each offer is ordered against what is
 * held, under the map's lock for the job: a higher version wins, and
 * within a version a later occurrence (with "no further occurrence" the
 * latest of all); otherwise what is held stays. A finished job is held
 * as such (a tombstone, with no timeout) until the control thread has
 * deleted its row, so that a load whose snapshot was taken before its
 * last run committed cannot arm that run again. Old news that slips
 * through anyway costs a refused insert, never a second run: the
 * database decides (see {@link Runner}).
 *
 * <p>An occurrence stays held after it fired, until its runner settles
 * it. A newer version offered meanwhile replaces it, and is armed at
 * once if it is due: cancelling the fired one's timeout does nothing, so
 * both may then wait in the runner's queue, even in one batch. That is
 * on purpose (the newer version runs without waiting for the older one's
 * refusal); {@link Store#recordRuns} is what gives such a pair one run.
 */
final class Agenda {
    private final Timer timer;
    private final Supplier<View> view;
    private final Consumer<Occurrence> fire;
    private final ConcurrentHashMap<Long, Occurrence> byJob = new ConcurrentHashMap<>();

    Agenda(Timer timer, Supplier<View> view, Consumer<Occurrence> fire) {
        this.timer = timer;
        this.view = view;
        this.fire = fire;
    }

    /**
     * The database says that job's next occurrence is at {@code dueUs}
     * ({@link Job#NONE}: it has none): held from now on if that is newer
     * than what is held, and due before the horizon on a slot this node owns.
     */
    void offer(Job job, long dueUs) {
        byJob.compute(job.id(), (id, held) ->
                held == null || newer(job.version(), dueUs, held) ? replace(held, job, dueUs) : held);
    }

    /**
     * {@code done} has run or lost its race, and the job's next occurrence
     * is {@code dueUs}: it takes {@code done}'s place, or is offered as
     * above if another took it meanwhile.
     */
    void settle(Occurrence done, Job job, long dueUs) {
        byJob.compute(job.id(), (id, held) ->
                held == null || held == done || newer(job.version(), dueUs, held)
                        ? replace(held, job, dueUs) : held);
    }

    /** Job {@code jobId} is gone (cancelled): forget it. */
    void remove(long jobId) {
        byJob.computeIfPresent(jobId, (id, held) -> replace(held, null, Job.NONE));
    }

    /**
     * A runner gave up on {@code o} (its lease lapsed, or it failed):
     * forgotten, so that the next load arms the job again.
     */
    void forget(Occurrence o) {
        byJob.computeIfPresent(o.job.id(), (id, held) -> held == o ? null : held);
    }

    /** The finished job's row is deleted: its tombstone can go. */
    void deleted(Job job) {
        byJob.computeIfPresent(job.id(), (id, held) ->
                held.dueUs == Job.NONE && held.job.version() == job.version() ? null : held);
    }

    /** Forgets the jobs of the slots this node no longer owns. */
    void removeSlots(boolean[] lost) {
        for (Occurrence o : byJob.values()) {
            if (lost[o.job.slot()]) {
                byJob.computeIfPresent(o.job.id(), (id, held) -> held == o ? replace(held, null, Job.NONE) : held);
            }
        }
    }

    /** Forgets everything (the lease is lost). */
    void clear() {
        for (Long id : byJob.keySet()) {
            remove(id);
        }
    }

    int size() {
        return byJob.size();
    }

    /** The wheel's thread: the occurrence is due. */
    void fired(Occurrence o) {
        long now = Micros.now();
        if (now < o.dueUs) {
            // The wheel is never early on its monotonic clock; the wall
            // clock was set back meanwhile. Wait for the rest.
            byJob.computeIfPresent(o.job.id(), (id, held) -> held == o ? replace(held, o.job, o.dueUs) : held);
            return;
        }
        o.firedUs = now;
        fire.accept(o);
    }

    private static boolean newer(long version, long dueUs, Occurrence held) {
        if (version != held.job.version()) {
            return version > held.job.version();
        }
        return order(dueUs) > order(held.dueUs);
    }

    /** "No further occurrence" comes after every occurrence. */
    private static long order(long dueUs) {
        return dueUs == Job.NONE ? Long.MAX_VALUE : dueUs;
    }

    /** Under the job's lock: cancels what is held and arms the new occurrence, if it belongs here. */
    private Occurrence replace(Occurrence held, Job job, long dueUs) {
        if (held != null && held.timeout != null) {
            held.timeout.cancel();
        }
        View v = view.get();
        if (job == null || !v.owns(job.id())) {
            return null;
        }
        if (dueUs == Job.NONE) {
            return new Occurrence(this, job, Job.NONE, v.generation());   // finished: a tombstone
        }
        if (!v.holds(job.id(), dueUs)) {
            return null;
        }
        Occurrence o = new Occurrence(this, job, dueUs, v.generation());
        // Read the wall clock before the wheel reads its own: the
        // deadline can only come out late, never early.
        long delayUs = dueUs - Micros.now();
        o.timeout = timer.newTimeout(o, Math.max(0, delayUs), TimeUnit.MICROSECONDS);
        return o;
    }
}
