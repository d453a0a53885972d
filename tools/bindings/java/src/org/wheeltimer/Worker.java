// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Worker.java - a WheelTimer's worker thread: hands timeouts to the
 * library in batches, sleeps until something is due, runs the tasks
 */
package org.wheeltimer;

import io.netty.util.Timeout;
import io.netty.util.TimerTask;

import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.FutureTask;

/**
 * The only thread that calls libwheeltimer for its timer, as the library
 * requires. Each round it runs the queued commands ({@code advance()},
 * {@code stats()}), takes the timer's two hand-over stacks and queues their
 * cancels, then their adds, with the library (one JNI call per 1024
 * operations, no system call), then waits in the library's
 * {@code wheeltimer_wait()}, which submits them in one batch, reaps what is
 * ready or else sleeps until something is due or another thread ends the
 * wait with {@code wheeltimer_wake()}, and runs the tasks of what fired.
 *
 * <p>Each timeout in the engine has a slot here, whose index is its
 * cookie: a record leads back to its timeout in O(1). A slot is freed when
 * the timeout's final record is read or its cancel is queued; the library
 * promises that no record of a cancelled handle is read afterwards.
 */
final class Worker implements Runnable {
    private final WheelTimer timer;
    private final long ctx;
    private final ByteBuffer ops;
    private final ByteBuffer events;
    private final int opsMax;
    private final WheelTimeout[] opOwner;
    private final long[] scratch = new long[2];
    private final Ready ready = new Ready();

    private WheelTimeout[] slots = new WheelTimeout[256];
    private int[] free = new int[256];
    private int freeTop;
    private int nextSlot;

    private final Set<Timeout> unprocessed = new HashSet<>();

    /** The worker thread's kernel id, 0 until it runs. */
    private volatile int tid;
    /* Counters: this thread's alone; stats() reads them here too. */
    /** Waits in wheeltimer_wait() with leave to sleep. */
    private long wakeups;
    private long fired;
    private long tasksRun;
    private long taskFailures;
    private long refused;

    Worker(WheelTimer timer) {
        this.timer = timer;
        this.ctx = timer.ctx;
        this.ops = Native.opsBuffer(ctx).order(ByteOrder.nativeOrder());
        this.events = Native.eventsBuffer(ctx).order(ByteOrder.nativeOrder());
        this.opsMax = Native.opsMax();
        this.opOwner = new WheelTimeout[opsMax];
    }

    @Override
    public void run() {
        tid = Native.gettid();
        try {
            loop();
        } catch (RuntimeException | Error e) {
            timer.markShutdown();
            WheelTimer.LOG.log(Level.ERROR, "the wheeltimer worker failed; the timer is stopped", e);
            throw e;
        } finally {
            shutdown();
        }
    }

    private void loop() {
        boolean busy = false;
        // A stop() ends the loop at the next round, even with more due:
        // what has not run yet is returned unprocessed, as Netty's does.
        while (timer.workerState() != WheelTimer.WORKER_SHUTDOWN) {
            busy |= handOver() > 0;
            runCommands();
            // Wait in the library: it returns what is ready, else sleeps
            // until something is due or a producer ends the wait with
            // wheeltimer_wake(). After a round that took timeouts, linger:
            // sleep at most LINGER_NANOS, and tell producers so. From here
            // on a producer that pushes sees the sleep and wakes us; one
            // that pushed before is seen by hasWork(), and then the wait
            // only reaps. Both are volatile accesses.
            long timeout = busy ? WheelTimer.LINGER_NANOS : -1;
            timer.setSleeping(busy ? timer.nanoTime() + timeout : 0);
            if (timer.hasWork()) {
                timer.setAwake();
                timeout = 0;
            } else {
                busy = false;
                wakeups++;
            }
            int n = Native.waitRecords(ctx, timeout);
            timer.setAwake();
            if (n == -Native.EINTR) {
                // A producer's wake (or a signal): its push is on a stack.
                continue;
            }
            if (n < 0) {
                throw Native.error("wheeltimer_wait", n);
            }
            if (n > 0) {
                runRound(n);
            }
        }
    }

    private void runCommands() {
        FutureTask<?> f;
        while ((f = timer.commands.poll()) != null) {
            f.run();
        }
    }

