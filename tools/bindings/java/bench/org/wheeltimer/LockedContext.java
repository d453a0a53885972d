// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * LockedContext.java - the hand-over WheelTimer does not use, kept for the
 * benchmark that chose against it: a lock around the library's context
 */
package org.wheeltimer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The other way to let any thread schedule on a context that one thread at
 * a time may use: a lock around every call. A caller's add then goes to the
 * library and is submitted at once (one system call with the kernel's
 * engine, so that the engine re-arms its timer for a new earliest
 * deadline while the worker sleeps in poll without the lock); a cancel is
 * queued and goes with the next submit. Only the callers' side is here,
 * which is all the benchmark compares with WheelTimer's two lock-free
 * stacks: a worker would take the same lock to reap.
 */
public final class LockedContext implements AutoCloseable {
    private final long ctx;
    private final ByteBuffer ops;

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
        ops = Native.opsBuffer(c).order(ByteOrder.nativeOrder());
    }

    /** Adds a timeout {@code delay} ns from now and submits it; returns its handle. */
    public synchronized long add(long delay) {
        op(Native.ADD, Native.ABSTIME, System.nanoTime() + delay);
        long handle = ops.getLong(Native.OP_HANDLE * Long.BYTES);
        int res = Native.submit(ctx);
        if (res < 0) {
            throw Native.error("wheeltimer_submit", res);
        }
        return handle;
    }

    /** Cancels a timeout; the cancel goes to the engine with the next add. */
    public synchronized void cancel(long handle) {
        op(Native.CANCEL, 0, handle);
    }

    private void op(long kind, long flags, long arg) {
        ops.putLong(Native.OP_KIND * Long.BYTES, kind);
        ops.putLong(Native.OP_FLAGS * Long.BYTES, flags);
        ops.putLong(Native.OP_ARG * Long.BYTES, arg);
        ops.putLong(Native.OP_PERIOD * Long.BYTES, 0);
        ops.putLong(Native.OP_SLACK * Long.BYTES, 0);
        ops.putLong(Native.OP_COOKIE * Long.BYTES, 0);
        Native.apply(ctx, 1);
        long res = ops.getLong(Native.OP_RES * Long.BYTES);
        if (res < 0) {
            throw Native.error("the operation", res);
        }
    }

    @Override
    public synchronized void close() {
        Native.close(ctx);
    }
}
