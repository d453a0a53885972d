// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * DbStats.java - what a scheduler asked of the database over an interval:
 * statements, transactions, row locks taken and waited for
 */
package org.wheeltimer.scheduler.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Counters of one database read at the start and at the end of an
 * interval ({@link #read}), and a sampler of lock waits during it
 * ({@link Sampler}). Statements come from pg_stat_statements (top-level
 * statements of the database's clients), transactions and rows from
 * pg_stat_database (flushed by the server about once a second, so good to
 * a second's worth), lock waits from pg_locks every 10 ms: the backends
 * waiting for a row lock that another holds (a wait for the holder's
 * transaction id, or for a tuple lock), and those waiting for any other
 * lock (a relation's extension, when several backends add pages to the
 * same table at once).
 */
final class DbStats {
    /** Statements, those that lock rows (FOR UPDATE / FOR SHARE), transactions, rows written. */
    record Counters(long statements, long lockingStatements, long transactions, long rowsWritten) {
        Counters minus(Counters o) {
            return new Counters(statements - o.statements, lockingStatements - o.lockingStatements,
                                transactions - o.transactions, rowsWritten - o.rowsWritten);
        }
    }

    private DbStats() {
    }

    /** The counters of database {@code db}, read through {@code c} (a connection to any database). */
    static Counters read(Connection c, String db) throws SQLException {
        long statements;
        long locking;
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT coalesce(sum(calls), 0),
                       coalesce(sum(calls) FILTER (WHERE query ~* 'for (update|share)'), 0)
                  FROM pg_stat_statements
                 WHERE dbid = (SELECT oid FROM pg_database WHERE datname = ?)""")) {
            ps.setString(1, db);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                statements = rs.getLong(1);
                locking = rs.getLong(2);
            }
        }
        try (Statement st = c.createStatement()) {
            st.execute("SELECT pg_stat_clear_snapshot()");
        }
        try (PreparedStatement ps = c.prepareStatement("""
                SELECT xact_commit + xact_rollback, tup_inserted + tup_updated + tup_deleted
                  FROM pg_stat_database WHERE datname = ?""")) {
            ps.setString(1, db);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new Counters(statements, locking, rs.getLong(1), rs.getLong(2));
            }
        }
    }

    /** Samples pg_locks every 10 ms on a thread of its own until {@link #close()}. */
    static final class Sampler {
        private final Connection c;
        private final Thread thread;
        private volatile boolean stop;
        private long samples;
        private long withWait;
        private long waiters;
        private long maxWaiters;
        private long otherWaits;

        Sampler(Connection c) {
            this.c = c;
            thread = new Thread(this::run, "lock-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        private void run() {
            try (PreparedStatement ps = c.prepareStatement(
                    """
                    SELECT count(DISTINCT pid) FILTER (WHERE locktype IN ('transactionid', 'tuple')),
                           count(DISTINCT pid) FILTER (WHERE locktype NOT IN ('transactionid', 'tuple'))
                      FROM pg_locks WHERE NOT granted""")) {
                while (!stop) {
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        long n = rs.getLong(1);
                        synchronized (this) {
                            samples++;
                            waiters += n;
                            maxWaiters = Math.max(maxWaiters, n);
                            if (n > 0) {
                                withWait++;
                            }
                            if (rs.getLong(2) > 0) {
                                otherWaits++;
                            }
                        }
                    }
                    Thread.sleep(10);
                }
            } catch (SQLException | InterruptedException e) {
                System.err.println("lock sampler: " + e);
            }
        }

        /** Stops sampling. */
        void close() throws InterruptedException {
            stop = true;
            thread.join();
        }

        /** The share of samples in which a backend waited for another lock than a row's, in %. */
        synchronized double otherWaitingPercent() {
            return samples == 0 ? 0 : 100.0 * otherWaits / samples;
        }

        /** The share of samples in which a backend waited for a row lock, in %. */
        synchronized double waitingPercent() {
            return samples == 0 ? 0 : 100.0 * withWait / samples;
        }

        /** The mean number of backends waiting for a row lock. */
        synchronized double meanWaiters() {
            return samples == 0 ? 0 : (double) waiters / samples;
        }

        synchronized long maxWaiters() {
            return maxWaiters;
        }
    }
}