    /**
     * Hands the pushed cancels, then the pushed adds, to the library.
     * Returns the number of adds queued.
     */
    private int handOver() {
        WheelTimeout adds = timer.takeAdds();
        WheelTimeout cancels = timer.takeCancels();
        int n = 0;
        int total = 0;

        while (cancels != null) {
            WheelTimeout c = cancels;
            cancels = c.nextCancel;
            c.nextCancel = null;
            // No handle: its add is in this batch or a later one, and is
            // skipped there, or it was released when it fired.
            if (c.handle != 0) {
                n = put(n, Native.CANCEL, 0, c.handle, 0, 0, 0, c);
                release(c);
            }
        }
        while (adds != null) {
            WheelTimeout a = adds;
            adds = a.nextAdd;
            a.nextAdd = null;
            // The claim settles a race with stop() (see WheelTimer.schedule).
            if (!a.claim() || a.state() != WheelTimeout.ST_INIT) {
                continue;
            }
            int slot = allocate(a);
            if (a.period == 0) {
                n = put(n, Native.ADD, Native.ABSTIME, a.deadline, 0, a.slack, slot, a);
            } else {
                n = put(n, Native.ADD_PERIODIC, Native.ABSTIME | a.mode, a.deadline,
                        a.period, a.slack, slot, a);
            }
            total++;
        }
        flush(n);
        return total;
    }

    private int put(int n, long kind, long flags, long arg, long period, long slack,
                    long cookie, WheelTimeout owner) {
        int off = n * Native.OP_WORDS * Long.BYTES;
        ops.putLong(off + Native.OP_KIND * Long.BYTES, kind);
        ops.putLong(off + Native.OP_FLAGS * Long.BYTES, flags);
        ops.putLong(off + Native.OP_ARG * Long.BYTES, arg);
        ops.putLong(off + Native.OP_PERIOD * Long.BYTES, period);
        ops.putLong(off + Native.OP_SLACK * Long.BYTES, slack);
        ops.putLong(off + Native.OP_COOKIE * Long.BYTES, cookie);
        opOwner[n] = owner;
        if (++n == opsMax) {
            flush(n);
            return 0;
        }
        return n;
    }

    /** Queues the first {@code n} operations with the library and reads their outcomes. */
    private void flush(int n) {
        if (n == 0) {
            return;
        }
        int res = Native.apply(ctx, n);
        if (res < 0) {
            throw Native.error("apply", res);
        }
        for (int i = 0; i < n; i++) {
            int off = i * Native.OP_WORDS * Long.BYTES;
            long kind = ops.getLong(off + Native.OP_KIND * Long.BYTES);
            long err = ops.getLong(off + Native.OP_RES * Long.BYTES);
            WheelTimeout t = opOwner[i];
            opOwner[i] = null;
            if (kind == Native.CANCEL) {
                if (err < 0) {
                    WheelTimer.LOG.log(Level.ERROR, "wheeltimer_cancel: {0}",
                                       Native.strerror((int) err));
                }
            } else if (err < 0) {
                refuse(t, (int) err);
            } else {
                t.handle = ops.getLong(off + Native.OP_HANDLE * Long.BYTES);
            }
        }
    }

    /** Reaps until the engine has nothing ready, then runs what fired; returns the records. */
    private int reapAll() {
        int n = Native.reap(ctx);
        if (n < 0) {
            throw Native.error("wheeltimer_reap", n);
        }
        return runRound(n);
    }

    /**
     * Runs one round: the {@code n} records in the events buffer (from a
     * reap or a wait) and, if they filled it, those that more reaps find
     * until the engine has nothing ready, in deadline order (see Ready).
     * Returns the records read.
     */
    private int runRound(int n) {
        int max = Native.eventsMax();
        ready.read(events, n);
        while (n == max) {
            n = Native.reap(ctx);
            if (n < 0) {
                throw Native.error("wheeltimer_reap", n);
            }
            ready.read(events, n);
        }
        int total = ready.count();
        ready.sort();
        for (int i = 0; i < total; i++) {
            dispatch(i);
        }
        ready.clear();
        return total;
    }

    private void dispatch(int i) {
        long cookie = ready.cookie(i);
        int flags = ready.flags(i);
        WheelTimeout t = cookie >= 0 && cookie < nextSlot ? slots[(int) cookie] : null;
        if (t == null || t.handle != ready.handle(i)) {
            WheelTimer.LOG.log(Level.ERROR, "a wheeltimer record for no timeout (cookie {0})", cookie);
            return;
        }
        if ((flags & (Native.EV_ADD | Native.EV_MODIFY | Native.EV_CANCEL)) != 0) {
            // Only a failed add can come: this binding neither modifies nor asks for NOTIFY.
            refuse(t, ready.res(i));
            return;
        }
        fired++;
        boolean last = (flags & Native.EV_FINAL) != 0;
        if (t.period == 0) {
            release(t);
            if (t.expire()) {
                timer.decrementPending();
                run(t);
            }
            return;
        }
        if (!t.startRun(ready.overruns(i))) {
            // Cancelled since: stop the engine re-arming it, now.
            if (!last) {
                put(0, Native.CANCEL, 0, t.handle, 0, 0, 0, t);
                flush(1);
            }
            release(t);
            return;
        }
        if (last) {
            release(t);
        }
        run(t);
        if (t.endRun(last) && last) {
            timer.decrementPending();
        }
    }

