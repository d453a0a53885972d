// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * WheelTimerStats.java - a WheelTimer's counters: the engine's and the
 * worker's
 */
package org.wheeltimer;

/**
 * A snapshot of a {@link WheelTimer}'s counters, from {@link WheelTimer#stats()}.
 * The engine's counters are libwheeltimer's ({@code wheeltimer_stats(3)});
 * an engine that does not keep one reports 0. A timeout already due when
 * the worker takes it is run without the engine; {@code added},
 * {@code fired} and {@code cancelled} count it as the engine would have.
 *
 * @param engine          the engine that serves the timer
 * @param resolutionNanos the wheel's resolution
 * @param maxPending      the engine's limit of live timeouts
 * @param live            timeouts the engine holds (armed, or fired and unread)
 * @param added           adds the engine applied, and those run without it
 * @param fired           records the engine queued (one per firing), and the
 *                        timeouts run without it
 * @param cancelled       timeouts the engine cancelled while armed, and those
 *                        to be run without it, cancelled first
 * @param withdrawn       fired records withdrawn unread by a cancel
 * @param overruns        FIXED_RATE periods that passed unread
 * @param timerPrograms   times the engine's timer (hrtimer or timerfd) was set
 * @param submits         batch calls into the engine (WT_IOC_BATCH with the kernel's)
 * @param submitted       operations those carried
 * @param reads           read calls into the engine
 * @param pendingTimeouts {@link WheelTimer#pendingTimeouts()}
 * @param tasksRun        task runs started by the worker
 * @param taskFailures    task runs that threw
 * @param refused         timeouts the engine refused, cancelled by the timer
 * @param workerWakeups   times the worker waited in {@code wheeltimer_wait()} with leave
 *                        to sleep (it returns at once when records are ready)
 */
public record WheelTimerStats(Engine engine, long resolutionNanos, long maxPending, long live,
                              long added, long fired, long cancelled, long withdrawn,
                              long overruns, long timerPrograms, long submits, long submitted,
                              long reads, long pendingTimeouts, long tasksRun,
                              long taskFailures, long refused, long workerWakeups) {
}
