// SPDX-License-Identifier: GPL-2.0
/*
 * DebExample.java - what make check-deb runs against the unpacked
 * libwheeltimer-java: the jar, found by its class path alone, finds its JNI
 * library with no option, and both of its classes work.
 */
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.wheeltimer.WheelScheduledExecutor;
import org.wheeltimer.WheelTimer;

public final class DebExample {
    private DebExample() {
    }

    public static void main(String[] args) throws Exception {
        WheelTimer timer = new WheelTimer();
        CountDownLatch fired = new CountDownLatch(1);
        long start = System.nanoTime();
        timer.newTimeout(t -> fired.countDown(), 5, TimeUnit.MILLISECONDS);
        boolean timerOk = fired.await(60, TimeUnit.SECONDS)
                && System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(5);
        String engine = timer.engine().name().toLowerCase(java.util.Locale.ROOT);
        timer.stop();

        WheelScheduledExecutor executor = new WheelScheduledExecutor(1);
        ScheduledFuture<String> f = executor.schedule(() -> "ran", 5, TimeUnit.MILLISECONDS);
        boolean executorOk = "ran".equals(f.get(60, TimeUnit.SECONDS));
        executor.shutdown();
        executorOk &= executor.awaitTermination(60, TimeUnit.SECONDS);

        String version = WheelTimer.class.getPackage().getImplementationVersion();
        System.out.println("deb-example-java: wheeltimer " + version + " on the " + engine
                           + " engine: " + (timerOk && executorOk ? "ok" : "FAILED"));
        System.exit(timerOk && executorOk ? 0 : 1);
    }
}
