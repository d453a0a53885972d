// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Engine.java - which of libwheeltimer's engines serves a timer
 */
package org.wheeltimer;

import java.util.Locale;

/**
 * The engine behind a {@link WheelTimer}: the kernel's {@code /dev/wheeltimer}
 * or libwheeltimer's in-process engine (the module's timing wheel compiled
 * into the library, driven by one timerfd). Both give the same results.
 */
public enum Engine {
    /**
     * The library chooses: the kernel's if {@code /dev/wheeltimer} opens, else
     * the in-process engine. The environment variable {@code WHEELTIMER_ENGINE}
     * ({@code kernel}, {@code process}, {@code auto}) may decide instead.
     */
    AUTO(Native.ENGINE_AUTO),
    /** {@code /dev/wheeltimer}, or fail. */
    KERNEL(Native.ENGINE_KERNEL),
    /** The in-process engine, whether or not the module is loaded. */
    PROCESS(Native.ENGINE_PROCESS);

    /**
     * The system property that chooses the engine of timers whose builder
     * leaves it to {@link #AUTO}: {@code auto}, {@code kernel} or {@code process}.
     */
    public static final String PROPERTY = "wheeltimer.engine";

    final int code;

    Engine(int code) {
        this.code = code;
    }

    static Engine of(int code) {
        for (Engine e : values()) {
            if (e.code == code) {
                return e;
            }
        }
        throw new IllegalArgumentException("unknown engine " + code);
    }

    /** {@code engine}, or the one {@value #PROPERTY} names if {@code engine} is {@link #AUTO}. */
    static Engine resolve(Engine engine) {
        String name = System.getProperty(PROPERTY);
        if (engine != AUTO || name == null || name.isEmpty()) {
            return engine;
        }
        try {
            return valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    PROPERTY + "=" + name + ": expected auto, kernel or process", e);
        }
    }
}
