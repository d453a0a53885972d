// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * Ring.java - which live node owns which slot: consistent hashing
 */
package org.wheeltimer.scheduler;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The consistent-hash ring of the live nodes. A job belongs to slot
 * {@code job_id % 4096} ({@link Job#slot}); each node has
 * {@value #POINTS_PER_NODE} points on a ring of 64-bit positions, and a
 * slot belongs to the first node point at or after the slot's own
 * position. When a node joins or leaves, only the slots between its
 * points and their neighbours move, about 1/N of them: the other nodes
 * keep what they hold in their wheels.
 *
 * <p>Every node computes the ring from the same list of names with the same
 * hash (SHA-256), so nodes that read the same membership agree on every
 * slot without talking to each other. The slots are what lets a node ask
 * the database for its own jobs ({@code job_id % 4096 = ANY(...)}, an
 * indexed expression) with the job ids hashed once more onto the ring.
 */
public final class Ring {
    /** Points per node: enough that three nodes get shares within about 15% of a third. */
    static final int POINTS_PER_NODE = 128;

    private final List<String> nodes;
    /** The owner of each slot, an index into nodes. */
    private final int[] owner;

    private Ring(List<String> nodes, int[] owner) {
        this.nodes = nodes;
        this.owner = owner;
    }

    /** The ring of these nodes (in any order; names distinct, at least one). */
    public static Ring of(Collection<String> names) {
        List<String> nodes = names.stream().sorted().distinct().toList();
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("a ring needs a node");
        }
        TreeMap<Long, Integer> points = new TreeMap<>();
        for (int n = 0; n < nodes.size(); n++) {
            for (int p = 0; p < POINTS_PER_NODE; p++) {
                // A collision of 64-bit positions is as good as impossible;
                // were it to happen, the first name in order keeps it.
                points.putIfAbsent(position(nodes.get(n) + "#" + p), n);
            }
        }
        int[] owner = new int[Job.SLOTS];
        for (int s = 0; s < Job.SLOTS; s++) {
            Map.Entry<Long, Integer> e = points.ceilingEntry(position("slot#" + s));
            owner[s] = (e != null ? e : points.firstEntry()).getValue();
        }
        return new Ring(nodes, owner);
    }

    /** The node that owns {@code slot}. */
    public String owner(int slot) {
        return nodes.get(owner[slot]);
    }

    /** The node that owns job {@code jobId}. */
    public String ownerOfJob(long jobId) {
        return owner(Job.slot(jobId));
    }

    /** Which slots {@code node} owns (all false if it is not on the ring). */
    boolean[] slotsOf(String node) {
        int n = nodes.indexOf(node);
        boolean[] mine = new boolean[Job.SLOTS];
        for (int s = 0; s < Job.SLOTS; s++) {
            mine[s] = owner[s] == n;
        }
        return mine;
    }

    public List<String> nodes() {
        return nodes;
    }

    private static long position(String key) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256")
                    .digest(key.getBytes(StandardCharsets.UTF_8));
            long v = 0;
            for (int i = 0; i < 8; i++) {
                v = v << 8 | (h[i] & 0xff);
            }
            return v;
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError("every Java platform has SHA-256", e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Ring r && r.nodes.equals(nodes);
    }

    @Override
    public int hashCode() {
        return nodes.hashCode();
    }

    @Override
    public String toString() {
        return "Ring" + nodes;
    }
}
