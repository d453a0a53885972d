// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Pg.java - the test's hold on the PostgreSQL server that pg-run started
 */
package org.wheeltimer.scheduler.test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import org.wheeltimer.scheduler.Micros;
import org.wheeltimer.scheduler.Scheduler;

/**
 * The server, as its superuser (from pg-run's environment): a fresh
 * database per scenario with the scheduler's schema and the tests' effect
 * table; the nodes' roles, one per node name, so that one node's
 * connections can be cut (ALTER ROLE ... NOLOGIN, then
 * pg_terminate_backend() on its backends) and given back; and the server
 * itself, crashed and started again (pg-run's pg_ctl).
 */
final class Pg {
    /** The nodes' password (the server only listens on 127.0.0.1, and asks for it). */
    final String nodePassword;
    private final String server;   // jdbc:postgresql://127.0.0.1:PORT/
    private final String user;
    private final String password;
    /** pg-run's directory: the server's log, and its pg_ctl. */
    private final Path runDir;

    Pg(String url, String user, String password, Path runDir) {
        this.runDir = runDir;
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
            // Nodes that log in as roles of their own need this to end a
            // lapsed node's sessions (nodes that share one role do not).
            st.execute("GRANT pg_signal_backend TO wt_nodes");
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
                        payload text,
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

    /** Stops the server at once, as a crash would: pg_ctl stop -m immediate. */
    void crash() throws IOException, InterruptedException {
        pgCtl("stop", "-m", "immediate", "-w");
    }

    /** Starts the server again; returns once it accepts connections. */
    void start() throws IOException, InterruptedException {
        pgCtl("start", "-w", "-t", "120");
    }

    /** When the server last became ready to accept connections, by its clock (its log's line). */
    long readyAtUs() throws IOException {
        String ready = null;
        for (String line : Files.readAllLines(runDir.resolve("server.log"))) {
            if (line.contains("database system is ready to accept connections")) {
                ready = line;
            }
        }
        if (ready == null) {
            throw new IllegalStateException("the server's log says nowhere that it is ready");
        }
        return logTime(ready);
    }

    /**
     * A wait for a row lock that the server logged (log_lock_waits: each
     * wait longer than deadlock_timeout, 1 s): who waited, from when, and
     * how long ({@code waitedMs}: so far, if it was still waiting when
     * last logged).
     */
    record LockWait(String who, long atUs, double waitedMs) {
    }

    /**
     * The row-lock waits of sessions of database {@code db} logged from
     * {@code fromUs}: one per waiting process, its longest logged wait.
     */
    List<LockWait> lockWaits(String db, long fromUs) throws IOException {
        java.util.Map<String, LockWait> byProcess = new java.util.LinkedHashMap<>();
        java.util.regex.Pattern p = java.util.regex.Pattern.compile(
                "^(\\S+ \\S+) UTC \\[\\d+\\] (.*)@" + db + " LOG:  process (\\d+) "
                + "(?:still waiting for|acquired) ShareLock on .* after ([0-9.]+) ms");
        for (String line : Files.readAllLines(runDir.resolve("server.log"))) {
            java.util.regex.Matcher m = p.matcher(line);
            if (!m.find()) {
                continue;
            }
            long at = logTime(line);
            if (at < fromUs) {
                continue;
            }
            LockWait w = new LockWait(m.group(2), at, Double.parseDouble(m.group(4)));
            byProcess.merge(m.group(3), w, (a, b) -> a.waitedMs() >= b.waitedMs() ? a : b);
        }
        return new ArrayList<>(byProcess.values());
    }

    /**
     * When the server first ended a session of application
     * {@code application} in database {@code db} from {@code fromUs} on
     * (pg_terminate_backend), by its log; -1 if it did not.
     */
    long sessionEndedAtUs(String db, String application, long fromUs) throws IOException {
        String tail = " " + application + "@" + db + " FATAL:  terminating connection due to administrator command";
        for (String line : Files.readAllLines(runDir.resolve("server.log"))) {
            if (line.endsWith(tail)) {
                long at = logTime(line);
                if (at >= fromUs) {
                    return at;
                }
            }
        }
        return -1;
    }

    /**
     * When the first session that role {@code user} opened with
     * {@code application} from {@code fromUs} on reached the server (its
     * "connection received" line, by its log; the session's process
     * logged both), or -1.
     */
    long connectionReceivedUs(String user, String application, long fromUs) throws IOException {
        java.util.Map<String, Long> received = new java.util.HashMap<>();
        String authorized = "connection authorized: user=" + user + " database=";
        String app = " application_name=" + application;
        for (String line : Files.readAllLines(runDir.resolve("server.log"))) {
            int p = line.indexOf(" UTC [");
            if (p < 0) {
                continue;
            }
            String pid = line.substring(p + 6, line.indexOf(']', p));
            if (line.contains("LOG:  connection received: ")) {
                received.put(pid, logTime(line));
            } else if (line.contains(authorized) && line.endsWith(app)) {
                Long at = received.get(pid);
                if (at != null && at >= fromUs) {
                    return at;
                }
            }
        }
        return -1;
    }

    /** The time of a line of the server's log ("2030-01-01 09:00:00.123 UTC [PID] ..."). */
    private static long logTime(String line) {
        return Micros.of(Instant.parse(line.substring(0, line.indexOf(" UTC")).replace(' ', 'T') + "Z"));
    }

    private void pgCtl(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(runDir.resolve("pg_ctl").toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("pg_ctl " + String.join(" ", args) + " failed: " + p.exitValue());
        }
    }

    /** Gives a cut node its connections back. */
    void restore(String node) throws SQLException {
        try (Connection c = connect("postgres"); Statement st = c.createStatement()) {
            st.execute("ALTER ROLE " + node + " LOGIN");
        }
    }
}
