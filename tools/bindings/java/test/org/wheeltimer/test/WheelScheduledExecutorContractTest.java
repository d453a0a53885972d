// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * WheelScheduledExecutorContractTest.java - the executor contract, against
 * WheelScheduledExecutor on the engine the system property
 * wheeltimer.engine names
 */
package org.wheeltimer.test;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;

import org.junit.jupiter.api.DisplayName;
import org.wheeltimer.WheelScheduledExecutor;

/** WheelScheduledExecutor built as ScheduledThreadPoolExecutor is (its default resolution). */
@DisplayName("WheelScheduledExecutor")
class WheelScheduledExecutorContractTest extends ExecutorContract {
    @Override
    ScheduledExecutorService newExecutor(int poolSize, ThreadFactory threads) {
        return new WheelScheduledExecutor(poolSize, threads);
    }

    @Override
    long precisionNanos() {
        return WheelScheduledExecutor.DEFAULT_RESOLUTION_NANOS;
    }

    @Override
    boolean executeDelayedAfterShutdown(ScheduledExecutorService e) {
        return ((WheelScheduledExecutor) e).getExecuteExistingDelayedTasksAfterShutdownPolicy();
    }

    @Override
    void setExecuteDelayedAfterShutdown(ScheduledExecutorService e, boolean value) {
        ((WheelScheduledExecutor) e).setExecuteExistingDelayedTasksAfterShutdownPolicy(value);
    }

    @Override
    boolean continuePeriodicAfterShutdown(ScheduledExecutorService e) {
        return ((WheelScheduledExecutor) e).getContinueExistingPeriodicTasksAfterShutdownPolicy();
    }

    @Override
    void setContinuePeriodicAfterShutdown(ScheduledExecutorService e, boolean value) {
        ((WheelScheduledExecutor) e).setContinueExistingPeriodicTasksAfterShutdownPolicy(value);
    }

    @Override
    boolean removeOnCancel(ScheduledExecutorService e) {
        return ((WheelScheduledExecutor) e).getRemoveOnCancelPolicy();
    }

    @Override
    void setRemoveOnCancel(ScheduledExecutorService e, boolean value) {
        ((WheelScheduledExecutor) e).setRemoveOnCancelPolicy(value);
    }
}
