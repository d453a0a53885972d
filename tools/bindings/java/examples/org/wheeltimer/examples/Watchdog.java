// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Watchdog.java - a Redisson-style lock watchdog: a lease renewed every
 * leaseTime / 3 by a task that re-submits itself
 */
package org.wheeltimer.examples;

import io.netty.util.Timeout;
import io.netty.util.Timer;
import io.netty.util.TimerTask;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.wheeltimer.WheelTimer;

/**
 * Redisson's {@code RLock} holds a lock in Redis with a 30 s lease, and
 * while its holder lives a watchdog renews the lease every 10 s: a
 * {@code HashedWheelTimer} task that renews, then schedules itself again.
 * If the holder dies, renewals stop and the lease lapses 30 s after the
 * last one, so that another client may take the lock.
 *
 * <p>Here the lock table stands in for Redis, and the timer is a
 * {@link WheelTimer} on a virtual clock: 200 s of leases pass in
 * milliseconds, and every claim below is exact, whatever the machine's
 * speed, because nothing happens between two {@code advance()} calls. The
 * watchdog itself only knows {@link Timer}: it runs unchanged on
 * {@code HashedWheelTimer} or on a WheelTimer on the real clock.
 */
public final class Watchdog {
    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    private static final long LEASE = 30 * SECOND;

    private Watchdog() {
    }

    /** Redis' side: one lease per lock name, on the timer's clock. */
    static final class LockTable {
        private record Lease(String owner, long expiresAt) {
        }

        private final LongSupplier clock;
        private final Map<String, Lease> leases = new HashMap<>();

        LockTable(LongSupplier clock) {
            this.clock = clock;
        }

        synchronized String holder(String name) {
            Lease l = leases.get(name);
            return l != null && clock.getAsLong() < l.expiresAt ? l.owner : null;
        }

        synchronized boolean tryLock(String name, String owner, long lease) {
            String h = holder(name);
            if (h != null && !h.equals(owner)) {
                return false;
            }
            leases.put(name, new Lease(owner, clock.getAsLong() + lease));
            return true;
        }

        /** Redisson's renewal script: extend the lease if {@code owner} still holds it. */
        synchronized boolean renew(String name, String owner, long lease) {
            if (!owner.equals(holder(name))) {
                return false;
            }
            leases.put(name, new Lease(owner, clock.getAsLong() + lease));
            return true;
        }

        synchronized boolean unlock(String name, String owner) {
            return owner.equals(holder(name)) && leases.remove(name) != null;
        }
    }

    /** The watchdog of one held lock. */
    static final class LeaseKeeper implements TimerTask {
        private final Timer timer;
        private final LockTable table;
        private final String name;
        private final String owner;
        private final LongSupplier clock;
        final List<Long> renewals = new ArrayList<>();
        private volatile Timeout next;
        private volatile boolean stopped;

        LeaseKeeper(Timer timer, LockTable table, String name, String owner, LongSupplier clock) {
            this.timer = timer;
            this.table = table;
            this.name = name;
            this.owner = owner;
            this.clock = clock;
        }

        void start() {
            next = timer.newTimeout(this, LEASE / 3, TimeUnit.NANOSECONDS);
        }

        @Override
        public void run(Timeout t) {
            if (stopped || !table.renew(name, owner, LEASE)) {
                return;
            }
            renewals.add(clock.getAsLong());
            next = timer.newTimeout(this, LEASE / 3, TimeUnit.NANOSECONDS);
            // stop() may have cancelled the previous timeout meanwhile.
            if (stopped) {
                next.cancel();
            }
        }

        /** Stops renewing; true if a pending renewal was cancelled. */
        boolean stop() {
            stopped = true;
            return next.cancel();
        }
    }

    public static void main(String[] args) {
        Check check = Check.of(args, "java/example-watchdog");
        WheelTimer timer = WheelTimer.builder().virtualClock(true).build();
        LongSupplier clock = timer::nanoTime;
        LockTable table = new LockTable(clock);
        try {
            // A holds the lock for 95 s of work, its watchdog renewing.
            check.that(table.tryLock("invoice-42", "A", LEASE), "A takes the lock");
            LeaseKeeper a = new LeaseKeeper(timer, table, "invoice-42", "A", clock);
            a.start();
            int lapsed = 0;
            for (int s = 1; s <= 95; s++) {
                timer.advance(1, TimeUnit.SECONDS);
                if (!"A".equals(table.holder("invoice-42"))) {
                    lapsed++;
                }
            }
            check.that(lapsed == 0, "the lease never lapsed while A held the lock (95 s, 30 s lease)");
            List<Long> expected = new ArrayList<>();
            for (int k = 1; k <= 9; k++) {
                expected.add(k * LEASE / 3);
            }
            check.that(a.renewals.equals(expected),
                       "the watchdog renewed every 10 s exactly: at " + seconds(a.renewals));
            check.that(a.stop(), "unlock: the pending renewal is cancelled");
            check.that(table.unlock("invoice-42", "A"), "A unlocks");
            timer.advance(20, TimeUnit.SECONDS);
            check.that(a.renewals.size() == 9, "no renewal after the unlock");

            // B takes it at 115 s, renews at 125 and 135, and dies at 140 s.
            check.that(table.tryLock("invoice-42", "B", LEASE), "B takes the lock at 115 s");
            LeaseKeeper b = new LeaseKeeper(timer, table, "invoice-42", "B", clock);
            b.start();
            for (int s = 1; s <= 25; s++) {
                timer.advance(1, TimeUnit.SECONDS);
            }
            check.that(b.renewals.equals(List.of(125 * SECOND, 135 * SECOND)),
                       "B's watchdog renewed at " + seconds(b.renewals));
            check.that(b.stop(), "B dies: its watchdog stops, the lock is not released");
            // The lease runs out 30 s after the last renewal: at 165 s.
            timer.advance(165 * SECOND - 1 - timer.nanoTime(), TimeUnit.NANOSECONDS);
            check.that("B".equals(table.holder("invoice-42")) && !table.tryLock("invoice-42", "C", LEASE),
                       "1 ns before 165 s the dead B's lease still holds: C is refused");
            timer.advance(1, TimeUnit.NANOSECONDS);
            check.that(table.tryLock("invoice-42", "C", LEASE),
                       "at 165 s, 30 s after B's last renewal, C takes the lock");
            check.that(timer.pendingTimeouts() == 0, "no timeout left behind");
        } finally {
            timer.stop();
        }
        check.finish();
    }

    private static String seconds(List<Long> times) {
        StringBuilder b = new StringBuilder();
        for (long t : times) {
            b.append(b.length() == 0 ? "" : ", ").append(t / (double) SECOND).append(" s");
        }
        return b.toString();
    }
}
