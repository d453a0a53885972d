// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Native.java - the native methods over libwheeltimer, and how their
 * library is found
 */
package org.wheeltimer;

/**
 * The calls into {@code libwheeltimer_jni.so} (tools/bindings/java/native/).
 *
 * <p>The library is loaded when this class is first used, from the file
 * that the system property {@value #PATH_PROPERTY} names if it is set, else
 * as {@code wheeltimer_jni} from {@code java.library.path} (a file
 * {@code libwheeltimer_jni.so} in one of its directories), else from beside
 * the jar ({@link JniLocator}). It holds libwheeltimer itself and depends
 * on nothing but the C library.
 *
 * <p>Contexts are {@code long} values, the address of the native side's
 * {@code struct wtj}; errors are negative errno values (or libwheeltimer's
 * own codes, above 4000), which {@link #error} turns into exceptions.
 * Every method but {@link #wake} must be called by one thread at a time
 * per context; {@link #wake} is libwheeltimer's {@code wheeltimer_wake()},
 * which any thread may call while another uses the context.
 */
final class Native {
    /** The system property that names the library file, an absolute path. */
    static final String PATH_PROPERTY = "wheeltimer.jni.path";
    /** The library's name for {@link System#loadLibrary}. */
    static final String LIBRARY = "wheeltimer_jni";

    /*
     * Operations, as the worker writes them into a long[] for apply()
     * (WTJ_* in wheeltimer_jni.c): a head word, the kind in the low byte,
     * the library's flags above it (shifted by OP_FLAGS_SHIFT, 24 bits),
     * an add's cookie in the high half (OP_COOKIE_SHIFT), then the kind's
     * arguments. apply() writes one outcome per operation: an add's
     * handle, 0 for a cancel, or for a failure the errno shifted left by
     * 32 (a handle's low half, its index, is never 0).
     */
    static final int OP_FLAGS_SHIFT = 8;
    static final int OP_COOKIE_SHIFT = 32;
    /** A one-shot add without slack: the deadline. */
    static final long OP_ADD = 1;
    /** A one-shot add: the deadline, the slack. */
    static final long OP_ADD_SLACK = 2;
    /** A periodic add: the deadline, the period, the slack. */
    static final long OP_ADD_PERIODIC = 3;
    /** A cancel: the handle. */
    static final long OP_CANCEL = 4;
    /** The most words one operation takes. */
    static final int OP_MAX_WORDS = 4;

    /*
     * Records, as waitRound(), reapRound() and nextChunk() hand them over:
     * libwheeltimer's struct wheeltimer_event, REC_WORDS longs each; the
     * handle, the cookie (the worker's slot), the deadline, the time it fired,
     * the overruns, and the flags with the result in the high half.
     */
    static final int REC_WORDS = 6;
    static final int REC_HANDLE = 0;
    static final int REC_COOKIE = 1;
    static final int REC_DEADLINE = 2;
    static final int REC_OVERRUNS = 4;
    static final int REC_FLAGS_RES = 5;

    /* The long[] of open(). */
    static final int IO_ENGINE = 0;
    static final int IO_RESOLUTION = 1;
    static final int IO_MAX_PENDING = 2;
    static final int IO_CLOCKID = 3;
    static final int IO_FLAGS = 4;
    static final int IO_FEATURES = 5;
    static final int IO_MISSING = 6;
    static final int IO_ERROR = 7;
    static final int IO_WORDS = 8;

    /* libwheeltimer's constants (wheeltimer.h). */
    static final int ENGINE_AUTO = 0;
    static final int ENGINE_KERNEL = 1;
    static final int ENGINE_PROCESS = 2;
    static final long FEATURE_VIRTUAL_CLOCK = 0x1L;
    static final long FEATURE_PERIODIC = 0x2L;
    static final long FEATURE_SLACK = 0x4L;
    static final int PARAM_VIRTUAL = 0x1;
    static final int ABSTIME = 0x1;
    static final int FIXED_RATE = 0x2;
    static final int FIXED_DELAY = 0x4;
    static final int EV_FINAL = 0x100;
    static final int EV_ADD = 0x10000;
    static final int EV_MODIFY = 0x20000;
    static final int EV_CANCEL = 0x40000;
    static final int CLOCK_MONOTONIC = 1;

    /* The errno values the Java side tells apart. */
    static final int EPERM = 1;
    static final int EINTR = 4;
    static final int ENOENT = 2;
    static final int EINVAL = 22;

    static {
        load();
    }

