// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * JniLocator.java - finds the JNI library where it lies beside the jar:
 * the build's directory, or the Debian layout
 */
package org.wheeltimer;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;

/**
 * Where {@link Native} looks for {@code libwheeltimer_jni.so} when neither
 * the system property {@value Native#PATH_PROPERTY} names it nor
 * {@code java.library.path} has it: relative to the jar that holds this
 * class, so that a jar finds its own library with no option wherever the
 * tree that holds both was put.
 *
 * <ul>
 * <li>the jar's own directory, as the build leaves them
 *     ({@code build/java/wheeltimer.jar} and {@code libwheeltimer_jni.so});
 * <li>{@code ../../lib/<multiarch>/jni/} from it, Debian's layout
 *     ({@code /usr/share/java/wheeltimer.jar} and
 *     {@code /usr/lib/x86_64-linux-gnu/jni/libwheeltimer_jni.so}), which
 *     also holds for the package unpacked anywhere ({@code dpkg -x}).
 *     Installed, Debian's JVM has that directory on java.library.path
 *     already.
 * </ul>
 *
 * A candidate of another architecture (a multiarch machine) fails to load
 * and the next is tried.
 */
final class JniLocator {
    private JniLocator() {
    }

    /**
     * Loads {@code System.mapLibraryName(name)} from beside the jar of
     * {@code anchor}. Returns the file loaded, or null if there was none to
     * load (the failures of those that would not load are added to
     * {@code failures}).
     */
    static Path loadBesideJar(Class<?> anchor, String name, List<Throwable> failures) {
        for (Path p : candidates(anchor, System.mapLibraryName(name))) {
            try {
                System.load(p.toString());
                return p;
            } catch (UnsatisfiedLinkError e) {
                failures.add(e);
            }
        }
        return null;
    }

    /** The files that exist where the library may be, in the order they are tried. */
    static List<Path> candidates(Class<?> anchor, String file) {
        List<Path> found = new ArrayList<>();
        Path jar = jarOf(anchor);
        if (jar == null) {
            return found;
        }
        Path dir = jar.getParent();
        addIfFile(found, dir.resolve(file));
        Path lib = dir.getParent() != null && dir.getParent().getParent() != null
                ? dir.getParent().getParent().resolve("lib") : null;
        if (lib != null && Files.isDirectory(lib)) {
            try (DirectoryStream<Path> triplets = Files.newDirectoryStream(lib)) {
                for (Path t : triplets) {
                    addIfFile(found, t.resolve("jni").resolve(file));
                }
            } catch (IOException e) {
                // An unreadable directory holds no candidate.
            }
        }
        return found;
    }

    private static void addIfFile(List<Path> found, Path p) {
        if (Files.isRegularFile(p)) {
            found.add(p.toAbsolutePath().normalize());
        }
    }

    /** The jar (or class directory) {@code anchor} was loaded from, or null. */
    private static Path jarOf(Class<?> anchor) {
        try {
            CodeSource src = anchor.getProtectionDomain().getCodeSource();
            if (src == null || src.getLocation() == null
                    || !"file".equals(src.getLocation().getProtocol())) {
                return null;
            }
            Path p = Path.of(src.getLocation().toURI());
            return Files.isRegularFile(p) ? p : null;
        } catch (URISyntaxException | SecurityException | IllegalArgumentException e) {
            return null;
        }
    }
}
