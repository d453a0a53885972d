// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * NodeMain.java - one scheduler node as a process, for the tests and the
 * benchmark
 */
package org.wheeltimer.scheduler.test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.Arrays;

import org.wheeltimer.scheduler.JobRun;
import org.wheeltimer.scheduler.Micros;
import org.wheeltimer.scheduler.Scheduler;

/**
 * {@code NodeMain --name N --url JDBC --user U --password P [--lease-ms MS]
 * [--renew-ms MS] [--window-ms MS] [--runners N]}: runs a node with three
 * handlers: {@code noop} does nothing, {@code db} inserts a row into
 * {@code test_effect} (the job's effect, in the run's transaction, for the
 * tests to count), {@code fail} does the same and throws. Each handler notes its lateness
 * (its start minus the scheduled time). Prints "started" when started;
 * reads commands on standard input: {@code lateness FILE} writes the
 * latenesses noted so far, in µs, one a line, and forgets them;
 * {@code stop} (or the end of the input: the driver died) stops the node,
 * prints "stopped" and its counters, and exits.
 */
public final class NodeMain {
    private static final Lateness LATENESS = new Lateness();

    private NodeMain() {
    }

    public static void main(String[] args) throws Exception {
        String name = null;
        String url = null;
        String user = null;
        String password = null;
        Scheduler.Builder b = null;
        Duration lease = Duration.ofSeconds(5);
        Duration renew = null;
        Duration window = Duration.ofSeconds(60);
        int runners = 2;
        for (int i = 0; i < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
            case "--name" -> name = v;
            case "--url" -> url = v;
            case "--user" -> user = v;
            case "--password" -> password = v;
            case "--lease-ms" -> lease = Duration.ofMillis(Long.parseLong(v));
            case "--renew-ms" -> renew = Duration.ofMillis(Long.parseLong(v));
            case "--window-ms" -> window = Duration.ofMillis(Long.parseLong(v));
            case "--runners" -> runners = Integer.parseInt(v);
            default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        b = Scheduler.builder(name).database(url, user, password).lease(lease).window(window)
                .runners(runners);
        if (renew != null) {
            b.renewEvery(renew);
        }
        b.handler("noop", run -> LATENESS.note(run.scheduledAt()));
        b.handler("db", run -> {
            LATENESS.note(run.scheduledAt());
            effect(run);
        });
        b.handler("fail", run -> {
            LATENESS.note(run.scheduledAt());
            effect(run);   // to be rolled back
            throw new IllegalStateException("job " + run.jobId() + " fails, as asked");
        });
        Scheduler node = b.build();
        node.start();
        System.out.println("started " + name + " on the " + node.engine() + " engine");
        System.out.flush();

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null && !line.equals("stop"); ) {
            if (line.startsWith("lateness ")) {
                LATENESS.write(Path.of(line.substring(9)));
                System.out.println("written");
                System.out.flush();
            }
        }
        node.stop();
        System.out.println("stopped " + name + ": " + node.stats());
        System.out.flush();
    }

    /** The database action of a test job: a row in test_effect. */
    private static void effect(JobRun run) throws SQLException {
        try (PreparedStatement ps = run.connection().prepareStatement(
                "INSERT INTO test_effect (job_id, scheduled_at, node) VALUES (?, ?, ?)")) {
            ps.setLong(1, run.jobId());
            ps.setObject(2, run.scheduledAt().atOffset(ZoneOffset.UTC));
            ps.setString(3, run.node());
            ps.executeUpdate();
        }
    }

    /** Latenesses in µs, noted by handlers on any runner thread. */
    private static final class Lateness {
        private long[] values = new long[1 << 16];
        private int n;

        synchronized void note(java.time.Instant scheduled) {
            if (n == values.length) {
                values = Arrays.copyOf(values, n * 2);
            }
            values[n++] = Micros.now() - Micros.of(scheduled);
        }

        synchronized void write(Path file) throws IOException {
            try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(file))) {
                for (int i = 0; i < n; i++) {
                    w.println(values[i]);
                }
            }
            n = 0;
        }
    }
}
