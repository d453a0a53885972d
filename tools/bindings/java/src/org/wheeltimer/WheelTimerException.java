// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * WheelTimerException.java - an error that libwheeltimer reported
 */
package org.wheeltimer;

/**
 * An error from libwheeltimer or the kernel: the timer could not be opened
 * (no device with {@link Engine#KERNEL}, a {@code maxPendingTimeouts} above
 * what the module allows this process), or the engine lacks a feature.
 */
public class WheelTimerException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int error;

    /**
     * @param message what failed, and why
     * @param error   the positive errno value, or libwheeltimer's own code
     *                (4001 a missing feature, 4002 an unknown module interface,
     *                4003 an unknown engine)
     */
    public WheelTimerException(String message, int error) {
        super(message);
        this.error = error;
    }

    /** The positive errno value, or libwheeltimer's own code (above 4000). */
    public int error() {
        return error;
    }
}
