// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * NodeProcess.java - a scheduler node in a JVM of its own
 */
package org.wheeltimer.scheduler.test;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A node ({@link NodeMain}) started as a child JVM with this JVM's class
 * path and system properties for wheeltimer, its output in a log file.
 * {@link #stop()} asks it to stop on its standard input; {@link #kill()}
 * is kill -9. A node whose driver dies sees its input end, and stops.
 */
public final class NodeProcess {
    /** The JVM options of the tests' nodes. */
    public static final List<String> TEST_JVM = List.of("-Xmx256m", "-XX:+UseSerialGC");

    public final String name;
    private final Path log;
    private final Process process;

    /** A {@link NodeMain} for the tests, connecting as the role of its name. */
    NodeProcess(String name, String url, String password, Path log, String... options) throws IOException {
        this(name, NodeMain.class.getName(), TEST_JVM, log,
             concat(List.of("--name", name, "--url", url, "--user", name, "--password", password), options));
    }

    /** Any node program: its main class, JVM options and arguments. */
    public NodeProcess(String name, String mainClass, List<String> jvmOptions, Path log, List<String> args)
            throws IOException {
        this.name = name;
        this.log = log;
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(jvmOptions);
        for (String p : new String[] {"wheeltimer.jni.path", "wheeltimer.engine"}) {
            String v = System.getProperty(p);
            if (v != null) {
                cmd.add("-D" + p + "=" + v);
            }
        }
        cmd.add("-Djava.util.logging.SimpleFormatter.format=%1$tT.%1$tL %4$s %5$s%6$s%n");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(mainClass);
        cmd.addAll(args);
        process = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
    }

    private static List<String> concat(List<String> a, String[] b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(List.of(b));
        return out;
    }

    /** Asks the node to stop; its exit status (-1 if it had to be killed after a minute). */
    public int stop() throws IOException, InterruptedException {
        try (OutputStream in = process.getOutputStream()) {
            in.write("stop\n".getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            // it is gone already: its status says how
        }
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            kill();
            return -1;
        }
        return process.exitValue();
    }

    /** Sends a command line to the node. */
    public void command(String line) throws IOException {
        OutputStream in = process.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    /** Sends a signal (STOP, CONT) with kill(1). */
    public void signal(String name) throws IOException, InterruptedException {
        if (process.isAlive()) {
            new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start().waitFor();
        }
    }

    /** kill -9. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    public boolean alive() {
        return process.isAlive();
    }

    public String log() throws IOException {
        return Files.readString(log);
    }

    /** The counter {@code name} from the node's "stopped" line, -1 if it has none. */
    public long counter(String counter) throws IOException {
        for (String line : log().split("\n")) {
            if (line.startsWith("stopped ")) {
                String[] w = line.substring(line.indexOf(':') + 1).trim().split(" ");
                for (int i = 0; i + 1 < w.length; i += 2) {
                    if (w[i].equals(counter)) {
                        return Long.parseLong(w[i + 1]);
                    }
                }
            }
        }
        return -1;
    }
}
