// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Control.java - a node's control thread: its lease, the ring, and what
 * it loads into its wheel
 */
package org.wheeltimer.scheduler;

import io.netty.util.Timeout;
import io.netty.util.Timer;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Everything a node does with the database but running jobs, on one
 * thread, so that the view ({@link View}) changes in one place:
 *
 * <ul>
 * <li><b>Lease.</b> Registers the node (a new generation); if the lease is
 *     lost (not renewed in time by the node's own count, or refused by the
 *     database), forgets everything in the wheel and registers anew. (The
 *     {@link Renewer} renews it, on a thread of its own.)
 * <li><b>Ring.</b> Reads the live nodes after each renewal, when one joins or
 *     leaves (a notification), and when a peer's lease is due to lapse (a
 *     timeout in the wheel at that time); ends the sessions of a peer whose
 *     lease lapsed; when the ring changes, publishes the new view, forgets
 *     the slots it lost and loads those it gained.
 * <li><b>Window.</b> Every half window, moves the horizon a window ahead
 *     of now and loads its jobs due before it; deletes its finished jobs,
 *     and forgets nodes dead for ten leases.
 * </ul>
 *
 * A failed step is retried with back-off; what it was to do stays to do.
 */
final class Control implements Runnable {
    private static final System.Logger LOG = System.getLogger(Control.class.getName());
    /** The most finished jobs deleted in one statement. */
    private static final int FINISHED_BATCH = 10_000;

    private final Settings settings;
    private final Database db;
    private final Lease lease;
    private final Scheduler.Stats stats;
    private final Agenda agenda;
    /** The node's view, which this thread alone publishes. */
    private final AtomicReference<View> view;
    private final Timer timer;
    private final Thread thread;
    private final ConcurrentLinkedQueue<Job> finished = new ConcurrentLinkedQueue<>();
    /** The (job, version) last reported malformed, so that each is reported once. */
    private final Map<Long, Long> reported = new HashMap<>();

    private volatile boolean stopping;
    /* Work asked for by other threads; cleared when done. */
    private volatile boolean membersWanted;
    private volatile boolean reloadWanted;
    private volatile String leaseLostReason;
    private volatile long leaseLostGeneration;

    private long nextWindowNanos;
    private Timeout watch;
    /** The other nodes live at the last read of the ring. */
    private Set<String> peers = Set.of();
    /** Nodes whose sessions this one was refused the right to end, each reported once. */
    private final Set<String> refused = new HashSet<>();

    Control(Settings settings, Database db, Lease lease, Scheduler.Stats stats, Agenda agenda,
            AtomicReference<View> view, Timer timer) {
        this.settings = settings;
        this.db = db;
        this.lease = lease;
        this.stats = stats;
        this.agenda = agenda;
        this.view = view;
        this.timer = timer;
        this.thread = new Thread(this, "wt-control-" + settings.name());
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    void stop() throws InterruptedException {
        stopping = true;
        wake();
        thread.join();
        if (watch != null) {
            watch.cancel();
        }
    }

    // ---- asked for by other threads ----

    /** A node joined or left, or a peer's lease is due to lapse. */
    void membersChanged() {
        membersWanted = true;
        wake();
    }

    /** Notifications may have been missed: load everything again. */
    void reloadAll() {
        reloadWanted = true;
        wake();
    }

    /** The database refused this node's lease of generation {@code generation}. */
    void leaseLost(long generation, String reason) {
        synchronized (this) {
            leaseLostGeneration = generation;
            leaseLostReason = reason;
        }
        wake();
    }

    /** A job has no further occurrence: to be deleted. */
    void finished(Job job) {
        finished.add(job);
    }

    /**
     * A job read from the database (by a load, the listener or a runner):
     * its next occurrence offered to the agenda, in place of {@code done}
     * if that is the one a runner just ran or lost.
     */
    void apply(Store.Loaded row, Occurrence done) {
        String why = row.malformed();
        if (why == null && !settings.handlers().containsKey(row.job().handler())) {
            why = "no handler '" + row.job().handler() + "' on this node";
        }
        if (why != null) {
            report(row.jobId(), row.version(), why);
            agenda.remove(row.jobId());
            return;
        }
        Job job = row.job();
        long next = job.next(row.lastScheduledUs(), row.lastFiredUs());
        if (done != null) {
            agenda.settle(done, job, next);
        } else {
            agenda.offer(job, next);
        }
        if (next == Job.NONE) {
            finished(job);
        }
    }

    private void report(long jobId, long version, String why) {
        synchronized (reported) {
            Long before = reported.put(jobId, version);
            if (before != null && before == version) {
                return;
            }
        }
        stats.malformed.increment();
        LOG.log(System.Logger.Level.WARNING, () -> settings.name() + ": malformed job " + jobId
                + " (version " + version + ") skipped: " + why);
    }

    private synchronized void wake() {
        notifyAll();
    }

    // ---- the thread ----

    @Override
    public void run() {
        Backoff backoff = new Backoff(settings.retryMaxMillis());
        while (!stopping) {
            // Before asking for a connection, which may not come: a node
            // that cannot renew its lease forgets its jobs when it lapses.
            String lost;
            synchronized (this) {
                lost = leaseLostGeneration == lease.generation() ? leaseLostReason : null;
                leaseLostReason = null;
            }
            if (lease.generation() != 0 && (lost != null || !lease.valid())) {
                fence(lost != null ? lost : "the lease ran out before it could be renewed");
            }
            try (Connection c = db.connection()) {
                step(c);
                backoff.reset();
            } catch (SQLException e) {
                stats.retries.increment();
                LOG.log(System.Logger.Level.WARNING, () -> settings.name() + ": " + e.getMessage()
                        + " (retrying)");
                backoff.sleepAfter(e);
                continue;
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.ERROR, settings.name() + ": control step failed (retrying)", e);
                backoff.sleep();
                continue;
            }
            sleepUntilWork();
        }
    }

