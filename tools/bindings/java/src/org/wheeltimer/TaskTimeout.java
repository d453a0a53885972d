// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * TaskTimeout.java - the timeout newTimeout() makes: a WheelTimeout that
 * holds its lane (and so its timer) and its task
 */
package org.wheeltimer;

import io.netty.util.TimerTask;

/**
 * A {@link WheelTimeout} that holds its task and the lane its
 * {@code newTimeout()} pushed it into, which knows its timer, and counts
 * it: what {@code newTimeout()} makes, and the base of the timeouts with
 * slack or a period ({@link SlackOrPeriodicTimeout}).
 */
sealed class TaskTimeout extends WheelTimeout permits SlackOrPeriodicTimeout {
    private final Lane lane;
    private final TimerTask task;

    TaskTimeout(Lane lane, TimerTask task, long deadline) {
        super(deadline);
        this.lane = lane;
        this.task = task;
    }

    @Override
    public WheelTimer timer() {
        return lane.handOver.timer;
    }

    @Override
    public TimerTask task() {
        return task;
    }

    @Override
    public boolean cancel() {
        return cancelVia(lane.handOver, lane);
    }
}
