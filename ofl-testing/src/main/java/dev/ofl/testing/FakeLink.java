package dev.ofl.testing;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The in-process wire between one fake client connection and its server connection: the
 * requests in flight to the server, the completions in flight to the client, and the client
 * memory the server may write into. Every operation holds the link's monitor, so a write either
 * lands before the client breaks the link or not at all.
 */
final class FakeLink {
    private static final Map<Integer, FakeLink> LINKS = new ConcurrentHashMap<>();
    private static final AtomicInteger IDS = new AtomicInteger();

    /** A completion header and when the client may see it. */
    private record Completion(byte[] header, long visibleAtNs) {
    }

    final int id;
    final FakeFaults faults;
    private final Map<Integer, MemorySegment> clientMemory = new ConcurrentHashMap<>();
    private final ArrayDeque<byte[]> requests = new ArrayDeque<>();
    private final ArrayDeque<Completion> completions = new ArrayDeque<>();
    private boolean clientBroken;
    private boolean serverBroken;
    private String serverLoss;

    private FakeLink(int id, FakeFaults faults) {
        this.id = id;
        this.faults = faults;
    }

    static FakeLink open(FakeFaults faults) {
        FakeLink link = new FakeLink(IDS.incrementAndGet(), faults);
        LINKS.put(link.id, link);
        return link;
    }

    static FakeLink find(int id) {
        return LINKS.get(id);
    }

    void forget() {
        LINKS.remove(id);
    }

    // ---- client side

    synchronized void exposeClientMemory(int key, MemorySegment segment) {
        clientMemory.put(key, segment);
    }

    synchronized boolean sendRequest(byte[] message) {
        if (clientBroken || serverBroken) {
            return false;
        }
        requests.add(message);
        notifyAll();
        return true;
    }

    /** The next completion the client may see now, or {@code null}. */
    synchronized byte[] takeCompletion(long nowNs) {
        Completion c = completions.peek();
        if (c == null || c.visibleAtNs() - nowNs > 0) {
            return null;
        }
        completions.poll();
        return c.header();
    }

    synchronized void awaitCompletion(long timeoutNs) throws InterruptedException {
        if (serverBroken || timeoutNs <= 0) {
            return;
        }
        Completion head = completions.peek();
        // A completion queued but delayed is waited for until it may be seen, not spun on.
        long waitNs = head == null ? timeoutNs : Math.min(timeoutNs, head.visibleAtNs() - System.nanoTime());
        if (waitNs > 0) {
            wait(Math.max(1, waitNs / 1_000_000));
        }
    }

    synchronized boolean serverBroken() {
        return serverBroken;
    }

    /** After this returns, no server write lands in the client's memory. */
    synchronized void breakClient() {
        clientBroken = true;
        requests.clear();
        notifyAll();
    }

    // ---- server side

    /** The next request, waiting up to the timeout; {@code null} if none. */
    synchronized byte[] takeRequest(long timeoutMs) throws InterruptedException {
        if ((requests.isEmpty() || faults.requestsStalled()) && !serverBroken && !clientBroken) {
            wait(timeoutMs);
        }
        return faults.requestsStalled() ? null : requests.poll();
    }

    synchronized boolean clientBroken() {
        return clientBroken;
    }

    /** Writes into the client's memory; false when the client's side refuses (it broke). */
    synchronized boolean write(MemorySegment from, long fromOffset, int key, long offset, long length) {
        if (clientBroken || serverBroken) {
            return false;
        }
        MemorySegment target = clientMemory.get(key);
        if (target == null || offset < 0 || length > target.byteSize() - offset) {
            return false;
        }
        MemorySegment.copy(from, fromOffset, target, offset, length);
        return true;
    }

    synchronized boolean complete(byte[] header, long visibleAtNs) {
        if (clientBroken || serverBroken) {
            return false;
        }
        completions.add(new Completion(header, visibleAtNs));
        notifyAll();
        return true;
    }

    synchronized void breakServer() {
        serverBroken = true;
        notifyAll();
    }

    synchronized void loseClient(String reason) {
        serverLoss = reason;
        notifyAll();
    }

    synchronized String serverLoss() {
        return serverLoss;
    }
}