    private void step(Connection c) throws SQLException {
        if (lease.generation() == 0) {
            join(c);
        }
        long now = System.nanoTime();
        if (membersWanted) {
            membersWanted = false;
            try {
                members(c);
            } catch (SQLException e) {
                membersWanted = true;
                throw e;
            }
        }
        if (now - nextWindowNanos >= 0) {
            window(c);
        }
        if (reloadWanted) {
            reloadWanted = false;
            try {
                load(c, View.difference(view.get().slots(), new boolean[Job.SLOTS]));
            } catch (SQLException e) {
                reloadWanted = true;
                throw e;
            }
        }
    }

    /** Forgets everything: the lease is lost. */
    private void fence(String reason) {
        LOG.log(System.Logger.Level.WARNING, () -> settings.name() + ": lease (generation "
                + lease.generation() + ") lost: " + reason + "; forgetting "
                + agenda.size() + " armed jobs and joining again");
        stats.fenced.increment();
        // Its peers' sessions are no longer its to judge: after a restart
        // of the database all leases lapse, and a peer's new sessions are
        // its way back.
        peers = Set.of();
        lease.revoke();
        view.set(View.NONE);
        agenda.clear();
    }

    /** A new lease (generation), then the ring and the jobs. */
    private void join(Connection c) throws SQLException {
        long sent = System.nanoTime();
        long generation = Store.register(c, settings.name(), settings.leaseMillis());
        lease.granted(generation, sent);
        nextWindowNanos = sent + settings.windowNanos() / 2;
        LOG.log(System.Logger.Level.INFO, () -> settings.name() + ": joined, generation " + generation);
        view.set(new View(generation, new boolean[Job.SLOTS], Micros.now() + settings.windowNanos() / 1000));
        membersWanted = true;   // the ring, then its slots' jobs: next in step()
    }

    /** Reads the live nodes; a new ring moves slots; watches the next lease to lapse. */
    private void members(Connection c) throws SQLException {
        List<Store.Member> live = Store.members(c);
        long generation = lease.generation();
        List<String> names = new ArrayList<>();
        long soonest = Long.MAX_VALUE;
        boolean self = false;
        for (Store.Member m : live) {
            names.add(m.node());
            if (m.node().equals(settings.name())) {
                self = m.generation() == generation;
            } else {
                soonest = Math.min(soonest, m.remainingMs());
            }
        }
        if (!self) {
            fence("the database no longer lists it as alive");
            return;
        }
        Set<String> now = new HashSet<>(names);
        now.remove(settings.name());
        List<String> gone = new ArrayList<>(peers);
        gone.removeAll(now);
        if (!gone.isEmpty()) {
            endSessions(c, gone);
        }
        peers = now;
        if (watch != null) {
            watch.cancel();
        }
        if (soonest != Long.MAX_VALUE) {
            watch = timer.newTimeout(t -> membersChanged(), soonest + 1, TimeUnit.MILLISECONDS);
        }
        Ring ring = Ring.of(names);
        View old = view.get();
        boolean[] slots = ring.slotsOf(settings.name());
        if (Arrays.equals(slots, old.slots())) {
            return;
        }
        view.set(new View(generation, slots, old.horizonUs()));
        int[] lost = View.difference(old.slots(), slots);
        int[] gained = View.difference(slots, old.slots());
        boolean[] lostMask = new boolean[Job.SLOTS];
        for (int s : lost) {
            lostMask[s] = true;
        }
        agenda.removeSlots(lostMask);
        long start = System.nanoTime();
        int jobs = load(c, gained);
        long ms = (System.nanoTime() - start) / 1_000_000;
        LOG.log(System.Logger.Level.INFO, () -> settings.name() + ": ring " + ring.nodes() + ": "
                + gained.length + " slots gained (" + jobs + " jobs loaded in " + ms + " ms), "
                + lost.length + " lost");
    }

