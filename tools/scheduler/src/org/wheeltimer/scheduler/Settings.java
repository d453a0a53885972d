// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Settings.java - a node's settings, as its builder made them
 */
package org.wheeltimer.scheduler;

import java.util.Map;

/**
 * What a node's parts read of its settings ({@link Scheduler.Builder} says
 * what each means): its name, the lease and its renewal, the window, the
 * runners' batch, the back-off's maximum, and the handlers. Fixed for the
 * node's life.
 *
 * @param retryMaxMillis the longest wait between two tries of a failed
 *        database call, and the pool's wait for a connection: half the
 *        renewal period, between 10 ms and 1 s
 */
record Settings(String name, long leaseMillis, long renewNanos, long windowNanos, int runners,
                int maxBatch, long retryMaxMillis, Map<String, JobHandler> handlers) {
}
