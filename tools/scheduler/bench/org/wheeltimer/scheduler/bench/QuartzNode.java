// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * QuartzNode.java - one node of a Quartz cluster (clustered JDBC job store
 * on PostgreSQL), for the benchmark to measure against
 */
package org.wheeltimer.scheduler.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Properties;

import org.quartz.Job;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;
import org.quartz.Scheduler;
import org.quartz.impl.StdSchedulerFactory;
import org.wheeltimer.scheduler.test.Recorder;

/**
 * {@code QuartzNode --name N --url JDBC --user U --password P --record FILE}:
 * a Quartz 2.3 scheduler in the cluster {@code bench}, whose jobs
 * ({@link BenchJob}) note their start as the scheduler's nodes do.
 * Stops (waiting for running jobs) on "stop" or the end of its input.
 */
public final class QuartzNode {
    static Recorder record;

    private QuartzNode() {
    }

    /**
     * The cluster's settings, Quartz's documented ones for a clustered
     * JDBC job store on PostgreSQL. A thread pool of 10 (Quartz's example
     * configuration), acquisition batches of up to 10 triggers due at the
     * same time (Quartz acquires one by default, and fires a batch early
     * if given a time window, so none is given), check-in every second
     * (its failure detection is the last check-in plus the interval plus
     * 7.5 s), and a misfire threshold of an hour, so that every late
     * trigger still fires as it would have.
     */
    static Properties settings(String instance, String url, String user, String password) {
        Properties p = new Properties();
        p.setProperty("org.quartz.scheduler.instanceName", "bench");
        p.setProperty("org.quartz.scheduler.instanceId", instance);
        p.setProperty("org.quartz.scheduler.skipUpdateCheck", "true");
        p.setProperty("org.quartz.scheduler.batchTriggerAcquisitionMaxCount", "10");
        p.setProperty("org.quartz.threadPool.class", "org.quartz.simpl.SimpleThreadPool");
        p.setProperty("org.quartz.threadPool.threadCount", "10");
        p.setProperty("org.quartz.jobStore.class", "org.quartz.impl.jdbcjobstore.JobStoreTX");
        p.setProperty("org.quartz.jobStore.driverDelegateClass",
                      "org.quartz.impl.jdbcjobstore.PostgreSQLDelegate");
        p.setProperty("org.quartz.jobStore.dataSource", "db");
        p.setProperty("org.quartz.jobStore.isClustered", "true");
        p.setProperty("org.quartz.jobStore.clusterCheckinInterval", "1000");
        p.setProperty("org.quartz.jobStore.misfireThreshold", "3600000");
        p.setProperty("org.quartz.jobStore.acquireTriggersWithinLock", "true");
        p.setProperty("org.quartz.dataSource.db.provider", "hikaricp");
        p.setProperty("org.quartz.dataSource.db.driver", "org.postgresql.Driver");
        p.setProperty("org.quartz.dataSource.db.URL", url);
        p.setProperty("org.quartz.dataSource.db.user", user);
        p.setProperty("org.quartz.dataSource.db.password", password);
        p.setProperty("org.quartz.dataSource.db.maxConnections", "13");
        return p;
    }

    public static void main(String[] args) throws Exception {
        String name = null;
        String url = null;
        String user = null;
        String password = null;
        for (int i = 0; i < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
            case "--name" -> name = v;
            case "--url" -> url = v;
            case "--user" -> user = v;
            case "--password" -> password = v;
            case "--record" -> record = new Recorder(Path.of(v));
            default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        Scheduler s = new StdSchedulerFactory(settings(name, url, user, password)).getScheduler();
        s.start();
        System.out.println("started " + name + " (Quartz)");
        System.out.flush();
        Recorder.awaitStop();
        s.shutdown(true);
        System.out.println("stopped " + name);
        System.out.flush();
    }

    /** A benchmark job: notes its start. Its name is "j" and the driver's key. */
    public static final class BenchJob implements Job {
        @Override
        public void execute(JobExecutionContext ctx) throws JobExecutionException {
            try {
                record.note(ctx.getJobDetail().getKey().getName().substring(1),
                            ctx.getScheduledFireTime().getTime() * 1000);
            } catch (IOException e) {
                throw new JobExecutionException(e);
            }
        }
    }
}
