// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Scheduler.java - one node of the cluster scheduler: its settings, its
 * parts, start and stop
 */
package org.wheeltimer.scheduler;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

import org.wheeltimer.WheelTimer;

/**
 * A node of a cluster that runs durable jobs kept in PostgreSQL
 * ({@code wt_job}), each occurrence once ({@code wt_run}), on whichever
 * nodes are alive ({@code wt_node}). Each node owns the jobs that
 * consistent hashing gives it ({@link Ring}), holds those due within a
 * window in a {@link WheelTimer}, and fires each at its time with one
 * insert and no lock: see {@code tools/scheduler/README.md} for the design.
 *
 * <pre>{@code
 * Scheduler node = Scheduler.builder("node-1")
 *         .database("jdbc:postgresql://db/app", "app", password)
 *         .handler("invoice", run -> charge(run.connection(), run.payload()))
 *         .build();
 * node.start();
 * ...
 * node.stop();
 * }</pre>
 *
 * Every node of a cluster needs the same handlers; {@link Jobs} adds,
 * changes and cancels jobs from any node or client.
 */
public final class Scheduler {
    private static final System.Logger LOG = System.getLogger(Scheduler.class.getName());

    private final Settings settings;

    /*
     * Parts. Each is given what it uses, never the node itself: a part
     * made in this constructor must not see a node that is half made.
     * The pool is final for the same reason: it is made here (it opens no
     * connection until start()'s threads ask), and the threads that use
     * it, started after it, see it whole.
     */
    private final Lease lease;
    private final Stats stats;
    private final WheelTimer timer;
    private final Database db;
    /** What the node holds now, published by the control thread. */
    private final AtomicReference<View> view = new AtomicReference<>(View.NONE);
    private final Agenda agenda;
    private final Runner runner;
    private final Control control;
    private final Listener listener;
    private final Renewer renewer;
    private boolean started;

    private Scheduler(Builder b) {
        long renewNanos = b.renewEvery != null ? b.renewEvery.toNanos() : b.lease.toNanos() / 4;
        if (renewNanos >= b.lease.toNanos() / 2) {
            throw new IllegalArgumentException("renewEvery must be below half the lease");
        }
        settings = new Settings(b.name, b.lease.toMillis(), renewNanos, b.window.toNanos(), b.runners, b.maxBatch,
                                Math.max(10, Math.min(1000, TimeUnit.NANOSECONDS.toMillis(renewNanos) / 2)),
                                Map.copyOf(b.handlers));
        lease = new Lease(b.lease.toNanos());
        Stats counters = new Stats();
        stats = counters;
        timer = WheelTimer.builder().resolution(b.resolution.toNanos(), TimeUnit.NANOSECONDS).build();
        db = new Database(settings, Objects.requireNonNull(b.jdbcUrl, "database(...) is required"),
                          b.user, b.password);
        BlockingQueue<Occurrence> fired = new LinkedBlockingQueue<>();
        agenda = new Agenda(timer, view::get, o -> {
            counters.fired.increment();
            fired.add(o);
        });
        control = new Control(settings, db, lease, stats, agenda, view, timer);
        runner = new Runner(settings, db, lease, stats, agenda, control, view::get, timer, fired);
        listener = new Listener(settings, db, stats, agenda, control, view::get);
        renewer = new Renewer(settings, db, lease, stats, control);
    }

    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** Creates the scheduler's tables in the connection's database, if missing. */
    public static void installSchema(Connection c) throws SQLException {
        Store.install(c);
    }

    /**
     * Joins the cluster and starts firing. Returns at once: the node
     * registers, and retries with back-off while the database is away.
     */
    public synchronized void start() {
        if (started) {
            throw new IllegalStateException("already started");
        }
        started = true;
        timer.start();
        runner.start(settings.runners());
        listener.start();
        control.start();
        renewer.start();
    }

    /**
     * Leaves the cluster: stops arming, runs what already fired, gives up
     * its slots at once (the other nodes take them over without waiting for
     * the lease to lapse), and closes its timer and connections.
     */
    public synchronized void stop() throws InterruptedException {
        if (!started) {
            return;
        }
        started = false;
        control.stop();
        listener.stop();
        renewer.stop();
        // Nothing is armed any more; what fired still runs, under the lease.
        view.set(view.get().withHorizon(Long.MIN_VALUE));
        agenda.clear();
        runner.stop();
        control.leave();
        timer.stop();
        db.close();
        LOG.log(System.Logger.Level.INFO, () -> settings.name() + ": stopped: " + stats);
    }

    public String name() {
        return settings.name();
    }

