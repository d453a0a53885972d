// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Database.java - a node's connections: a pool for its threads, and the
 * listener's own
 */
package org.wheeltimer.scheduler;

import com.zaxxer.hikari.HikariDataSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * How a node reaches PostgreSQL. Its threads (runners, control, renewer,
 * the listener's reads) borrow from one HikariCP pool, made with the node
 * and opened by the first thread that asks, when the node starts; the
 * listener has a connection of its own, which a pool would take back.
 *
 * <p>Each session names its node in {@code application_name}: the pool's
 * as {@link #applicationName}, which the other nodes end once the node's
 * lease has lapsed ({@link Store#endSessions}), the listener's with
 * " listener" after it.
 */
final class Database {
    private final String url;
    private final Properties properties;
    private final HikariDataSource pool;

    Database(Settings s, String url, String user, String password) {
        this.url = url;
        this.properties = properties(s, user, password);
        pool = new HikariDataSource();   // connects when first asked
        pool.setPoolName("wt-" + s.name());
        pool.setJdbcUrl(url);
        pool.setDataSourceProperties(properties);
        pool.setMaximumPoolSize(s.runners() + 3);   // and the control thread, the listener, the renewer
        // How long a thread waits for a connection while the database is
        // away, and so the longest the pool's own retries wait between two
        // tries to connect (HikariCP 2.7 backs off up to this timeout):
        // the back-off's maximum (Backoff.sleepAfter), so that a node
        // tries again within it once the database is back (at least 250
        // ms, HikariCP's least).
        long timeout = Math.max(250, s.retryMaxMillis());
        pool.setConnectionTimeout(timeout);
        pool.setValidationTimeout(Math.min(500, timeout));
        pool.setInitializationFailTimeout(-1);   // start even if the database is away
    }

    /**
     * The application_name of node {@code name}'s pooled sessions, by
     * which the others end them once its lease has lapsed: PostgreSQL
     * keeps 63 bytes of it, so a node's name has at most 42.
     */
    static String applicationName(String name) {
        return "wheeltimer-scheduler " + name;
    }

    /** A connection from the pool; waits up to the back-off's maximum. */
    Connection connection() throws SQLException {
        return pool.getConnection();
    }

    /** A new connection of the listener's own. */
    Connection listenerConnection() throws SQLException {
        Properties p = new Properties();
        p.putAll(properties);
        p.setProperty("ApplicationName", p.getProperty("ApplicationName") + " listener");
        return DriverManager.getConnection(url, p);
    }

    void close() {
        pool.close();
    }

    /** What the driver is given for every connection. */
    private static Properties properties(Settings s, String user, String password) {
        Properties p = new Properties();
        if (user != null) {
            p.setProperty("user", user);
        }
        if (password != null) {
            p.setProperty("password", password);
        }
        p.setProperty("ApplicationName", applicationName(s.name()));
        // Sent in the first packet (not set after it), so that the server
        // knows a session's node from its start, its log included.
        p.setProperty("assumeMinServerVersion", "10");
        // A connection that hangs (a network partition, not a closed socket)
        // fails after twice the lease, and is retried.
        long leaseSeconds = Math.max(1, (s.leaseMillis() + 999) / 1000);
        p.setProperty("socketTimeout", Long.toString(2 * leaseSeconds));
        p.setProperty("connectTimeout", Long.toString(leaseSeconds));
        p.setProperty("tcpKeepAlive", "true");
        return p;
    }
}
