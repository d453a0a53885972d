// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Renewer.java - renews the node's lease, on a thread that does nothing else
 */
package org.wheeltimer.scheduler;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Renews the lease every {@code renewEvery}, on its own thread and
 * connection, so that a long load on the control thread (a node taking
 * over a hundred thousand jobs) never lets the lease lapse. After each
 * renewal the control thread reads the ring again; a renewal the database
 * refuses (the lease lapsed or was superseded) makes it fence the node.
 * A renewal that fails is retried with back-off; if none succeeds before
 * the node's own count of the lease runs out, the control thread fences.
 */
final class Renewer implements Runnable {
    private static final System.Logger LOG = System.getLogger(Renewer.class.getName());

    private final Settings settings;
    private final Database db;
    private final Lease lease;
    private final Scheduler.Stats stats;
    private final Control control;
    private final Thread thread;
    private volatile boolean stopping;

    Renewer(Settings settings, Database db, Lease lease, Scheduler.Stats stats, Control control) {
        this.settings = settings;
        this.db = db;
        this.lease = lease;
        this.stats = stats;
        this.control = control;
        this.thread = new Thread(this, "wt-lease-" + settings.name());
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    void stop() throws InterruptedException {
        stopping = true;
        thread.interrupt();
        thread.join();
    }

    @Override
    public void run() {
        Backoff backoff = new Backoff(settings.retryMaxMillis());
        long next = System.nanoTime();
        while (!stopping) {
            long wait = next - System.nanoTime();
            if (wait > 0) {
                try {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                } catch (InterruptedException e) {
                    return;
                }
            }
            long generation = lease.generation();
            if (generation == 0) {
                next = System.nanoTime() + settings.renewNanos() / 10;   // not joined yet, or fenced
                continue;
            }
            long sent = System.nanoTime();
            try (Connection c = db.connection()) {
                if (Store.renew(c, settings.name(), generation, settings.leaseMillis())) {
                    lease.renewed(generation, sent);
                    control.membersChanged();
                } else {
                    control.leaseLost(generation, "the database refused to renew it");
                }
                backoff.reset();
                next = sent + settings.renewNanos();
            } catch (SQLException e) {
                stats.retries.increment();
                LOG.log(System.Logger.Level.WARNING, () -> settings.name() + ": renewing the lease: "
                        + e.getMessage() + " (retrying)");
                if (!backoff.sleepAfter(e)) {
                    return;
                }
                next = System.nanoTime();
            }
        }
    }
}
