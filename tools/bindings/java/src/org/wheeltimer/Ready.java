// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Ready.java - the records one round of reaping returned, put in
 * deadline order
 */
package org.wheeltimer;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The worker's copy of the records it reaped in one round, so that it runs
 * their tasks in deadline order. libwheeltimer hands out records in the
 * order of their ticks, but those of one tick in no particular order: two
 * deadlines within one resolution, or within one slack, may come either
 * way. Sorted here, a late worker runs them in deadline order, as one that
 * was on time would have. Ties keep the engine's order. (HashedWheelTimer
 * runs the timeouts of one tick in the order they were scheduled.)
 */
final class Ready {
    private long[] deadline = new long[64];
    private long[] cookie = new long[64];
    private long[] handle = new long[64];
    private long[] overruns = new long[64];
    private int[] flags = new int[64];
    private int[] res = new int[64];
    private int[] order = new int[64];
    private int[] scratch = new int[64];
    private int count;

    int count() {
        return count;
    }

    void clear() {
        count = 0;
    }

    /** Appends the first {@code n} records of the events buffer. */
    void read(ByteBuffer events, int n) {
        if (count + n > deadline.length) {
            int cap = Math.max(deadline.length * 2, count + n);
            deadline = Arrays.copyOf(deadline, cap);
            cookie = Arrays.copyOf(cookie, cap);
            handle = Arrays.copyOf(handle, cap);
            overruns = Arrays.copyOf(overruns, cap);
            flags = Arrays.copyOf(flags, cap);
            res = Arrays.copyOf(res, cap);
            order = Arrays.copyOf(order, cap);
            scratch = Arrays.copyOf(scratch, cap);
        }
        for (int i = 0; i < n; i++) {
            int off = i * Native.EVENT_SIZE;
            int k = count++;
            handle[k] = events.getLong(off + Native.EV_HANDLE);
            cookie[k] = events.getLong(off + Native.EV_COOKIE);
            deadline[k] = events.getLong(off + Native.EV_DEADLINE);
            overruns[k] = events.getLong(off + Native.EV_OVERRUNS);
            flags[k] = events.getInt(off + Native.EV_FLAGS);
            res[k] = events.getInt(off + Native.EV_RES);
        }
    }

    /** Puts the records in deadline order (a stable sort, skipped when they already are). */
    void sort() {
        boolean sorted = true;
        for (int i = 0; i < count; i++) {
            order[i] = i;
            if (i > 0 && deadline[i] < deadline[i - 1]) {
                sorted = false;
            }
        }
        if (!sorted) {
            mergeSort(0, count);
        }
    }

    private void mergeSort(int from, int to) {
        if (to - from < 2) {
            return;
        }
        int mid = (from + to) >>> 1;
        mergeSort(from, mid);
        mergeSort(mid, to);
        int i = from;
        int j = mid;
        int k = from;
        while (i < mid && j < to) {
            scratch[k++] = deadline[order[j]] < deadline[order[i]] ? order[j++] : order[i++];
        }
        while (i < mid) {
            scratch[k++] = order[i++];
        }
        while (j < to) {
            scratch[k++] = order[j++];
        }
        System.arraycopy(scratch, from, order, from, to - from);
    }

    /* The i-th record in deadline order. */

    long cookie(int i) {
        return cookie[order[i]];
    }

    long handle(int i) {
        return handle[order[i]];
    }

    long overruns(int i) {
        return overruns[order[i]];
    }

    int flags(int i) {
        return flags[order[i]];
    }

    int res(int i) {
        return res[order[i]];
    }
}