    /*
     * The engine's counters, as stats() copies them into a long[]: each at
     * the index where the JNI library's list of them (statsNames(), the
     * names of struct wheeltimer_stats' fields) puts it, found here once.
     * A counter the library no longer copies fails the class's loading.
     */
    private static final String[] STAT_NAMES = statsNames();
    static final int STAT_WORDS = STAT_NAMES.length;
    static final int STAT_RESOLUTION = stat("resolution_ns");
    static final int STAT_MAX_PENDING = stat("max_pending");
    static final int STAT_LIVE = stat("live");
    static final int STAT_ADDED = stat("added");
    static final int STAT_FIRED = stat("fired");
    static final int STAT_CANCELLED = stat("cancelled");
    static final int STAT_WITHDRAWN = stat("withdrawn");
    static final int STAT_OVERRUNS = stat("overruns");
    static final int STAT_TIMER_PROGRAMS = stat("timer_programs");
    static final int STAT_SUBMITS = stat("submits");
    static final int STAT_SUBMITTED = stat("submitted");
    static final int STAT_READS = stat("reads");

    private static int stat(String name) {
        int i = java.util.Arrays.asList(STAT_NAMES).indexOf(name);
        if (i < 0) {
            throw new UnsatisfiedLinkError("the wheeltimer JNI library copies no counter named "
                                           + name + ": it is not this jar's");
        }
        return i;
    }

    private Native() {
    }

    private static void load() {
        String path = System.getProperty(PATH_PROPERTY);
        try {
            if (path != null && !path.isEmpty()) {
                System.load(path);
            } else {
                System.loadLibrary(LIBRARY);
            }
        } catch (UnsatisfiedLinkError e) {
            // Not on java.library.path: beside the jar, as JniLocator says.
            java.util.List<Throwable> besideJar = new java.util.ArrayList<>();
            if ((path == null || path.isEmpty())
                    && JniLocator.loadBesideJar(Native.class, LIBRARY, besideJar) != null) {
                return;
            }
            UnsatisfiedLinkError wrapped = new UnsatisfiedLinkError(
                    "cannot load the wheeltimer JNI library ("
                    + (path != null && !path.isEmpty()
                       ? PATH_PROPERTY + "=" + path
                       : "lib" + LIBRARY + ".so on java.library.path="
                         + System.getProperty("java.library.path") + " or beside the jar")
                    + "): " + e.getMessage()
                    + "; set -D" + PATH_PROPERTY + "=/path/to/lib" + LIBRARY + ".so");
            wrapped.initCause(e);
            besideJar.forEach(wrapped::addSuppressed);
            throw wrapped;
        }
    }

    /** Makes sure the library is loaded; throws {@link UnsatisfiedLinkError} if it cannot be. */
    static void ensureLoaded() {
        // The static initializer did the work.
    }

    /** An exception for a negative error code of the native side. */
    static WheelTimerException error(String what, long err) {
        int code = (int) -err;
        return new WheelTimerException(what + ": " + strerror(code), code);
    }

    static native long open(long[] io);

    static native void close(long ctx);

    /** The size of the long[] of {@link #apply}, in words. */
    static native int opsWords();

    /** The most operations one {@link #apply} takes. */
    static native int opsMax();

    /** The most records one chunk of a round holds (its long[] has REC_WORDS per record). */
    static native int chunkRecords();

    /**
     * Queues the operations in the first {@code words} words of {@code ops}
     * with the library (no system call unless its queue fills) and writes
     * their outcomes into {@code results}, one per operation. Returns the
     * number of operations, or {@code -EINVAL} for a malformed one (those
     * before it were queued).
     */
    static native int apply(long ctx, long[] ops, int words, long[] results);

    static native int submit(long ctx);

    /**
     * {@code wheeltimer_wait()}: submits, then waits up to {@code timeoutNanos}
     * (negative: for ever; 0: not at all) for records. The round is every
     * record then ready: reaped to the last, put in deadline order, and
     * handed over in chunks; this returns the first chunk's size, 0 when
     * the time passed, {@code -EINTR} when {@link #wake} came first (or a
     * signal). {@link #nextChunk} hands over the rest.
     */
    static native int waitRound(long ctx, long timeoutNanos, long[] records);

    /** As {@link #waitRound}, without waiting: 0 if nothing is ready. */
    static native int reapRound(long ctx, long[] records);

    /** The next chunk of the round: its size, 0 once the round is over. */
    static native int nextChunk(long ctx, long[] records);

    /** {@code wheeltimer_wake()}, from any thread: ends {@link #waitRound}, or the next one. */
    static native int wake(long ctx);

    static native int advance(long ctx, long time, int flags, long[] out);

    static native int now(long ctx, long[] out);

    /** The engine's counters into {@code out}, {@link #STAT_WORDS} long, each at its {@code STAT_*} index. */
    static native int stats(long ctx, long[] out);

    /** The names of the counters {@link #stats} copies, in its order. */
    static native String[] statsNames();

    static native int engine(long ctx);

    static native long features(long ctx);

    static native String strerror(int err);

    static native long clock(int clockid);

    static native int gettid();
}
