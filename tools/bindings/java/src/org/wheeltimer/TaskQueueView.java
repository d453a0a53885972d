// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * TaskQueueView.java - WheelScheduledExecutor's getQueue(): the tasks
 * waiting, in the wheel and in the pool's queue, in deadline order
 */
package org.wheeltimer;

import java.util.AbstractQueue;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A view, not a queue of its own: the delayed and periodic tasks waiting
 * in the timer's wheel for their time, and the due ones queued for a
 * thread, in deadline order. Removing a task cancels it
 * ({@link WheelScheduledExecutor#remove}); the view takes no task and
 * waits for none.
 */
final class TaskQueueView extends AbstractQueue<Runnable> implements BlockingQueue<Runnable> {
    private final WheelScheduledExecutor executor;

    TaskQueueView(WheelScheduledExecutor executor) {
        this.executor = executor;
    }

    /** Cheap: no lock, no walk (see WheelScheduledExecutor.queuedTasks()). */
    @Override
    public int size() {
        return executor.queuedTasks();
    }

    @Override
    public boolean isEmpty() {
        return size() == 0;
    }

    /** A snapshot, in deadline order; its {@code remove()} cancels the task. */
    @Override
    public Iterator<Runnable> iterator() {
        Iterator<WheelScheduledFuture<?>> it = executor.queuedSnapshot().iterator();
        return new Iterator<>() {
            private Runnable last;

            @Override
            public boolean hasNext() {
                return it.hasNext();
            }

            @Override
            public Runnable next() {
                last = it.next();
                return last;
            }

            @Override
            public void remove() {
                if (last == null) {
                    throw new IllegalStateException();
                }
                executor.remove(last);
                last = null;
            }
        };
    }

    @Override
    public boolean contains(Object o) {
        return executor.isQueued(o);
    }

    /** Cancels {@code o} if it waits: as {@link WheelScheduledExecutor#remove}. */
    @Override
    public boolean remove(Object o) {
        return o instanceof Runnable r && executor.remove(r);
    }

    /** The earliest task waiting, or null. */
    @Override
    public Runnable peek() {
        List<WheelScheduledFuture<?>> all = executor.queuedSnapshot();
        return all.isEmpty() ? null : all.get(0);
    }

    /** Cancels the earliest task waiting and returns it, or null. */
    @Override
    public Runnable poll() {
        for (Runnable r : executor.queuedSnapshot()) {
            if (executor.remove(r)) {
                return r;
            }
        }
        return null;
    }

    /** Cancels every task waiting. */
    @Override
    public void clear() {
        for (Runnable r : executor.queuedSnapshot()) {
            executor.remove(r);
        }
    }

    /** Cancels the tasks waiting and adds them to {@code c}, earliest first. */
    @Override
    public int drainTo(Collection<? super Runnable> c) {
        return drainTo(c, Integer.MAX_VALUE);
    }

    @Override
    public int drainTo(Collection<? super Runnable> c, int maxElements) {
        Objects.requireNonNull(c, "c");
        if (c == this) {
            throw new IllegalArgumentException("drainTo itself");
        }
        int n = 0;
        for (Runnable r : executor.queuedSnapshot()) {
            if (n >= maxElements) {
                break;
            }
            if (executor.remove(r)) {
                c.add(r);
                n++;
            }
        }
        return n;
    }

    /** The delayed tasks the timer still takes ({@code maxPendingTimeouts} less those pending). */
    @Override
    public int remainingCapacity() {
        return executor.remainingDelayedCapacity();
    }

    /** Tasks are given to the executor, not to its queue. */
    @Override
    public boolean offer(Runnable r) {
        throw new UnsupportedOperationException("a view of the executor's tasks: schedule() them");
    }

    @Override
    public boolean offer(Runnable r, long timeout, TimeUnit unit) {
        return offer(r);
    }

    @Override
    public void put(Runnable r) {
        offer(r);
    }

    /** A view waits for no task. */
    @Override
    public Runnable take() {
        throw new UnsupportedOperationException("a view of the executor's tasks waits for none");
    }

    @Override
    public Runnable poll(long timeout, TimeUnit unit) {
        return take();
    }
}
