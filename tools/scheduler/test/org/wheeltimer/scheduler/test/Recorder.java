// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Recorder.java - a node program's record of each job it started
 */
package org.wheeltimer.scheduler.test;

import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import org.wheeltimer.scheduler.Micros;

/**
 * Appends "KEY SCHEDULED_US START_US" for each job a node starts, one
 * write(2) a line and no buffer, so that the record survives kill -9 up to
 * the kill. The benchmark's nodes, ours and Quartz's, write the same.
 */
public final class Recorder {
    private final FileOutputStream out;

    public Recorder(Path file) throws IOException {
        out = new FileOutputStream(file.toFile(), true);
    }

    /** Job {@code key}, scheduled at {@code scheduledUs}, starts now. */
    public synchronized void note(String key, long scheduledUs) throws IOException {
        long now = Micros.now();
        out.write((key + " " + scheduledUs + " " + now + "\n").getBytes(StandardCharsets.US_ASCII));
    }

    /** Blocks until "stop" or the end of standard input (the driver asks, or died). */
    public static void awaitStop() throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null && !line.equals("stop"); ) {
            // nothing else is asked
        }
    }
}
