// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Tap.java - the test's results as TAP, as make check counts them
 */
package org.wheeltimer.scheduler.test;

import java.util.List;

/**
 * One "# unit: NAME" of TAP lines: each check an "ok" or "not ok" with
 * what went wrong as comments, then a kselftest "# Totals:" line, which
 * tools/ksft-summary counts.
 */
final class Tap {
    private final String unit;
    private int n;
    private int failed;

    Tap(String unit) {
        this.unit = unit;
        System.out.println("# unit: " + unit);
        System.out.flush();
    }

    /** A check: passed if {@code problems} is empty; the first few are printed. */
    void check(String what, List<String> problems) {
        n++;
        if (problems.isEmpty()) {
            System.out.println("ok " + n + " " + unit + ": " + what);
        } else {
            failed++;
            System.out.println("not ok " + n + " " + unit + ": " + what);
            problems.stream().limit(15).forEach(p -> System.out.println("#   " + p));
            if (problems.size() > 15) {
                System.out.println("#   ... and " + (problems.size() - 15) + " more");
            }
        }
        System.out.flush();
    }

    void check(String what, boolean ok, String problem) {
        check(what, ok ? List.of() : List.of(problem));
    }

    void note(String s) {
        System.out.println("# " + s);
        System.out.flush();
    }

    /** Ends the unit; whether every check passed. */
    boolean finish() {
        System.out.println("# Totals: pass:" + (n - failed) + " fail:" + failed + " xfail:0 xpass:0 skip:0 error:0");
        System.out.flush();
        return failed == 0 && n > 0;
    }
}
