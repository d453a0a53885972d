// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * HashedWheelTimerContractTest.java - the contract, against Netty's own
 * HashedWheelTimer: what WheelTimer is measured by
 */
package org.wheeltimer.test;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.netty.util.HashedWheelTimer;
import io.netty.util.Timer;
import io.netty.util.Version;

import java.util.Arrays;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.DisplayName;

/** Netty 4.1.48's HashedWheelTimer with a 10 ms tick (its default, 100 ms, only slows the tests). */
@DisplayName("HashedWheelTimer")
class HashedWheelTimerContractTest extends TimerContract {
    private static final long TICK_MS = 10;

    @Override
    Timer newTimer(Probe.Named threads, long maxPendingTimeouts) {
        return new HashedWheelTimer(threads, TICK_MS, TimeUnit.MILLISECONDS, 512, true,
                                    maxPendingTimeouts);
    }

    @Override
    long pendingTimeouts(Timer timer) {
        return ((HashedWheelTimer) timer).pendingTimeouts();
    }

    @Override
    long precisionNanos() {
        return TimeUnit.MILLISECONDS.toNanos(TICK_MS);
    }

    @Override
    boolean pendingDropsAtCancel() {
        return false;
    }

    @Override
    boolean workerTicks() {
        return true;
    }

    @Override
    String loggerName() {
        return HashedWheelTimer.class.getName();
    }

    @Override
    Timer newTimer(Probe.Named threads, long tickDuration, TimeUnit unit, int ticksPerWheel) {
        return new HashedWheelTimer(threads, tickDuration, unit, ticksPerWheel, true, -1);
    }

    /** Netty cancels what stop() returns since 4.1.111; Debian's is 4.1.48. */
    @Override
    boolean stopCancelsWhatItReturns() {
        Version v = Version.identify(HashedWheelTimer.class.getClassLoader()).get("netty-common");
        assertNotNull(v, "netty-common's version");
        String[] n = v.artifactVersion().split("[.]");
        int[] have = {Integer.parseInt(n[0]), Integer.parseInt(n[1]), Integer.parseInt(n[2])};
        int[] since = {4, 1, 111};
        return Arrays.compare(have, since) >= 0;
    }
}