    /**
     * Ends the sessions of the peers that left the ring, those whose lease
     * lapsed (not those that left cleanly): one stopped or cut off inside a
     * run's transaction holds that run's key, which no other node can then
     * record until the transaction ends. Done before their slots are
     * loaded here, so that their runs are taken over as a dead node's.
     * Every survivor does it; the first finds the sessions, the others none.
     */
    private void endSessions(Connection c, List<String> gone) throws SQLException {
        try {
            int ended = Store.endSessions(c, gone, gone.stream().map(Database::applicationName).toList());
            if (ended > 0) {
                stats.ended.add(ended);
                LOG.log(System.Logger.Level.INFO, () -> settings.name() + ": ended " + ended
                        + " sessions of " + gone + ", whose leases lapsed");
            }
        } catch (SQLException e) {
            if (!"42501".equals(e.getSQLState())) {
                throw e;
            }
            if (refused.addAll(gone)) {
                LOG.log(System.Logger.Level.WARNING, () -> settings.name() + ": may not end the sessions of "
                        + gone + ", whose leases lapsed (" + e.getMessage() + "): grant pg_signal_backend"
                        + " to the nodes' role, or run them all under one role; until then a node stopped"
                        + " inside a transaction holds its runs until it wakes");
            }
        }
    }

    /** Moves the horizon a window ahead and loads what it brings; forgets finished jobs. */
    private void window(Connection c) throws SQLException {
        long now = System.nanoTime();
        view.set(view.get().withHorizon(Micros.now() + settings.windowNanos() / 1000));
        load(c, View.difference(view.get().slots(), new boolean[Job.SLOTS]));
        nextWindowNanos = now + settings.windowNanos() / 2;
        deleteFinished(c);
        Store.forgetDeadNodes(c, 10 * settings.leaseMillis());
    }

    /** Loads the jobs of these slots due before the horizon; how many. */
    private int load(Connection c, int[] slots) throws SQLException {
        if (slots.length == 0) {
            return 0;
        }
        View v = view.get();
        List<Store.Loaded> rows = Store.jobsOfSlots(c, slots, v.horizonUs());
        for (Store.Loaded row : rows) {
            apply(row, null);
        }
        stats.loads.increment();
        return rows.size();
    }

    /** Deletes the finished jobs, in transactions of up to FINISHED_BATCH. */
    private void deleteFinished(Connection c) throws SQLException {
        for (;;) {
            List<Job> jobs = new ArrayList<>();
            for (Job j; jobs.size() < FINISHED_BATCH && (j = finished.poll()) != null; ) {
                jobs.add(j);
            }
            if (jobs.isEmpty()) {
                return;
            }
            try {
                c.setAutoCommit(false);
                Store.deleteFinished(c, jobs);
                c.commit();
                jobs.forEach(agenda::deleted);
            } catch (SQLException e) {
                finished.addAll(jobs);
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    private synchronized void sleepUntilWork() {
        if (stopping || membersWanted || reloadWanted || leaseLostReason != null) {
            return;
        }
        long now = System.nanoTime();
        long until = nextWindowNanos;
        if (lease.generation() != 0 && lease.deadlineNanos() - until < 0) {
            until = lease.deadlineNanos();
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(until - now) + 1;
        if (ms > 0) {
            try {
                wait(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                stopping = true;
            }
        }
    }

    /** On stop: leaves the ring, so that the others take over at once. */
    void leave() {
        long generation = lease.generation();
        if (generation == 0) {
            return;
        }
        try (Connection c = db.connection()) {
            Store.leave(c, settings.name(), generation);
        } catch (SQLException e) {
            LOG.log(System.Logger.Level.WARNING, () -> settings.name()
                    + ": could not leave the ring (the lease will lapse): " + e.getMessage());
        }
        lease.revoke();
    }
}
