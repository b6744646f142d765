package dev.ofl.api;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection used from any number of threads, asynchronously: {@link #call} queues a request
 * and returns a {@link CompletableFuture} at once; the client's own thread sends queued requests
 * as in-flight places free up (pipelining up to the negotiated {@code maxInFlight}), takes the
 * responses in order, and completes the futures.
 *
 * <p><b>Timeouts stay fatal, and nothing is resubmitted.</b> When a request's deadline passes, the
 * connection is broken before its future completes with {@link OflStatus#TIMED_OUT}, so nothing
 * late lands. The other requests then in flight complete with their outcome if it had arrived,
 * and otherwise exceptionally with an {@link OflConnectionException} that says they were dropped
 * and not sent again (whether to retry is the caller's decision). The client thread then
 * reconnects, with doubling back-off, and sends what is queued. A request whose deadline passes
 * while it is still queued completes {@code TIMED_OUT} without being sent.
 *
 * <p><b>Waiting.</b> With {@link WaitMode#BUSY_POLL} the client thread polls while requests are in
 * flight (a core, for the lowest latency), and spins 50 µs for the next call before it parks. With
 * {@link WaitMode#BLOCKING} it parks between looks while requests are in flight (about every 20 to
 * 60 µs, as the operating system's timers allow: no core, a little more latency), so new calls
 * and every request's deadline are still taken within a look. With nothing in flight it sleeps
 * until a call comes.
 *
 * <p><b>Callbacks.</b> The futures are completed on the client thread, so a callback attached with
 * {@code thenAccept} and the like runs there: keep it short, never block in it (no {@code join} or
 * {@code get} of another of this client's futures), and use the {@code *Async} forms for real work.
 *
 * <p><b>Memory.</b> Ranges must lie in regions of this client ({@link #allocateRegion}), and the
 * caller must leave a request's ranges alone until its future completes. The payload is copied
 * when {@code call} is made, so the caller may reuse its buffer at once. The asynchronous path
 * allocates per call (the future, the reply, a payload copy): use {@link OflClient} itself where a
 * call must allocate nothing.
 *
 * <p>Thread-safe. The client thread is a daemon platform thread named {@code ofl-async-<server>}
 * ({@code ofl-async} when built over a connected client).
 */
public final class OflAsyncClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OflAsyncClient.class);
    /** How long an idle client thread in busy-poll mode spins for the next call before it parks. */
    private static final long IDLE_SPIN_NS = 50_000L;
    /** Blocking mode: the pause between looks at the requests in flight. */
    private static final long BLOCKING_LOOK_NS = 20_000L;

    private final OflClient client;
    private final ArrayBlockingQueue<Request> queue;
    private final ConcurrentLinkedQueue<FutureTask<?>> control = new ConcurrentLinkedQueue<>();
    private final ArrayDeque<Request> inFlight = new ArrayDeque<>();
    private final Completion completion = new Completion();
    private final WaitMode waitMode;
    private final Duration backoff;
    private final Duration maxBackoff;
    private final Thread thread;
    /** Read by calling threads: fixed at connect (the client's own fields belong to its thread). */
    private final Limits limits;
    private final NanoClock clock;
    private final AtomicLong dropped = new AtomicLong();
    private volatile boolean closing;
    /** The client thread's current reconnect back-off; 0 after a success. */
    private long waitNs;

    private OflAsyncClient(Builder b) {
        this.client = b.client != null ? b.client : Ofl.connect(b.config);
        this.limits = client.limits();
        this.clock = client.clock();
        this.queue = new ArrayBlockingQueue<>(b.queueCapacity);
        this.waitMode = b.waitMode;
        this.backoff = b.backoff;
        this.maxBackoff = b.maxBackoff;
        String name = b.config != null ? "ofl-async-" + b.config.server() : "ofl-async";
        this.thread = Thread.ofPlatform().daemon().name(name).unstarted(this::drive);
        thread.start();
    }

    /**
     * Starts a builder.
     *
     * @param config the connection's settings
     * @return a builder with the defaults
     */
    public static Builder builder(ClientConfig config) {
        Objects.requireNonNull(config, "config");
        return new Builder(config, null, config.waitMode());
    }

    /**
     * Starts a builder over a connected client, for example a {@code TimedOflClient} that times
     * each call. The asynchronous client owns it from then on: it alone uses it, and closes it.
     *
     * @param client a connected client that no other thread uses
     * @return a builder with the defaults; the wait mode is {@link WaitMode#BUSY_POLL} unless set
     */
    public static Builder builder(OflClient client) {
        if (Objects.requireNonNull(client, "client").outstanding() > 0) {
            throw new IllegalArgumentException("the client has " + client.outstanding() + " tickets outstanding; "
                    + "await them (or reconnect) before handing it to an asynchronous client");
        }
        return new Builder(null, client, WaitMode.BUSY_POLL);
    }

    /**
     * Queues a request.
     *
     * @param op the operation
     * @param generation the generation
     * @param payload the request payload, copied now; at most the negotiated {@code maxRequestBytes}
     * @param ranges where the response goes, in regions of this client; left alone until the future completes
     * @param timeout from now until the request times out (queued time included)
     * @return completes with the {@link Reply}, or exceptionally with an {@link OflConnectionException}
     *     (the connection failed under the request, or it was dropped by another's timeout) or a
     *     {@link RejectedExecutionException} (the queue was full, or the client is closed)
     */
    public CompletableFuture<Reply> call(int op, long generation, MemorySegment payload, ResponseRanges ranges,
            Duration timeout) {
        CompletableFuture<Reply> future = new CompletableFuture<>();
        if (payload.byteSize() > limits.maxRequestBytes()) {
            future.completeExceptionally(new IllegalArgumentException("payload of " + payload.byteSize()
                    + " bytes exceeds maxRequestBytes " + limits.maxRequestBytes()));
            return future;
        }
        long timeoutNs = timeout.compareTo(Duration.ofDays(365)) > 0 ? Duration.ofDays(365).toNanos() : timeout.toNanos();
        Request request = new Request(op, generation, payload.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                ranges, clock.nanoTime() + timeoutNs, future);
        if (closing) {
            future.completeExceptionally(new RejectedExecutionException("the asynchronous client is closed"));
        } else if (!queue.offer(request)) {
            future.completeExceptionally(new RejectedExecutionException("the asynchronous client's queue is full ("
                    + queue.size() + " requests waiting to be sent)"));
        } else if (closing && queue.remove(request)) {
            future.completeExceptionally(new RejectedExecutionException("the asynchronous client is closed"));
        } else {
            LockSupport.unpark(thread);
        }
        return future;
    }

    /**
     * Allocates a region of this client's connection, on the client thread.
     *
     * @param bytes the region's size
     * @return the region, alive as long as this client
     * @throws OflException if the allocation fails or the client is closed
     */
    public Region allocateRegion(long bytes) {
        return onClientThread(() -> client.allocateRegion(bytes));
    }

    /**
     * The connection's negotiated limits.
     *
     * @return the limits
     */
    public Limits limits() {
        return limits;
    }

    /**
     * The connection's counters (across reconnects).
     *
     * @return a snapshot
     */
    public ClientStatistics statistics() {
        return client.statistics();
    }

    /**
     * Requests dropped by another request's timeout or a failed connection, not sent again.
     *
     * @return how many so far
     */
    public long droppedRequests() {
        return dropped.get();
    }

    /**
     * Stops taking calls, fails the queued ones, lets those in flight finish (each by its
     * deadline), then closes the connection. Idempotent.
     */
    @Override
    public void close() {
        closing = true;
        LockSupport.unpark(thread);
        if (Thread.currentThread() != thread) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private <T> T onClientThread(java.util.concurrent.Callable<T> task) {
        if (closing) {
            throw new OflException("the asynchronous client is closed");
        }
        if (Thread.currentThread() == thread) {
            // From a callback, which runs on the client thread: waiting for it would wait for ever.
            try {
                return task.call();
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new OflException("the client thread failed: " + e, e);
            }
        }
        FutureTask<T> future = new FutureTask<>(task);
        control.add(future);
        if (closing && control.remove(future)) {
            throw new OflException("the asynchronous client is closed");
        }
        LockSupport.unpark(thread);
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OflConnectionException("interrupted while waiting for the client thread", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new OflException("the client thread failed: " + e.getCause(), e.getCause());
        }
    }

    /** The client thread: the only thread that touches {@link #client}. */
    private void drive() {
        try {
            while (!closing || !inFlight.isEmpty()) {
                if (Thread.interrupted()) {
                    // Nothing here is interrupted on purpose; a set flag would break every wait.
                    LOG.warn("ofl asynchronous client: its thread was interrupted; the interrupt is ignored "
                            + "(close() stops the client)");
                }
                runControl();
                if (closing) {
                    failQueued();
                } else if (!sendQueued()) {
                    continue;
                }
                if (inFlight.isEmpty()) {
                    idle();
                    continue;
                }
                takeOldest();
            }
        } catch (RuntimeException | Error e) {
            LOG.error("ofl asynchronous client: the client thread failed; failing every request", e);
        } finally {
            for (Request r; (r = inFlight.poll()) != null;) {
                r.future.completeExceptionally(new OflConnectionException("the asynchronous client closed"));
            }
            closing = true;
            failQueued();
            runControl();
            client.close();
        }
    }

    /**
     * Nothing in flight: in busy-poll mode a short spin first (a caller that waits for each reply
     * sends its next call within microseconds, and a wake-up costs more), then a park that a call
     * ends.
     */
    private void idle() {
        if (waitMode == WaitMode.BUSY_POLL) {
            long until = System.nanoTime() + IDLE_SPIN_NS;
            while (queue.isEmpty() && control.isEmpty() && !closing && System.nanoTime() - until < 0) {
                Thread.onSpinWait();
            }
        }
        if (!closing && queue.isEmpty() && control.isEmpty()) {
            LockSupport.parkNanos(1_000_000L);
        }
    }

    private void runControl() {
        for (FutureTask<?> task; (task = control.poll()) != null;) {
            task.run();
        }
    }

    private void failQueued() {
        for (Request r; (r = queue.poll()) != null;) {
            r.future.completeExceptionally(new RejectedExecutionException("the asynchronous client is closed"));
        }
    }

    /**
     * Sends queued requests while places are free; reconnects a broken client first.
     *
     * @return false when a reconnect failed and the loop should look again after its back-off
     */
    private boolean sendQueued() {
        while (inFlight.size() < client.limits().maxInFlight() && !queue.isEmpty()) {
            if (client.isBroken() && inFlight.isEmpty() && !reconnect()) {
                return false;
            }
            if (client.isBroken()) {
                return true;
            }
            Request r = queue.poll();
            if (client.clock().nanoTime() - r.deadlineNs >= 0) {
                // Never sent: nothing of it can land.
                r.future.complete(new Reply(OflStatus.TIMED_OUT, 0, 0, null));
                continue;
            }
            try {
                MemorySegment.copy(MemorySegment.ofArray(r.payload), 0, client.requestPayload(), 0, r.payload.length);
                r.ticket = client.submit(r.op, r.generation, r.payload.length, r.ranges);
            } catch (OflConnectionException e) {
                dropped.incrementAndGet();
                r.future.completeExceptionally(e);
                continue;
            } catch (RuntimeException | Error e) {
                r.future.completeExceptionally(e);
                if (e instanceof Error error) {
                    throw error;
                }
                continue;
            }
            if (r.ticket < 0) {
                // Cannot happen while this thread alone uses the client and counts what is in flight.
                r.future.completeExceptionally(new IllegalStateException("the client refused the request: "
                        + OflStatus.name((int) r.ticket)));
                continue;
            }
            inFlight.add(r);
        }
        return true;
    }

    /**
     * Looks at (or, in blocking mode when there is nothing else to do, waits for) the oldest
     * request in flight; first, times out any request in flight whose deadline has passed, even
     * one behind the oldest, so that every request's timeout holds at its own deadline.
     */
    private void takeOldest() {
        long now = clock.nanoTime();
        Request earliest = inFlight.peek();
        for (Request r : inFlight) {
            if (r.deadlineNs - earliest.deadlineNs < 0) {
                earliest = r;
            }
        }
        boolean expired = now - earliest.deadlineNs >= 0;
        Request head = expired ? earliest : inFlight.peek();
        int status;
        try {
            // Never a wait in the transport: it would hold every new call, and every other
            // request's deadline, behind this one's. A deadline long past (the thread was held up)
            // is passed as just past: the client refuses one more than a minute behind its clock.
            status = client.poll(head.ticket, Math.max(head.deadlineNs, now - 1), completion);
        } catch (OflConnectionException e) {
            inFlight.remove(head);
            dropped.incrementAndGet();
            head.future.completeExceptionally(e);
            dropTheRest("the connection failed under ticket " + head.ticket + ": " + e.getMessage());
            return;
        } catch (RuntimeException e) {
            inFlight.remove(head);
            head.future.completeExceptionally(e);
            dropTheRest("ticket " + head.ticket + " failed: " + e);
            return;
        }
        if (status == OflStatus.PENDING) {
            if (waitMode == WaitMode.BLOCKING && (queue.isEmpty() || inFlight.size() >= limits.maxInFlight())
                    && control.isEmpty()) {
                // Nothing else to do: look again shortly, without holding a core.
                LockSupport.parkNanos(BLOCKING_LOOK_NS);
            } else {
                Thread.onSpinWait();
            }
            return;
        }
        inFlight.remove(head);
        head.future.complete(new Reply(status, completion.handlerStatus(), completion.responseLength(),
                completion.failureReason()));
        if (status == OflStatus.TIMED_OUT) {
            dropTheRest("ticket " + head.ticket + " timed out and broke the connection");
        }
    }

    /** After the connection broke: what had arrived completes; the rest is dropped, never resent. */
    private void dropTheRest(String why) {
        for (Request r; (r = inFlight.poll()) != null;) {
            try {
                // The connection is broken: this returns at once, with an outcome that had arrived.
                int status = client.await(r.ticket, Math.max(r.deadlineNs, clock.nanoTime() - 1), completion);
                r.future.complete(new Reply(status, completion.handlerStatus(), completion.responseLength(),
                        completion.failureReason()));
            } catch (RuntimeException e) {
                dropped.incrementAndGet();
                r.future.completeExceptionally(new OflConnectionException("request " + r.ticket + " was dropped, not "
                        + "sent again: " + why, e));
            }
        }
    }

    private boolean reconnect() {
        try {
            client.reconnect();
            waitNs = 0;
            return true;
        } catch (RuntimeException e) {
            waitNs = waitNs == 0 ? backoff.toNanos() : Math.min(waitNs * 2, maxBackoff.toNanos());
            LOG.warn("ofl asynchronous client: reconnecting failed, retrying in {} ms: {}", waitNs / 1_000_000,
                    e.getMessage());
            // Queued requests whose deadline passes meanwhile complete TIMED_OUT, unsent.
            long until = System.nanoTime() + waitNs;
            while (!closing && System.nanoTime() - until < 0) {
                expireQueued();
                LockSupport.parkNanos(Math.min(until - System.nanoTime(), 1_000_000L));
            }
            return false;
        }
    }

    private void expireQueued() {
        long now = client.clock().nanoTime();
        queue.removeIf(r -> {
            if (now - r.deadlineNs >= 0) {
                r.future.complete(new Reply(OflStatus.TIMED_OUT, 0, 0, null));
                return true;
            }
            return false;
        });
    }

    private static final class Request {
        final int op;
        final long generation;
        final byte[] payload;
        final ResponseRanges ranges;
        final long deadlineNs;
        final CompletableFuture<Reply> future;
        long ticket;

        Request(int op, long generation, byte[] payload, ResponseRanges ranges, long deadlineNs,
                CompletableFuture<Reply> future) {
            this.op = op;
            this.generation = generation;
            this.payload = payload;
            this.ranges = ranges;
            this.deadlineNs = deadlineNs;
            this.future = future;
        }
    }

    /**
     * A request's outcome.
     *
     * @param status an {@link OflStatus} value: {@code OK}, {@code REFUSED}, {@code HANDLER_FAILED},
     *     {@code BUSY} or {@code TIMED_OUT}
     * @param handlerStatus the handler's code for {@code REFUSED}, else 0
     * @param responseLength the response bytes placed, for {@code OK}
     * @param failureReason the server's reason for {@code HANDLER_FAILED} when it sent one
     *     ({@link Completion#failureReason()}), else {@code null}
     */
    public record Reply(int status, int handlerStatus, long responseLength, String failureReason) {
    }

    /** Builds an {@link OflAsyncClient}. Not thread-safe. */
    public static final class Builder {
        private final ClientConfig config;
        private final OflClient client;
        private WaitMode waitMode;
        private int queueCapacity = 1024;
        private Duration backoff = Duration.ofMillis(10);
        private Duration maxBackoff = Duration.ofSeconds(1);

        private Builder(ClientConfig config, OflClient client, WaitMode waitMode) {
            this.config = config;
            this.client = client;
            this.waitMode = waitMode;
        }

        /**
         * How the client thread waits while requests are in flight: {@code BUSY_POLL} polls (a
         * core); {@code BLOCKING} waits for the oldest response whenever nothing is queued.
         *
         * @param waitMode the mode; by default the configuration's
         * @return this builder
         */
        public Builder waitMode(WaitMode waitMode) {
            this.waitMode = Objects.requireNonNull(waitMode, "waitMode");
            return this;
        }

        /**
         * Bounds the requests waiting to be sent; a call beyond it fails at once.
         *
         * @param queueCapacity at least 1; default 1024
         * @return this builder
         */
        public Builder queueCapacity(int queueCapacity) {
            this.queueCapacity = queueCapacity;
            return this;
        }

        /**
         * The reconnect back-off after a broken connection: the first wait after a failed attempt,
         * doubled after each further one up to {@code max}.
         *
         * @param first positive; default 10 ms
         * @param max at least {@code first}; default 1 s
         * @return this builder
         */
        public Builder backoff(Duration first, Duration max) {
            this.backoff = first;
            this.maxBackoff = max;
            return this;
        }

        /**
         * Connects (unless built over a connected client) and starts the client thread.
         *
         * @return the client
         * @throws OflException if the connection cannot be made (as {@link Ofl#connect})
         * @throws IllegalArgumentException naming a setting out of range
         */
        public OflAsyncClient connect() {
            if (queueCapacity < 1) {
                throw new IllegalArgumentException("queueCapacity must be at least 1, was " + queueCapacity);
            }
            if (backoff == null || maxBackoff == null || backoff.isNegative() || backoff.isZero()
                    || maxBackoff.compareTo(backoff) < 0) {
                throw new IllegalArgumentException("backoff must be positive and at most its maximum: " + backoff
                        + ", " + maxBackoff);
            }
            return new OflAsyncClient(this);
        }
    }
}
