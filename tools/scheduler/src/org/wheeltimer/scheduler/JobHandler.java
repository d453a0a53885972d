// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * JobHandler.java - what a job does, registered by name on every node
 */
package org.wheeltimer.scheduler;

/**
 * Runs the occurrences of the jobs whose {@code handler} column names it.
 * A node calls it on one of its runner threads, inside the transaction
 * that records the run, after the run's row is inserted and before the
 * commit ({@link JobRun#connection()}):
 *
 * <ul>
 * <li>What it does through that connection commits with the run, or not
 *     at all: a database action runs exactly once.
 * <li>What it does elsewhere (a message, a call) happens before the commit,
 *     so a node that dies between the two leaves no run, and the occurrence
 *     runs again on another node: at least once. Make such an effect
 *     idempotent with the key the scheduler gives, {@link JobRun#jobId()}
 *     and {@link JobRun#scheduledAt()}, which no two runs share.
 * </ul>
 *
 * If it throws, what it did through the connection is rolled back, and the
 * run is recorded with the exception as its {@code error}: it ran, once,
 * and failed. Retrying is the handler's business (a new job, for instance).
 * It must not commit, roll back or close the connection.
 */
@FunctionalInterface
public interface JobHandler {
    void run(JobRun run) throws Exception;
}
