// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * TapMain.java - runs the JUnit 5 suite through the JUnit Platform
 * launcher and reports it as TAP, the way make check counts tests
 */
package org.wheeltimer.test;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectPackage;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.EngineFilter;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * {@code TapMain [--unit NAME] [--class FQCN]...}: runs the Jupiter tests of
 * the named classes (default: every class of this package, and
 * org.wheeltimer.HandOverTest and FarHoldTest) and prints
 * "# unit: NAME", one TAP line per test ("ok", "not ok" with the failure
 * as comments, "ok ... # SKIP" for a test that was disabled or whose
 * assumption did not hold) and a kselftest "# Totals:" line, which
 * tools/ksft-summary counts. Exits 1 if a test or a class failed.
 */
public final class TapMain {
    private TapMain() {
    }

    public static void main(String[] args) {
        String unit = "java/suite";
        List<DiscoverySelector> selectors = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
            case "--unit" -> unit = args[++i];
            case "--class" -> selectors.add(selectClass(args[++i]));
            default -> {
                System.err.println("usage: TapMain [--unit NAME] [--class FQCN]...");
                System.exit(2);
            }
            }
        }
        if (selectors.isEmpty()) {
            selectors.add(selectPackage(TapMain.class.getPackageName()));
            // The binding's own package: tests of its package-private parts.
            selectors.add(selectClass("org.wheeltimer.HandOverTest"));
            selectors.add(selectClass("org.wheeltimer.FarHoldTest"));
            selectors.add(selectClass("org.wheeltimer.WorkerTest"));
        }
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectors)
                .filters(EngineFilter.includeEngines("junit-jupiter"))
                .build();
        Launcher launcher = LauncherFactory.create();
        Tap tap = new Tap(unit);
        launcher.execute(request, tap);
        System.out.flush();
        System.exit(tap.failed == 0 && tap.passed > 0 ? 0 : 1);
    }

    /** Prints each finished test as it ends. */
    private static final class Tap implements TestExecutionListener {
        private final String unit;
        private TestPlan plan;
        private int n;
        private int passed;
        private int failed;
        private int skipped;
        private long start;

        Tap(String unit) {
            this.unit = unit;
        }

        @Override
        public void testPlanExecutionStarted(TestPlan testPlan) {
            plan = testPlan;
            start = System.nanoTime();
            System.out.println("# unit: " + unit);
            System.out.println("TAP version 13");
        }

        private String name(TestIdentifier id) {
            Optional<TestIdentifier> parent = plan.getParent(id);
            String p = parent.map(TestIdentifier::getDisplayName).orElse("");
            return (p.isEmpty() ? "" : p + ": ") + id.getDisplayName();
        }

        @Override
        public void executionSkipped(TestIdentifier id, String reason) {
            if (id.isTest()) {
                skipped++;
                System.out.println("ok " + ++n + " " + name(id) + " # SKIP " + reason);
            }
        }

        @Override
        public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            if (!id.isTest() && result.getStatus() != TestExecutionResult.Status.FAILED) {
                return;
            }
            switch (result.getStatus()) {
            case SUCCESSFUL -> {
                passed++;
                System.out.println("ok " + ++n + " " + name(id));
            }
            case ABORTED -> {
                skipped++;
                String why = result.getThrowable().map(Throwable::getMessage).orElse("aborted");
                System.out.println("ok " + ++n + " " + name(id) + " # SKIP " + why);
            }
            default -> {
                failed++;
                result.getThrowable().ifPresent(TapMain::comment);
                System.out.println("not ok " + ++n + " " + name(id));
            }
            }
        }

        @Override
        public void testPlanExecutionFinished(TestPlan testPlan) {
            System.out.println("1.." + n);
            System.out.printf("# %s: %d tests in %.1f s%n", unit, n,
                              (System.nanoTime() - start) / 1e9);
            System.out.printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:%d error:0%n",
                              passed, failed, skipped);
        }
    }

    private static void comment(Throwable t) {
        StringWriter w = new StringWriter();
        t.printStackTrace(new PrintWriter(w));
        int lines = 0;
        for (String line : w.toString().split("\n")) {
            System.out.println("# " + line);
            if (++lines == 30) {
                System.out.println("# ...");
                break;
            }
        }
    }
}
