// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * JobRun.java - one run of a job, as its handler sees it
 */
package org.wheeltimer.scheduler;

import java.sql.Connection;
import java.time.Instant;

/**
 * One run: the job, the occurrence it is (the job's scheduled time, which
 * with the job's id is the run's unique key), when this node's wheel fired
 * it, which node runs it, and the connection whose transaction records it
 * (see {@link JobHandler}).
 */
public record JobRun(long jobId, String payload, Instant scheduledAt, Instant firedAt,
                     String node, Connection connection) {
}
