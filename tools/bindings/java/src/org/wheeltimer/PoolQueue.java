// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * PoolQueue.java - WheelScheduledExecutor's pool queue: due tasks waiting
 * for a thread, which the timer's worker adds a chunk at a time
 */
package org.wheeltimer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.AbstractQueue;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An unbounded FIFO blocking queue under one lock, whose elements lie in
 * an array: the timer's worker adds the due tasks of a chunk of its round
 * with one {@link #offerAll}, so that the pool's threads take them at the
 * cost of a lock they mostly have to themselves, where a
 * LinkedBlockingQueue moved its count and a new node between the two
 * cores for every task. Its iterator is a snapshot, whose {@code remove}
 * removes the element it returned if it is still queued.
 */
final class PoolQueue extends AbstractQueue<Runnable> implements BlockingQueue<Runnable> {
    private static final VarHandle COUNT;

    static {
        try {
            COUNT = MethodHandles.lookup().findVarHandle(PoolQueue.class, "count", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** An emptied array above this many slots is let go, so that a burst's leaves with it. */
    private static final int KEPT_SLOTS = 4096;

    /** Guards tasks and slots; notEmpty is signalled for each task added. */
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition notEmpty = lock.newCondition();
    private ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    /** The most tasks queued at once since the array was made. */
    private int slots;
    /**
     * tasks.size(), written under the lock (a release store: no fence on
     * the pool's take), read by size() without it, as monitoring does.
     */
    @SuppressWarnings("unused")
    private int count;

    /** Adds {@code r[from]} to {@code r[to - 1]}, in order, under one lock. */
    void offerAll(Runnable[] r, int from, int to) {
        if (from == to) {
            return;
        }
        lock.lock();
        try {
            for (int i = from; i < to; i++) {
                tasks.addLast(Objects.requireNonNull(r[i]));
            }
            COUNT.setRelease(this, tasks.size());
            slots = Math.max(slots, tasks.size());
            if (to - from > 1) {
                notEmpty.signalAll();
            } else {
                notEmpty.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean offer(Runnable r) {
        Objects.requireNonNull(r);
        lock.lock();
        try {
            tasks.addLast(r);
            COUNT.setRelease(this, tasks.size());
            slots = Math.max(slots, tasks.size());
            notEmpty.signal();
        } finally {
            lock.unlock();
        }
        return true;
    }

    @Override
    public void put(Runnable r) {
        offer(r);
    }

    @Override
    public boolean offer(Runnable r, long timeout, TimeUnit unit) {
        return offer(r);
    }

    @Override
    public Runnable take() throws InterruptedException {
        lock.lockInterruptibly();
        try {
            Runnable r;
            while ((r = first()) == null) {
                notEmpty.await();
            }
            return r;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Runnable poll(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lockInterruptibly();
        try {
            Runnable r;
            while ((r = first()) == null) {
                if (nanos <= 0L) {
                    return null;
                }
                nanos = notEmpty.awaitNanos(nanos);
            }
            return r;
        } finally {
            lock.unlock();
        }
    }

    /** Takes the first task, or null; the lock held. */
    private Runnable first() {
        Runnable r = tasks.pollFirst();
        if (r == null) {
            return null;
        }
        COUNT.setRelease(this, tasks.size());
        if (slots > KEPT_SLOTS && tasks.isEmpty()) {
            tasks = new ArrayDeque<>();
            slots = 0;
        }
        return r;
    }

    @Override
    public Runnable poll() {
        lock.lock();
        try {
            return first();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Runnable peek() {
        lock.lock();
        try {
            return tasks.peekFirst();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int size() {
        return (int) COUNT.getAcquire(this);
    }

    @Override
    public int remainingCapacity() {
        return Integer.MAX_VALUE;
    }

    @Override
    public boolean remove(Object o) {
        if (o == null) {
            return false;
        }
        lock.lock();
        try {
            boolean removed = tasks.removeFirstOccurrence(o);
            COUNT.setRelease(this, tasks.size());
            return removed;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public boolean contains(Object o) {
        if (o == null) {
            return false;
        }
        lock.lock();
        try {
            return tasks.contains(o);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void clear() {
        lock.lock();
        try {
            tasks.clear();
            COUNT.setRelease(this, 0);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Object[] toArray() {
        lock.lock();
        try {
            return tasks.toArray();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public <T> T[] toArray(T[] a) {
        lock.lock();
        try {
            return tasks.toArray(a);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int drainTo(Collection<? super Runnable> c) {
        return drainTo(c, Integer.MAX_VALUE);
    }

    @Override
    public int drainTo(Collection<? super Runnable> c, int max) {
        Objects.requireNonNull(c);
        if (c == this) {
            throw new IllegalArgumentException("drainTo itself");
        }
        lock.lock();
        try {
            int n = 0;
            for (Runnable r; n < max && (r = first()) != null; n++) {
                c.add(r);
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public Iterator<Runnable> iterator() {
        Object[] snapshot = toArray();
        return new Iterator<>() {
            private int next;
            private Runnable last;

            @Override
            public boolean hasNext() {
                return next < snapshot.length;
            }

            @Override
            public Runnable next() {
                if (next >= snapshot.length) {
                    throw new NoSuchElementException();
                }
                last = (Runnable) snapshot[next++];
                return last;
            }

            @Override
            public void remove() {
                if (last == null) {
                    throw new IllegalStateException();
                }
                PoolQueue.this.remove(last);
                last = null;
            }
        };
    }
}