    private void run(WheelTimeout t) {
        tasksRun++;
        try {
            t.task().run(t);
        } catch (Throwable e) {
            taskFailures++;
            WheelTimer.LOG.log(Level.WARNING,
                    "An exception was thrown by " + TimerTask.class.getSimpleName() + ".", e);
        }
    }

    /** The engine would not take {@code t}: it is cancelled by the timer. */
    private void refuse(WheelTimeout t, int err) {
        release(t);
        if (t.refuse()) {
            timer.decrementPending();
            refused++;
            WheelTimer.LOG.log(Level.WARNING, "the wheeltimer engine refused a timeout ({0}): "
                               + "it is cancelled: {1}", Native.strerror(err), t);
        }
    }

    private int allocate(WheelTimeout t) {
        int slot;
        if (freeTop > 0) {
            slot = free[--freeTop];
        } else {
            slot = nextSlot++;
            if (slot == slots.length) {
                WheelTimeout[] more = new WheelTimeout[slots.length * 2];
                System.arraycopy(slots, 0, more, 0, slots.length);
                slots = more;
            }
        }
        slots[slot] = t;
        t.slot = slot;
        return slot;
    }

    private void release(WheelTimeout t) {
        if (t.slot >= 0) {
            slots[t.slot] = null;
            if (freeTop == free.length) {
                int[] more = new int[free.length * 2];
                System.arraycopy(free, 0, more, 0, free.length);
                free = more;
            }
            free[freeTop++] = t.slot;
            t.slot = -1;
        }
        t.handle = 0;
    }

    /** On a virtual clock: advance, then run everything due, until nothing more is. */
    long advance(long nanos) {
        handOver();
        int res = Native.advance(ctx, nanos, 0, scratch);
        if (res < 0) {
            throw Native.error("wheeltimer_advance", res);
        }
        timer.virtualNow = scratch[0];
        long before = fired;
        int records;
        int handed;
        do {
            records = reapAll();
            handed = handOver();
            // A virtual clock's engine finds what the tasks added, due by
            // now, at its next advance: make it one of 0 ns.
            if (handed > 0) {
                res = Native.advance(ctx, 0, 0, scratch);
                if (res < 0) {
                    throw Native.error("wheeltimer_advance", res);
                }
            }
        } while (records > 0 || handed > 0);
        return fired - before;
    }

    WheelTimerStats stats() {
        handOver();
        int res = Native.submit(ctx);
        if (res < 0) {
            throw Native.error("wheeltimer_submit", res);
        }
        long[] s = new long[Native.statsWords()];
        res = Native.stats(ctx, s);
        if (res < 0) {
            throw Native.error("wheeltimer_stats", res);
        }
        return new WheelTimerStats(timer.engine(), s[1], s[2], s[4], s[7], s[9], s[11],
                                   s[12], s[13], s[14], s[16], s[17], s[20],
                                   timer.pendingTimeouts(), tasksRun, taskFailures, refused,
                                   wakeups);
    }

    int tid() {
        return tid;
    }

    /**
     * After the loop: cancel what is still pending and collect it for
     * stop(), fail the commands left, close the engine. Each timeout is
     * cancelled by the compare-and-set that cancel() makes, so one that a
     * caller cancels meanwhile is the caller's, not stop()'s.
     */
    private void shutdown() {
        for (WheelTimeout a = timer.takeAdds(); a != null; ) {
            WheelTimeout next = a.nextAdd;
            a.nextAdd = null;
            if (a.claim()) {
                stopCancel(a);
            }
            a = next;
        }
        timer.takeCancels();
        for (int i = 0; i < nextSlot; i++) {
            WheelTimeout t = slots[i];
            if (t != null) {
                stopCancel(t);
            }
            slots[i] = null;
        }
        FutureTask<?> f;
        while ((f = timer.commands.poll()) != null) {
            f.cancel(false);
        }
        timer.closeNative();
    }

    /** Cancels {@code t} for stop(), unless it ran, is running or was cancelled. */
    private void stopCancel(WheelTimeout t) {
        if (t.cancelOnStop()) {
            timer.decrementPending();
            unprocessed.add(t);
        }
    }

    Set<Timeout> unprocessed() {
        return Collections.unmodifiableSet(unprocessed);
    }
}
