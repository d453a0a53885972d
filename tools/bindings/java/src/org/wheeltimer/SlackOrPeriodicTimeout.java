// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * SlackOrPeriodicTimeout.java - a WheelTimeout with a slack or a period:
 * the fields that a plain one-shot timeout does without
 */
package org.wheeltimer;

import io.netty.util.TimerTask;

/**
 * A timeout made by {@link WheelTimer#newTimeout(TimerTask, long, long,
 * java.util.concurrent.TimeUnit)} with a slack, or by
 * {@link WheelTimer#scheduleAtFixedRate} or
 * {@link WheelTimer#scheduleWithFixedDelay}: its slack, its period and how
 * its runs went. The worker writes the counts; any thread reads them.
 */
final class SlackOrPeriodicTimeout extends TaskTimeout {
    /** The slack in ns. */
    final long slack;
    /** The period in ns, 0 for a one-shot timeout. */
    final long period;
    /** 0, {@link Native#FIXED_RATE} or {@link Native#FIXED_DELAY}. */
    final int mode;

    private volatile long runs;
    private volatile long overruns;
    private volatile long lastOverruns;

    SlackOrPeriodicTimeout(Lane lane, TimerTask task, long deadline, long slack,
                           long period, int mode) {
        super(lane, task, deadline);
        this.slack = slack;
        this.period = period;
        this.mode = mode;
    }

    @Override
    public boolean isPeriodic() {
        return period != 0;
    }

    @Override
    public long runs() {
        return runs;
    }

    @Override
    public long overruns() {
        return overruns;
    }

    @Override
    public long lastOverruns() {
        return lastOverruns;
    }

    /** Periodic: INIT -> RUNNING, counting the run. True if the task is to run now. */
    boolean startRun(long newOverruns) {
        if (!startRunning()) {
            return false;
        }
        runs = runs + 1;
        lastOverruns = newOverruns;
        overruns = overruns + newOverruns;
        return true;
    }

    @Override
    void describe(StringBuilder b) {
        if (slack != 0) {
            b.append(", slack ").append(slack).append(" ns");
        }
        if (period != 0) {
            b.append(mode == Native.FIXED_RATE ? ", fixed rate " : ", fixed delay ")
                    .append(period).append(" ns, runs: ").append(runs);
        }
    }
}
