// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * NodeMain.java - one scheduler node as a process, for the tests and the
 * benchmark
 */
package org.wheeltimer.scheduler.test;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.ZoneOffset;

import org.wheeltimer.scheduler.JobRun;
import org.wheeltimer.scheduler.Micros;
import org.wheeltimer.scheduler.Scheduler;

/**
 * {@code NodeMain --name N --url JDBC --user U --password P [--lease-ms MS]
 * [--renew-ms MS] [--window-ms MS] [--runners N] [--slow-ms MS]
 * [--hold-ms MS] [--record FILE]}: runs a node with these handlers: {@code noop} does
 * nothing, {@code db} inserts a row into {@code test_effect} (the job's
 * effect, with the payload it was given, in the run's transaction, for
 * the tests to count), {@code fail} does the same and throws,
 * {@code slow} does the same and then sleeps {@code --slow-ms} (100), and
 * {@code hold} does the same, prints "holding job ID", and sleeps
 * {@code --hold-ms} (2000) if its payload is this node's name (so that
 * the test can stop the node inside the run's transaction, or keep its
 * runner busy); with {@code --record}, each also notes
 * its start in FILE ({@link Recorder}). Prints "started" when started;
 * stops on "stop" (or the end of its input: the driver died), prints
 * "stopped" and its counters, and exits.
 */
public final class NodeMain {
    private static Recorder record;

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
        long slowMs = 100;
        long holdMs = 2000;
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
            case "--slow-ms" -> slowMs = Long.parseLong(v);
            case "--hold-ms" -> holdMs = Long.parseLong(v);
            case "--record" -> record = new Recorder(Path.of(v));
            default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        b = Scheduler.builder(name).database(url, user, password).lease(lease).window(window)
                .runners(runners);
        if (renew != null) {
            b.renewEvery(renew);
        }
        b.handler("noop", NodeMain::note);
        b.handler("db", run -> {
            note(run);
            effect(run);
        });
        b.handler("fail", run -> {
            note(run);
            effect(run);   // to be rolled back
            throw new IllegalStateException("job " + run.jobId() + " fails, as asked");
        });
        long slow = slowMs;
        b.handler("slow", run -> {
            note(run);
            effect(run);
            Thread.sleep(slow);
        });
        String self = name;
        long holdFor = holdMs;
        b.handler("hold", run -> {
            note(run);
            effect(run);
            System.out.println("holding job " + run.jobId());
            System.out.flush();
            if (self.equals(run.payload())) {
                Thread.sleep(holdFor);
            }
        });
        Scheduler node = b.build();
        node.start();
        System.out.println("started " + name + " on the " + node.engine() + " engine");
        System.out.flush();

        Recorder.awaitStop();
        node.stop();
        System.out.println("stopped " + name + ": " + node.stats());
        System.out.flush();
    }

    /** Records the run's start, if asked to: payload, scheduled and start times. */
    private static void note(JobRun run) throws IOException {
        if (record != null) {
            record.note(run.payload(), Micros.of(run.scheduledAt()));
        }
    }

    /** The database action of a test job: a row in test_effect. */
    private static void effect(JobRun run) throws SQLException {
        try (PreparedStatement ps = run.connection().prepareStatement(
                "INSERT INTO test_effect (job_id, scheduled_at, node, payload) VALUES (?, ?, ?, ?)")) {
            ps.setLong(1, run.jobId());
            ps.setObject(2, run.scheduledAt().atOffset(ZoneOffset.UTC));
            ps.setString(3, run.node());
            ps.setString(4, run.payload());
            ps.executeUpdate();
        }
    }
}
