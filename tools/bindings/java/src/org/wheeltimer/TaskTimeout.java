// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * TaskTimeout.java - the timeout newTimeout() makes: a WheelTimeout that
 * holds its timer and its task
 */
package org.wheeltimer;

import io.netty.util.TimerTask;

/**
 * A {@link WheelTimeout} that holds its timer and its task: what
 * {@code newTimeout()} makes, and the base of the timeouts with slack or a
 * period ({@link SlackOrPeriodicTimeout}).
 */
sealed class TaskTimeout extends WheelTimeout permits SlackOrPeriodicTimeout {
    private final WheelTimer timer;
    private final TimerTask task;

    TaskTimeout(WheelTimer timer, TimerTask task, long deadline) {
        super(deadline);
        this.timer = timer;
        this.task = task;
    }

    @Override
    public WheelTimer timer() {
        return timer;
    }

    @Override
    public TimerTask task() {
        return task;
    }

    @Override
    public boolean cancel() {
        return cancelVia(timer.handOver);
    }
}
