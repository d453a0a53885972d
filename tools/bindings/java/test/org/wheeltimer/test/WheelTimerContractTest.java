// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * WheelTimerContractTest.java - the contract, against WheelTimer on the
 * engine the system property wheeltimer.engine names
 */
package org.wheeltimer.test;

import io.netty.util.Timer;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.DisplayName;
import org.wheeltimer.WheelTimer;

/** WheelTimer built as HashedWheelTimer is, with a 1 ms resolution. */
@DisplayName("WheelTimer")
class WheelTimerContractTest extends TimerContract {
    private static final long RESOLUTION_MS = 1;

    @Override
    Timer newTimer(Probe.Named threads, long maxPendingTimeouts) {
        return new WheelTimer(threads, RESOLUTION_MS, TimeUnit.MILLISECONDS, 512, true,
                              maxPendingTimeouts);
    }

    @Override
    long pendingTimeouts(Timer timer) {
        return ((WheelTimer) timer).pendingTimeouts();
    }

    @Override
    long precisionNanos() {
        return TimeUnit.MILLISECONDS.toNanos(RESOLUTION_MS);
    }

    @Override
    boolean pendingDropsAtCancel() {
        return true;
    }

    @Override
    boolean workerTicks() {
        return false;
    }

    @Override
    String loggerName() {
        return WheelTimer.class.getName();
    }

    @Override
    Timer newTimer(Probe.Named threads, long tickDuration, TimeUnit unit, int ticksPerWheel) {
        return new WheelTimer(threads, tickDuration, unit, ticksPerWheel, true, -1);
    }

    @Override
    boolean stopCancelsWhatItReturns() {
        return true;
    }
}
