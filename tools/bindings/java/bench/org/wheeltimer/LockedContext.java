// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * LockedContext.java - the hand-over WheelTimer does not use, kept for the
 * benchmark that chose against it: a lock around the library's context
 */
package org.wheeltimer;

/**
 * The other way to let any thread schedule on a context that one thread at
 * a time may use: a lock around every call. A caller's add then goes to the
 * library and is submitted at once (one system call with the kernel's
 * engine, so that the engine re-arms its timer for a new earliest
 * deadline while the worker sleeps in poll without the lock); a cancel is
 * queued and goes with the next submit. Only the callers' side is here,
 * which is all the benchmark compares with WheelTimer's lock-free
 * stack: a worker would take the same lock to reap.
 */
public final class LockedContext implements AutoCloseable {
    private final long ctx;
    private final long[] op = new long[2];
    private final long[] result = new long[1];

    /** Opens a context on the engine that {@link Engine#resolve} picks. */
    public LockedContext() {
        long[] io = new long[Native.IO_WORDS];
        io[Native.IO_ENGINE] = Engine.resolve(Engine.AUTO).code;
        io[Native.IO_CLOCKID] = Native.CLOCK_MONOTONIC;
        long c = Native.open(io);
        if (c == 0) {
            throw Native.error("wheeltimer_open", io[Native.IO_ERROR]);
        }
        ctx = c;
    }

    /** Adds a timeout {@code delay} ns from now and submits it; returns its handle. */
    public synchronized long add(long delay) {
        long handle = op(Native.OP_ADD | (long) Native.ABSTIME << Native.OP_FLAGS_SHIFT,
                         System.nanoTime() + delay);
        int res = Native.submit(ctx);
        if (res < 0) {
            throw Native.error("wheeltimer_submit", res);
        }
        return handle;
    }

    /** Cancels a timeout; the cancel goes to the engine with the next add. */
    public synchronized void cancel(long handle) {
        op(Native.OP_CANCEL, handle);
    }

    /** Queues one operation; returns its outcome (an add's handle). */
    private long op(long head, long arg) {
        op[0] = head;
        op[1] = arg;
        int n = Native.apply(ctx, op, 2, result);
        if (n != 1) {
            throw Native.error("apply", n);
        }
        long r = result[0];
        if ((int) r == 0 && r != 0) {
            throw Native.error("the operation", -(r >>> 32));
        }
        return r;
    }

    @Override
    public synchronized void close() {
        Native.close(ctx);
    }
}
