package dev.ofl.api.spi;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.OflConnectionException;
import dev.ofl.api.Region;
import dev.ofl.api.wire.ProtocolException;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * What a backend does for a client: moves request bytes to the server and response bytes into the
 * caller's ranges, and nothing else. {@link ClientSession} owns the protocol above it (tickets,
 * slots, checks, deadlines, the broken state, reconnect) and uses one transport for the client's
 * whole life, across reconnects.
 *
 * <h2>Contract</h2>
 * <ul>
 * <li><b>Threading.</b> Every method is called by the one thread using the client at a time,
 *     except that a transport may be told of a lost peer by a thread of its own (for example the
 *     process's {@link LivenessWatcher}), which then only sets {@link #lossReason()} and breaks.</li>
 * <li><b>Blocking.</b> {@link #connect} blocks up to its deadline; {@link #awaitProgress} up to its
 *     deadline (less is fine: the session loops); {@link #send} until the request is handed to the
 *     transport, bounded by the connect timeout when the peer stops reading; the rest never
 *     block.</li>
 * <li><b>Failure.</b> A connection that fails is reported by throwing
 *     {@link OflConnectionException} with a sentence naming the cause (not a fix: the session adds
 *     it); a peer that breaks the protocol, by letting the {@link ProtocolException} of a
 *     {@link ResponseSink} method, or one of its own, propagate. The session then breaks the
 *     transport and reports the client broken.</li>
 * <li><b>Break.</b> After {@link #breakConnection()} returns, nothing more lands in the caller's
 *     memory (ranges or send slots): TCP closes the socket; RDMA moves the queue pair to ERR. It is
 *     idempotent and never throws.</li>
 * </ul>
 */
public interface ClientTransport extends RequestEncoder.RangeAddressing {
    /** Makes a client's transport; a backend's part of {@link OflBackend#connect}. */
    @FunctionalInterface
    interface Factory {
        /**
         * Creates the transport. It does not connect yet.
         *
         * @param config the client's settings
         * @param slots the send slots: {@code count} slots of {@code slotBytes} bytes each, owned
         *     by the session and alive until {@link #close()} returned {@code true}
         * @param slotBytes the bytes of one slot, a multiple of 64
         * @return the transport
         */
        ClientTransport create(ClientConfig config, MemorySegment slots, long slotBytes);
    }

    /**
     * Connects to the server configured (bootstrap included), registering the regions given so
     * far; after a break, {@link #disconnect()} was called first.
     *
     * @param regions the client's regions, indexed by {@link Region#id()}
     * @param deadlineNs when to give up, on the client's clock
     * @throws dev.ofl.api.OflException if it cannot; nothing of the attempt stays open
     */
    void connect(List<Region> regions, long deadlineNs);

    /**
     * Makes a newly registered region usable now and on later connections.
     *
     * @param region the region
     * @throws IllegalArgumentException if this transport cannot use it
     * @throws dev.ofl.api.OflException if registering it with the device fails
     */
    void register(Region region);

    /**
     * Sends an encoded request. A transport that stalls may take what arrives meanwhile through
     * {@code sink}, so that pipelined traffic cannot deadlock.
     *
     * @param slot the send slot's index: {@code message} starts {@code slot} slots into the memory
     *     the factory was given (told, so that no transport divides to find it)
     * @param message the request's send slot, the message at offset zero
     * @param length the message's length
     * @param sink where arriving responses go
     * @throws OflConnectionException if sending failed
     * @throws ProtocolException if what arrived meanwhile broke the protocol
     */
    void send(int slot, MemorySegment message, long length, ResponseSink sink) throws ProtocolException;

    /**
     * Whether {@link #send} has copied the message out (into the kernel, or wherever it goes)
     * before it returns, so that the session may write the next request into the same memory at
     * once. The session then uses one send slot for every request. Otherwise (RDMA: the device
     * reads a slot after the post returns, and the server may read a large payload from it later)
     * the session rotates slots. Either way it copies each payload from the stable area it hands
     * out into the slot at submit.
     *
     * @return {@code true} if the message memory is free again when {@code send} returns
     */
    default boolean sendCopiesMessage() {
        return false;
    }

    /**
     * Takes what arrived, without blocking, and hands it to {@code sink}.
     *
     * @param sink where arriving responses go
     * @return a work count, zero when nothing arrived
     * @throws OflConnectionException if the connection failed
     * @throws ProtocolException if the server broke the protocol
     */
    int poll(ResponseSink sink) throws ProtocolException;

    /**
     * Sleeps until something may have arrived or the deadline passed; in
     * {@link dev.ofl.api.WaitMode#BLOCKING} the session calls it before polling, so it must return
     * at once when something is already waiting. Waking early is allowed. A transport that must
     * arm its event source first polls once more after arming (what arrived in between raises no
     * event) and then returns without sleeping if that found work. A transport may process what
     * woke it and report it as work; the session polls only when this returns zero. It is called
     * in {@link dev.ofl.api.WaitMode#BUSY_POLL} too, by a client on a virtual thread after its short
     * spin, so a transport needs an event source (or a timed wait) in both wait modes, and must
     * not spin here: a virtual thread that spins holds its carrier.
     *
     * @param sink where arriving responses go
     * @param deadlineNs the await's deadline, on the client's clock
     * @param nowNs the client's clock now
     * @return a work count, as {@link #poll}
     * @throws OflConnectionException if waiting failed
     * @throws ProtocolException if the server broke the protocol
     */
    int awaitProgress(ResponseSink sink, long deadlineNs, long nowNs) throws ProtocolException;

    /**
     * Whether the transport sees every response byte it places, so that an OK response's length
     * must equal the bytes placed (TCP); otherwise only bounded by the ranges (RDMA).
     *
     * @return {@code true} when placed bytes are counted through {@link ResponseSink#cursor()}
     */
    boolean countsPlacedBytes();

    /**
     * Whether the current connection's server agreed to send a reason with
     * {@code HANDLER_FAILED}: {@link ClientBootstrap#failureReasons} of the WELCOME that
     * {@link ClientBootstrap#exchange} returned, which offers them in every HELLO. Asked after
     * each connect; a transport that answered wrongly would have every failure with a reason
     * taken for a protocol violation, so there is no default.
     *
     * @return {@code true} if the WELCOME answered the offer
     */
    boolean failureReasons();

    /**
     * Why the transport noticed by itself that the peer is gone.
     *
     * @return a reason, or {@code null}
     */
    String lossReason();

    /**
     * Whether the loss {@link #lossReason()} reports is the local link's own failure, as the
     * device told it (a port that went down, a fatal device error, the connection's queue pair or
     * completion queue failed), rather than the peer's leaving.
     * A transport without device events never tells them apart.
     *
     * @return {@code true} for a link failure; {@code false} by default
     */
    default boolean lossIsLinkFailure() {
        return false;
    }

    /** Makes sure nothing more lands in the caller's memory. Idempotent; never throws. */
    void breakConnection();

    /** Releases the current connection, after a break; idempotent. */
    void disconnect();

    /**
     * Releases everything, after a break.
     *
     * @return {@code false} if the device might still write into the slots or regions (a queue
     *     pair could not be destroyed): the session must then never free that memory
     */
    boolean close();

    /**
     * The backend's name.
     *
     * @return for example {@code "tcp"}
     */
    String backend();

    /**
     * What the current connection runs over, for diagnostics (the {@code dev.ofl.Connect} JFR
     * event): for rdma the device, port and GID chosen for the bound address.
     *
     * @return a description, empty when the backend has nothing to add to the server's address
     */
    default String path() {
        return "";
    }
}
