// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Check.java - how the examples state their outcome: one TAP line per
 * claim, and an exit status
 */
package org.wheeltimer.examples;

import java.util.Locale;

/**
 * The examples assert what they show. Each claim prints "ok N ..." or "not
 * ok N ..."; {@link #finish()} prints the kselftest totals that make check
 * counts and exits 1 if a claim failed. With {@code --tap NAME} the output
 * opens with "# unit: NAME"; other lines the examples print are comments.
 */
final class Check {
    private final String unit;
    private int n;
    private int failed;

    private Check(String unit) {
        this.unit = unit;
    }

    /** From the program's arguments: {@code --tap NAME}, or a default name. */
    static Check of(String[] args, String name) {
        String unit = name;
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--tap")) {
                unit = args[i + 1];
            }
        }
        Check c = new Check(unit);
        System.out.println("# unit: " + unit);
        return c;
    }

    void that(boolean holds, String claim) {
        n++;
        if (!holds) {
            failed++;
        }
        System.out.println((holds ? "ok " : "not ok ") + n + " " + claim);
    }

    static void note(String format, Object... args) {
        System.out.println("# " + String.format(Locale.ROOT, format, args));
    }

    void finish() {
        System.out.println("1.." + n);
        System.out.printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0%n",
                          n - failed, failed);
        System.out.flush();
        System.exit(failed == 0 && n > 0 ? 0 : 1);
    }
}
