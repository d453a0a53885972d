// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Listener.java - hears every change of a job or of the ring as it commits
 */
package org.wheeltimer.scheduler;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Supplier;

import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * A node's listener: one connection of its own (a pool would take it back)
 * that LISTENs on {@code wt_job} and {@code wt_node}. A job's id arrives
 * when a client adds, changes or cancels it; if the job is on one of this
 * node's slots, the listener reads it and offers it to the agenda at once
 * (a cancelled job is no longer there, and is forgotten). A node's name
 * arrives when it joins, rejoins or leaves: the control thread reads the
 * ring again.
 *
 * <p>Notifications sent while the listener is not connected are lost: each
 * time it has (re)connected and LISTENs again, it has the control thread
 * load everything again, which sees what it missed.
 */
final class Listener implements Runnable {
    private static final System.Logger LOG = System.getLogger(Listener.class.getName());
    /** The most jobs read in one statement. */
    private static final int READ_BATCH = 1000;

    private final Settings settings;
    private final Database db;
    private final Scheduler.Stats stats;
    private final Agenda agenda;
    private final Control control;
    private final Supplier<View> view;
    private final Thread thread;
    private volatile boolean stopping;

    Listener(Settings settings, Database db, Scheduler.Stats stats, Agenda agenda, Control control,
             Supplier<View> view) {
        this.settings = settings;
        this.db = db;
        this.stats = stats;
        this.agenda = agenda;
        this.control = control;
        this.view = view;
        this.thread = new Thread(this, "wt-listener-" + settings.name());
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    void stop() throws InterruptedException {
        stopping = true;
        thread.join();
    }

    @Override
    public void run() {
        Backoff backoff = new Backoff(settings.retryMaxMillis());
        while (!stopping) {
            try (Connection c = db.listenerConnection()) {
                try (Statement st = c.createStatement()) {
                    st.execute("LISTEN wt_job");
                    st.execute("LISTEN wt_node");
                }
                backoff.reset();
                control.reloadAll();
                control.membersChanged();
                listen(c.unwrap(PGConnection.class));
            } catch (SQLException e) {
                if (!stopping) {
                    stats.retries.increment();
                    LOG.log(System.Logger.Level.WARNING, () -> settings.name() + ": listener: "
                            + e.getMessage() + " (reconnecting)");
                    backoff.sleep();
                }
            }
        }
    }

    private void listen(PGConnection pg) throws SQLException {
        while (!stopping) {
            PGNotification[] notes = pg.getNotifications(250);
            if (notes == null || notes.length == 0) {
                continue;
            }
            View now = view.get();
            Set<Long> ids = new HashSet<>();
            for (PGNotification n : notes) {
                if (n.getName().equals("wt_node")) {
                    control.membersChanged();
                    continue;
                }
                long id;
                try {
                    id = Long.parseLong(n.getParameter());
                } catch (NumberFormatException e) {
                    continue;   // not ours: someone else's NOTIFY on the channel
                }
                if (now.owns(id)) {
                    ids.add(id);
                }
                if (ids.size() == READ_BATCH) {
                    read(ids);
                    ids.clear();
                }
            }
            read(ids);
        }
    }

    /** Reads these jobs and offers them to the agenda; those gone are forgotten. */
    private void read(Set<Long> ids) {
        if (ids.isEmpty()) {
            return;
        }
        try (Connection c = db.connection()) {
            Set<Long> gone = new HashSet<>(ids);
            for (Store.Loaded row : Store.jobs(c, ids)) {
                gone.remove(row.jobId());
                control.apply(row, null);
            }
            gone.forEach(agenda::remove);
            stats.heard.add(ids.size());
        } catch (SQLException e) {
            // The change is in the database: the reload will find it.
            LOG.log(System.Logger.Level.WARNING, () -> settings.name() + ": reading notified jobs: "
                    + e.getMessage() + " (reloading)");
            control.reloadAll();
        }
    }
}
