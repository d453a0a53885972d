// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * ServerProcess.java - a LocalHttpServer in a JVM of its own, which ends
 * with its parent
 */
package org.wheeltimer.ahc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts {@link LocalHttpServer} as a child process with this JVM's
 * program and class path, so that its 10 000 sockets do not count against
 * the client's limit of open files, nor its CPU in the client's. The child
 * serves until its standard input closes: at {@link #close()}, or when this
 * process dies.
 */
public final class ServerProcess implements AutoCloseable {
    private final Process process;
    private final int port;

    private ServerProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Starts the server and waits for its port. */
    public static ServerProcess start(int threads) throws IOException {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        ProcessBuilder pb = new ProcessBuilder(List.of(java, "-XX:+UseSerialGC", "-Xmx512m",
                "-cp", System.getProperty("java.class.path"), LocalHttpServer.class.getName(),
                Integer.toString(threads)));
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        Process p = pb.start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(),
                                                                      StandardCharsets.US_ASCII));
        String line = out.readLine();
        if (line == null || !line.startsWith("port ")) {
            p.destroyForcibly();
            throw new IOException("the HTTP server did not start: " + line);
        }
        return new ServerProcess(p, Integer.parseInt(line.substring(5).trim()));
    }

    /** The URL of the server's root, with no slash at the end. */
    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** Ends the server: its input closes, and it exits (or is killed after a minute). */
    @Override
    public void close() throws IOException {
        process.getOutputStream().close();
        boolean interrupted = false;
        for (;;) {
            try {
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    continue;
                }
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
