// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * ScheduledThreadPoolExecutorContractTest.java - the executor contract,
 * against the JDK's ScheduledThreadPoolExecutor: the control that
 * WheelScheduledExecutor is measured by
 */
package org.wheeltimer.test;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;

import org.junit.jupiter.api.DisplayName;

/** The JDK's ScheduledThreadPoolExecutor, as constructed by its users, default policies. */
@DisplayName("ScheduledThreadPoolExecutor")
class ScheduledThreadPoolExecutorContractTest extends ExecutorContract {
    @Override
    ScheduledExecutorService newExecutor(int poolSize, ThreadFactory threads) {
        return new ScheduledThreadPoolExecutor(poolSize, threads);
    }

    @Override
    long precisionNanos() {
        return 0;
    }

    @Override
    boolean executeDelayedAfterShutdown(ScheduledExecutorService e) {
        return ((ScheduledThreadPoolExecutor) e).getExecuteExistingDelayedTasksAfterShutdownPolicy();
    }

    @Override
    void setExecuteDelayedAfterShutdown(ScheduledExecutorService e, boolean value) {
        ((ScheduledThreadPoolExecutor) e).setExecuteExistingDelayedTasksAfterShutdownPolicy(value);
    }

    @Override
    boolean continuePeriodicAfterShutdown(ScheduledExecutorService e) {
        return ((ScheduledThreadPoolExecutor) e).getContinueExistingPeriodicTasksAfterShutdownPolicy();
    }

    @Override
    void setContinuePeriodicAfterShutdown(ScheduledExecutorService e, boolean value) {
        ((ScheduledThreadPoolExecutor) e).setContinueExistingPeriodicTasksAfterShutdownPolicy(value);
    }

    @Override
    boolean removeOnCancel(ScheduledExecutorService e) {
        return ((ScheduledThreadPoolExecutor) e).getRemoveOnCancelPolicy();
    }

    @Override
    void setRemoveOnCancel(ScheduledExecutorService e, boolean value) {
        ((ScheduledThreadPoolExecutor) e).setRemoveOnCancelPolicy(value);
    }
}
