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

    /* Operations: WTJ_* in wheeltimer_jni.c. */
    static final int OP_WORDS = 8;
    static final int OP_KIND = 0;
    static final int OP_FLAGS = 1;
    static final int OP_ARG = 2;
    static final int OP_PERIOD = 3;
    static final int OP_SLACK = 4;
    static final int OP_COOKIE = 5;
    static final int OP_RES = 6;
    static final int OP_HANDLE = 7;
    static final long ADD = 1;
    static final long ADD_PERIODIC = 2;
    static final long CANCEL = 3;

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

    /* struct wheeltimer_event, as the events buffer holds it. */
    static final int EVENT_SIZE = 48;
    static final int EV_HANDLE = 0;
    static final int EV_COOKIE = 8;
    static final int EV_DEADLINE = 16;
    static final int EV_FIRED_AT = 24;
    static final int EV_OVERRUNS = 32;
    static final int EV_FLAGS = 40;
    static final int EV_RES = 44;

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

    static {
        load();
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

    static native java.nio.ByteBuffer opsBuffer(long ctx);

    static native java.nio.ByteBuffer eventsBuffer(long ctx);

    static native int opsMax();

    static native int eventsMax();

    static native int apply(long ctx, int n);

    static native int submit(long ctx);

    static native int reap(long ctx);

    /**
     * {@code wheeltimer_wait()}: submits, then waits up to {@code timeoutNanos}
     * (negative: for ever; 0: not at all) for records, which it stores in the
     * events buffer. Returns their number, 0 when the time passed,
     * {@code -EINTR} when {@link #wake} came first (or a signal).
     */
    static native int waitRecords(long ctx, long timeoutNanos);

    /** {@code wheeltimer_wake()}, from any thread: ends {@link #waitRecords}, or the next one. */

    static native int wake(long ctx);

    static native int advance(long ctx, long time, int flags, long[] out);

    static native int now(long ctx, long[] out);

    static native int stats(long ctx, long[] out);

    static native int statsWords();

    static native int engine(long ctx);

    static native long features(long ctx);

    static native String strerror(int err);

    static native long clock(int clockid);

    static native int gettid();
}