    /** This node's counters. */
    public Stats stats() {
        return stats;
    }

    /** The engine the wheel runs on (kernel or in-process). */
    public String engine() {
        return timer.engine().toString();
    }

    /** A node's counters, from its start. */
    public static final class Stats {
        /** Occurrences the wheel fired. */
        public final LongAdder fired = new LongAdder();
        /** Runs this node recorded (its handler ran and committed). */
        public final LongAdder ran = new LongAdder();
        /** Runs recorded with their handler's error. */
        public final LongAdder failed = new LongAdder();
        /** Occurrences whose insert found the run already there, or the job changed or gone. */
        public final LongAdder lost = new LongAdder();
        /** Occurrences not attempted: their lease or slot was no longer this node's. */
        public final LongAdder dropped = new LongAdder();
        /** Occurrences whose key another transaction held, tried again later. */
        public final LongAdder busy = new LongAdder();
        /** Sessions of nodes whose leases had lapsed, ended by this one. */
        public final LongAdder ended = new LongAdder();
        /** Leases lost. */
        public final LongAdder fenced = new LongAdder();
        /** Database calls failed and retried. */
        public final LongAdder retries = new LongAdder();
        /** Malformed rows reported. */
        public final LongAdder malformed = new LongAdder();
        /** Jobs read because a notification named them. */
        public final LongAdder heard = new LongAdder();
        /** Loads of slots from the database. */
        public final LongAdder loads = new LongAdder();

        @Override
        public String toString() {
            return "fired " + fired + " ran " + ran + " failed " + failed + " lost " + lost
                    + " dropped " + dropped + " busy " + busy + " ended " + ended
                    + " fenced " + fenced + " retries " + retries
                    + " malformed " + malformed + " heard " + heard + " loads " + loads;
        }
    }

    /** A node's settings. */
    public static final class Builder {
        private final String name;
        private String jdbcUrl;
        private String user;
        private String password;
        private Duration lease = Duration.ofSeconds(5);
        private Duration renewEvery;
        private Duration window = Duration.ofSeconds(60);
        private Duration resolution = Duration.ofMillis(1);
        private int runners = 2;
        private int maxBatch = 512;
        private final Map<String, JobHandler> handlers = new HashMap<>();

        private Builder(String name) {
            this.name = Objects.requireNonNull(name, "name");
            if (name.isEmpty() || Database.applicationName(name).getBytes(StandardCharsets.UTF_8).length > 63) {
                throw new IllegalArgumentException("a node's name has 1 to 42 bytes (UTF-8), so that its"
                        + " sessions' application_name can name it: '" + name + "'");
            }
        }

        /** The database, as a JDBC URL (jdbc:postgresql://...), with its user and password. */
        public Builder database(String url, String user, String password) {
            this.jdbcUrl = url;
            this.user = user;
            this.password = password;
            return this;
        }

        /**
         * How long the node's lease lasts unrenewed (5 s): a dead node's jobs
         * are taken over this long after its last renewal, at the latest.
         */
        public Builder lease(Duration d) {
            lease = positive(d);
            return this;
        }

        /** How often the lease is renewed and the ring read (a quarter of the lease). */
        public Builder renewEvery(Duration d) {
            renewEvery = positive(d);
            return this;
        }

        /** How far ahead the node holds its jobs in its wheel (60 s); it loads every half of it. */
        public Builder window(Duration d) {
            window = positive(d);
            return this;
        }

        /** The wheel's resolution (1 ms): how late a job may fire beyond its time. */
        public Builder resolution(Duration d) {
            resolution = positive(d);
            return this;
        }

        /** Threads that record runs and call handlers (2); each holds a connection while it does. */
        public Builder runners(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("runners must be at least 1");
            }
            runners = n;
            return this;
        }

        /**
         * The most runs one transaction records (512). Each run holds an
         * advisory lock until its transaction ends, in the server's shared
         * lock table ({@code max_locks_per_transaction} times about
         * {@code max_connections} entries, some 7 800 by default): the
         * nodes' runners times this must stay well within it.
         */
        public Builder maxBatch(int n) {
            if (n < 1) {
                throw new IllegalArgumentException("maxBatch must be at least 1");
            }
            maxBatch = n;
            return this;
        }

        /** What jobs whose {@code handler} column is {@code name} do. */
        public Builder handler(String name, JobHandler h) {
            handlers.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(h, "handler"));
            return this;
        }

        public Scheduler build() {
            return new Scheduler(this);
        }

        private static Duration positive(Duration d) {
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("must be positive: " + d);
            }
            return d;
        }
    }
}
