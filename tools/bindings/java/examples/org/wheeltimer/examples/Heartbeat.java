// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Heartbeat.java - a fixed-rate heartbeat, and a peer's liveness watched
 * by a timeout re-armed at each beat
 */
package org.wheeltimer.examples;

import io.netty.util.Timeout;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.wheeltimer.WheelTimeout;
import org.wheeltimer.WheelTimer;

/**
 * Two sides of a heartbeat, on the real clock. The sender beats every
 * 20 ms with {@link WheelTimer#scheduleAtFixedRate}: the engine re-arms
 * the timeout itself, without a call per beat, and a late beat is counted
 * as overruns rather than making up a burst. The receiver watches the
 * peer as Netty's {@code IdleStateHandler} does, with a one-shot timeout of
 * five periods that each beat cancels and arms again; it fires only once
 * the beats stop. Every claim holds at any speed: a beat never comes
 * before its time, every period is either beaten or counted as an overrun,
 * no beat follows the cancel, and a missed-peer alarm always follows a
 * real gap of five periods.
 */
public final class Heartbeat {
    private static final long PERIOD_MS = 20;
    private static final long IDLE_MS = 5 * PERIOD_MS;
    private static final int BEATS = 40;

    private Heartbeat() {
    }

    /** The receiver: a liveness timeout re-armed by each beat. */
    private static final class Watcher {
        private final WheelTimer timer;
        private volatile Timeout idle;
        private volatile long lastBeat;
        final List<Long> alarms = new CopyOnWriteArrayList<>();
        final List<Long> gapsAtAlarm = new CopyOnWriteArrayList<>();
        final CountDownLatch alarmed = new CountDownLatch(1);

        Watcher(WheelTimer timer) {
            this.timer = timer;
        }

        /** On each beat, from the timer's worker. */
        void beat() {
            lastBeat = System.nanoTime();
            Timeout old = idle;
            if (old != null) {
                old.cancel();
            }
            idle = timer.newTimeout(t -> {
                long now = System.nanoTime();
                alarms.add(now);
                gapsAtAlarm.add(now - lastBeat);
                alarmed.countDown();
            }, IDLE_MS, TimeUnit.MILLISECONDS);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Check check = Check.of(args, "java/example-heartbeat");
        WheelTimer timer = new WheelTimer();
        Watcher watcher = new Watcher(timer);
        List<Long> at = new CopyOnWriteArrayList<>();
        List<Long> periodsAt = new CopyOnWriteArrayList<>();
        List<Long> skippedAt = new CopyOnWriteArrayList<>();
        AtomicInteger beats = new AtomicInteger();
        CountDownLatch enough = new CountDownLatch(BEATS);
        long period = TimeUnit.MILLISECONDS.toNanos(PERIOD_MS);
        try {
            long start = System.nanoTime();
            WheelTimeout heart = timer.scheduleAtFixedRate(t -> {
                WheelTimeout self = (WheelTimeout) t;
                at.add(System.nanoTime());
                // The deadline of this run is that of period number
                // runs + overruns - lastOverruns (counting from 1); the
                // lastOverruns periods after it were skipped.
                periodsAt.add(self.runs() + self.overruns() - self.lastOverruns());
                skippedAt.add(self.lastOverruns());
                beats.incrementAndGet();
                watcher.beat();
                enough.countDown();
            }, PERIOD_MS, PERIOD_MS, TimeUnit.MILLISECONDS);
            check.that(enough.await(120, TimeUnit.SECONDS), BEATS + " beats");
            check.that(heart.cancel(), "the heartbeat is cancelled");
            int afterCancel = beats.get();
            check.that(watcher.alarmed.await(120, TimeUnit.SECONDS),
                       "the watcher raises the alarm once the beats stop");
            check.that(beats.get() == afterCancel, "no beat after the cancel");

            boolean early = false;
            boolean lost = false;
            long expected = 1;
            for (int i = 0; i < at.size(); i++) {
                long k = periodsAt.get(i);
                early |= at.get(i) < start + k * period;
                lost |= k != expected;
                expected = k + skippedAt.get(i) + 1;
            }
            Check.note("%d beats over %d periods (%d overruns), %d alarm(s)", at.size(),
                       expected - 1, heart.overruns(), watcher.alarms.size());
            check.that(!early, "no beat before its period's deadline");
            check.that(!lost && expected - 1 == heart.runs() + heart.overruns(),
                       "every period is beaten or counted as an overrun, in order");
            boolean falseAlarm = false;
            for (long gap : watcher.gapsAtAlarm) {
                falseAlarm |= gap < TimeUnit.MILLISECONDS.toNanos(IDLE_MS);
            }
            check.that(!falseAlarm, "every alarm came at least 100 ms after the last beat");
            check.that(timer.pendingTimeouts() == 0, "nothing pending at the end");
        } finally {
            timer.stop();
        }
        check.finish();
    }
}
