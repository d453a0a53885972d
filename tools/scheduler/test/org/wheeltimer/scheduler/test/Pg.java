// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Pg.java - the test's hold on the PostgreSQL server that pg-run started
 */
package org.wheeltimer.scheduler.test;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Base64;

import org.wheeltimer.scheduler.Scheduler;

/**
 * The server, as its superuser (from pg-run's environment): a fresh
 * database per scenario with the scheduler's schema and the tests' effect
 * table; the nodes' roles, one per node name, so that one node's
 * connections can be cut (ALTER ROLE ... NOLOGIN, then
 * pg_terminate_backend() on its backends) and given back.
 */
final class Pg {
    /** The nodes' password (the server only listens on 127.0.0.1, and asks for it). */
    final String nodePassword;
    private final String server;   // jdbc:postgresql://127.0.0.1:PORT/
    private final String user;
    private final String password;

    Pg(String url, String user, String password) {
        this.server = url.substring(0, url.lastIndexOf('/') + 1);
        this.user = user;
        this.password = password;
        byte[] b = new byte[18];
        new SecureRandom().nextBytes(b);
        this.nodePassword = Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    String url(String db) {
        return server + db;
    }

    Connection connect(String db) throws SQLException {
        return DriverManager.getConnection(url(db), user, password);
    }

    /** The roles of nodes named n1 to n{count}, members of wt_nodes. */
    void createNodeRoles(int count) throws SQLException {
        try (Connection c = connect("postgres"); Statement st = c.createStatement()) {
            st.execute("CREATE ROLE wt_nodes NOLOGIN");
            for (int i = 1; i <= count; i++) {
                st.execute("CREATE ROLE n" + i + " LOGIN PASSWORD '" + nodePassword + "' IN ROLE wt_nodes");
            }
        }
    }

    /** A new database with the schema, the effect table, and the nodes' rights. */
    void createDatabase(String db) throws SQLException {
        try (Connection c = connect("postgres"); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
            st.execute("CREATE DATABASE " + db);
        }
        try (Connection c = connect(db); Statement st = c.createStatement()) {
            Scheduler.installSchema(c);
            st.execute("""
                    CREATE TABLE test_effect (
                        job_id bigint NOT NULL,
                        scheduled_at timestamptz NOT NULL,
                        node text NOT NULL,
                        at timestamptz NOT NULL DEFAULT clock_timestamp())""");
            st.execute("GRANT SELECT, DELETE ON wt_job TO wt_nodes");
            st.execute("GRANT SELECT, INSERT ON wt_run TO wt_nodes");
            st.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON wt_node TO wt_nodes");
            st.execute("GRANT INSERT ON test_effect TO wt_nodes");
        }
    }

    /** Cuts a node off: it can no longer log in, and its connections are ended. */
    void cut(String node) throws SQLException {
        try (Connection c = connect("postgres"); Statement st = c.createStatement()) {
            st.execute("ALTER ROLE " + node + " NOLOGIN");
            st.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '" + node + "'");
        }
    }

    /** Gives a cut node its connections back. */
    void restore(String node) throws SQLException {
        try (Connection c = connect("postgres"); Statement st = c.createStatement()) {
            st.execute("ALTER ROLE " + node + " LOGIN");
        }
    }
}
