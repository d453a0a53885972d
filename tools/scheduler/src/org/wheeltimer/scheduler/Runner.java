// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Runner.java - runs what the wheel fired: records each run, calls its
 * handler, commits, arms the next occurrence
 */
package org.wheeltimer.scheduler;

import io.netty.util.Timer;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The runner threads of a node. The wheel's thread queues each occurrence
 * as it fires; a runner takes all that are queued (up to a batch) and, in
 * one transaction: inserts their runs in one statement (the fenced insert
 * of {@link Store#recordRuns}), calls the handler of each run inserted,
 * commits. Then it arms each job's next occurrence. A batch is the
 * occurrences that fired while the previous one was being committed: one
 * at a time when the load is light, more as it grows, so the database
 * sees fewer transactions than firings exactly when it matters.
 *
 * <p>An occurrence whose key another transaction holds (it is inserting
 * the same run, and has not committed) is not waited for: it is queued
 * again a little later, and then runs or is found run.
 *
 * <p>If the database cannot be reached, the runner keeps its batch and
 * tries again with back-off while the lease lasts (the wheel keeps firing
 * into the queue meanwhile); once the lease has lapsed it drops the batch,
 * which the node's reload or another node will run. If a handler throws,
 * the batch is rolled back and its occurrences are run one per
 * transaction, the failing one recorded with its error.
 */
final class Runner {
    private static final System.Logger LOG = System.getLogger(Runner.class.getName());
    private static final Comparator<Occurrence> KEY_ORDER =
            Comparator.comparingLong((Occurrence o) -> o.job.id()).thenComparingLong(o -> o.dueUs);

    private final Settings settings;
    private final Database db;
    private final Lease lease;
    private final Scheduler.Stats stats;
    private final Agenda agenda;
    private final Control control;
    private final Supplier<View> view;
    private final Timer timer;
    /** What the wheel fired, for the runners to take. */
    private final BlockingQueue<Occurrence> queue;
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopping;

    Runner(Settings settings, Database db, Lease lease, Scheduler.Stats stats, Agenda agenda, Control control,
           Supplier<View> view, Timer timer, BlockingQueue<Occurrence> queue) {
        this.settings = settings;
        this.db = db;
        this.lease = lease;
        this.stats = stats;
        this.agenda = agenda;
        this.control = control;
        this.view = view;
        this.timer = timer;
        this.queue = queue;
    }

    void start(int count) {
        for (int i = 0; i < count; i++) {
            Thread t = new Thread(this::loop, "wt-runner-" + settings.name() + "-" + i);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    /** Runs what is queued, then stops the threads. */
    void stop() throws InterruptedException {
        stopping = true;
        for (Thread t : threads) {
            t.join();
        }
    }

    private void loop() {
        while (!stopping || !queue.isEmpty()) {
            Occurrence first;
            try {
                first = queue.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (first == null) {
                continue;
            }
            List<Occurrence> batch = new ArrayList<>();
            batch.add(first);
            queue.drainTo(batch, settings.maxBatch() - 1);
            try {
                run(batch, false);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, settings.name() + ": a runner failed", e);
                batch.forEach(agenda::forget);
            }
        }
    }

    /** Runs a batch; {@code alone}: a batch of one whose handler's failure is recorded. */
    private void run(List<Occurrence> batch, boolean alone) {
        View now = view.get();
        // Armed under an older lease, or on a slot that moved away: the
        // reload, or the new owner, holds them now.
        batch.removeIf(o -> {
            boolean stale = o.generation != now.generation() || !now.owns(o.job.id());
            if (stale) {
                drop(o);
            }
            return stale;
        });
        if (batch.isEmpty()) {
            return;
        }
        batch.sort(KEY_ORDER);
        long generation = now.generation();
        Backoff backoff = new Backoff(settings.retryMaxMillis());
        for (;;) {
            if (!lease.valid(generation)) {
                batch.forEach(this::drop);
                return;
            }
            Store.Recorded recorded;
            boolean oneByOne = false;
            try (Connection c = db.connection()) {
                c.setAutoCommit(false);
                try {
                    recorded = Store.recordRuns(c, settings.name(), generation, batch, null);
                    Exception failure = runHandlers(c, batch, recorded.inserted());
                    if (failure != null) {
                        c.rollback();
                        if (alone) {
                            recorded = Store.recordRuns(c, settings.name(), generation, batch, failure.toString());
                            stats.failed.add(recorded.inserted().size());
                        } else {
                            oneByOne = true;
                        }
                    }
                    c.commit();
                } catch (SQLException e) {
                    rollbackQuietly(c);
                    throw e;
                }
            } catch (SQLException e) {
                stats.retries.increment();
                LOG.log(System.Logger.Level.WARNING, () -> settings.name() + ": recording "
                        + batch.size() + " runs failed, retrying: " + e.getMessage());
                if (!backoff.sleepAfter(e)) {
                    return;
                }
                continue;
            }
            if (oneByOne) {
                // A handler failed: its batch was rolled back, and each run
                // is tried again alone, so that only the failing one fails.
                for (Occurrence o : batch) {
                    run(new ArrayList<>(List.of(o)), true);
                }
                return;
            }
            settle(batch, recorded, generation);
            return;
        }
    }

    /** Calls the handler of each run; the first exception, or null. */
    private Exception runHandlers(Connection c, List<Occurrence> batch, Set<Occurrence> ran) {
        for (Occurrence o : batch) {
            if (!ran.contains(o)) {
                continue;
            }
            JobHandler h = settings.handlers().get(o.job.handler());
            try {
                h.run(new JobRun(o.job.id(), o.job.payload(), Micros.toInstant(o.dueUs),
                                 Micros.toInstant(o.firedUs), settings.name(), c));
            } catch (Exception e) {
                LOG.log(System.Logger.Level.WARNING, () -> settings.name() + ": " + o + " failed: " + e);
                return e;
            }
        }
        return null;
    }

    /**
     * After the commit: each job that ran goes on to its next occurrence;
     * each that another transaction was inserting is tried again later;
     * each that did not run (it ran elsewhere, or changed) is read again.
     */
    private void settle(List<Occurrence> batch, Store.Recorded recorded, long generation) {
        Map<Long, Occurrence> lost = new HashMap<>();
        for (Occurrence o : batch) {
            if (recorded.busy().contains(o)) {
                comeBack(o);
            } else if (recorded.inserted().contains(o)) {
                stats.ran.increment();
                long next = o.job.next(o.dueUs, o.firedUs);
                agenda.settle(o, o.job, next);
                if (next == Job.NONE) {
                    control.finished(o.job);
                }
            } else {
                stats.lost.increment();
                lost.put(o.job.id(), o);
                LOG.log(System.Logger.Level.DEBUG, () -> settings.name() + ": " + o + " not recorded");
            }
        }
        if (lost.isEmpty()) {
            return;
        }
        Backoff backoff = new Backoff(settings.retryMaxMillis());
        while (lease.valid(generation)) {
            try (Connection c = db.connection()) {
                if (!Store.holds(c, settings.name(), generation)) {
                    control.leaseLost(generation, "a run was refused: the lease is no longer this node's");
                    return;
                }
                List<Store.Loaded> rows = Store.jobs(c, lost.keySet());
                for (Store.Loaded row : rows) {
                    Occurrence o = lost.remove(row.jobId());
                    control.apply(row, o);
                }
                lost.values().forEach(agenda::forget);   // the job is gone
                return;
            } catch (SQLException e) {
                stats.retries.increment();
                if (!backoff.sleepAfter(e)) {
                    return;
                }
            }
        }
    }

    /**
     * Another transaction holds the occurrence's key: a node racing for it
     * during a hand-over, or one stopped inside its transaction, whose
     * sessions the others end once its lease lapses (see {@link Control}).
     * Queued again after 10 ms, doubling each time up to the back-off's
     * maximum, rather than waited for: it then runs, or is found run.
     */
    private void comeBack(Occurrence o) {
        stats.busy.increment();
        long ms = Math.min(settings.retryMaxMillis(), 10L << Math.min(o.busyTries++, 16));
        timer.newTimeout(t -> queue.add(o), ms, TimeUnit.MILLISECONDS);
    }

    /** Not run here: forgotten, for the reload or the new owner to run. */
    private void drop(Occurrence o) {
        stats.dropped.increment();
        agenda.forget(o);
    }

    private static void rollbackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // the connection is gone: so is the transaction
        }
    }
}
