package dev.ofl.bench.admission;

import dev.ofl.api.ClientConfig;
import dev.ofl.api.Limits;
import dev.ofl.api.Ofl;
import dev.ofl.api.OflClient;
import dev.ofl.api.PeerKeys;
import dev.ofl.api.RefusalCode;
import dev.ofl.api.Region;
import dev.ofl.api.ResponseRanges;
import dev.ofl.api.wire.Bootstrap;
import dev.ofl.api.wire.MessageHeader;
import dev.ofl.api.wire.MessageType;
import dev.ofl.api.wire.PskExchange;
import dev.ofl.api.wire.RangeDescriptor;
import dev.ofl.api.wire.TransportKind;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The attacks {@link HostileBench} runs. Raw-socket attackers run on one selector thread, each
 * socket reopened 100 ms after the server dropped or refused it (a reconnect storm reopens at
 * once); never-reading attackers are ofl clients that submit a request and never read.
 */
enum Attack {
    /** Connects and sends nothing. */
    SILENT("silent", 64, 320),
    /** Sends its HELLO one byte every 250 ms: it never completes within the bootstrap timeout. */
    TRICKLE("trickling", 64, 320),
    /** Completes its HELLO (with keys on: as a client without a key) and then sends nothing. */
    HELLO_IDLE("hello-then-idle", 32, 128),
    /** Offers the server's key id, reads the challenge, and never sends the proof. */
    AUTH_STALL("auth-stall", 64, 320),
    /** A client (with keys on, one holding the key) that asks for 32 MiB and never reads; it comes back every 6 s. */
    NEVER_READ("never-reading", 2, 16),
    /** A client (with keys on, holding the key) that sends a request's header and 10 of its 4,096 payload bytes. */
    PARTIAL_REQUEST("partial request", 16, 64),
    /** Connects, sends its HELLO and resets the connection, over and over, as fast as it can. */
    STORM("reconnect storm", 16, 64),
    /** Silent sockets and HELLO-then-idle ones, many from one address. */
    FLOOD("one-address flood", 400, 400),
    /** Silent and trickling sockets (with keys on, stalled provers too) from the good client's own address. */
    CO_TENANT("co-tenant", 64, 64),
    /** RDMA HELLOs with large limits (16 MiB of receive slots each) without the payload-read offer, then silence. */
    RDMA_HELLO("rdma no-offer", 16, 64);

    private static final long REOPEN_NS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long TRICKLE_NS = TimeUnit.MILLISECONDS.toNanos(250);
    private static final long NEVER_READ_PERIOD_NS = TimeUnit.SECONDS.toNanos(6);
    private static final int RANGE_BYTES = 2 << 20;
    /** What a no-offer RDMA HELLO proposes: whole-request slots of 1 MiB, 16 of them. */
    private static final Limits RDMA_LIMITS = new Limits(1 << 20, 32 << 20, 16, 16);

    private final String label;
    private final int fromOne;
    private final int fromSixteen;

    Attack(String label, int fromOne, int fromSixteen) {
        this.label = label;
        this.fromOne = fromOne;
        this.fromSixteen = fromSixteen;
    }

    String label() {
        return label;
    }

    static Attack named(String name) {
        for (Attack a : values()) {
            if (a.name().equalsIgnoreCase(name.replace('-', '_')) || a.label.equals(name)) {
                return a;
            }
        }
        throw new IllegalArgumentException("no attack '" + name + "'; there are " + Arrays.toString(values()));
    }

    /** Whether the attack means anything with or without keys. */
    boolean applies(boolean keysOn) {
        return switch (this) {
            case AUTH_STALL -> keysOn;
            case RDMA_HELLO -> !keysOn;
            default -> true;
        };
    }

    boolean coTenant() {
        return this == CO_TENANT || this == FLOOD;
    }

    String backend() {
        return this == RDMA_HELLO ? "rdma" : "tcp";
    }

    /** Starts the attack from {@code sources} addresses (127.0.0.2 on; the co-tenant's is 127.0.0.1). */
    HostileBench.Attacker start(InetSocketAddress server, int sources, boolean keysOn) throws IOException {
        int count = sources == 1 ? fromOne : fromSixteen;
        List<InetAddress> from = new ArrayList<>();
        for (int i = 0; i < sources; i++) {
            from.add(this == CO_TENANT ? InetAddress.getLoopbackAddress()
                    : new InetSocketAddress("127.0.0." + (2 + i), 0).getAddress());
        }
        if (this == NEVER_READ) {
            return new NeverReaders(server, from, count, keysOn);
        }
        return new RawSockets(server, from, count, keysOn, this);
    }

    // ---------------------------------------------------------------------------------------------

    /** What one raw socket does next. */
    private enum Step {
        /** Waiting for the connect to finish. */
        CONNECTING,
        /** Sending the HELLO a byte at a time. */
        TRICKLING,
        /** Waiting for the challenge (stalling provers stop there). */
        CHALLENGE,
        /** Waiting for the WELCOME. */
        WELCOME,
        /** Sending nothing more; reading what comes (a refusal, the end). */
        IDLE
    }

    /** One raw hostile socket. */
    private static final class Hostile {
        final Attack kind;
        final InetAddress from;
        SocketChannel channel;
        Step step;
        int sent;
        long nextNs;
        byte[] hello;
        final ByteBuffer in = ByteBuffer.allocate(Bootstrap.FRAME_LENGTH + Bootstrap.MAX_BODY_LENGTH);
        boolean answered;

        Hostile(Attack kind, InetAddress from) {
            this.kind = kind;
            this.from = from;
        }
    }

    /** Raw hostile sockets on one selector thread. */
    private static final class RawSockets implements HostileBench.Attacker, Runnable {
        private final InetSocketAddress server;
        private final boolean keysOn;
        private final List<Hostile> all = new ArrayList<>();
        private final Selector selector;
        private final Thread thread;
        private final ByteBuffer discard = ByteBuffer.allocate(64 << 10);
        private final SecureRandom random = new SecureRandom();
        private final AtomicLong opened = new AtomicLong();
        private final AtomicLong refused = new AtomicLong();
        private final AtomicLong accepted = new AtomicLong();
        private final AtomicLong unanswered = new AtomicLong();
        private volatile boolean stopped;

        RawSockets(InetSocketAddress server, List<InetAddress> from, int count, boolean keysOn, Attack attack)
                throws IOException {
            this.server = server;
            this.keysOn = keysOn;
            this.selector = Selector.open();
            for (int i = 0; i < count; i++) {
                Attack kind = attack;
                if (attack == FLOOD) {
                    kind = i % 2 == 0 ? SILENT : HELLO_IDLE;
                } else if (attack == CO_TENANT) {
                    kind = i % 3 == 2 && keysOn ? AUTH_STALL : i % 2 == 0 ? SILENT : TRICKLE;
                }
                all.add(new Hostile(kind, from.get(i % from.size())));
            }
            thread = Thread.ofPlatform().name("hostile-" + attack.label).daemon().start(this);
        }

        @Override
        public void run() {
            try {
                for (Hostile h : all) {
                    open(h);
                }
                while (!stopped) {
                    selector.select(key -> ready((Hostile) key.attachment(), key), 10);
                    long nowNs = System.nanoTime();
                    for (Hostile h : all) {
                        if (h.channel == null && nowNs - h.nextNs >= 0) {
                            open(h);
                        } else if (h.step == Step.TRICKLING && nowNs - h.nextNs >= 0) {
                            trickle(h, nowNs);
                        }
                    }
                }
            } catch (IOException | ClosedSelectorException e) {
                if (!stopped) {
                    throw new IllegalStateException("the hostile sockets failed", e);
                }
            } finally {
                for (Hostile h : all) {
                    closeQuietly(h);
                }
                try {
                    selector.close();
                } catch (IOException e) {
                    // Ending anyway.
                }
            }
        }

        private void open(Hostile h) throws IOException {
            SocketChannel channel = SocketChannel.open();
            channel.setOption(StandardSocketOptions.SO_LINGER, 0);
            channel.bind(new InetSocketAddress(h.from, 0));
            channel.configureBlocking(false);
            h.channel = channel;
            h.sent = 0;
            h.answered = false;
            h.in.clear();
            h.hello = hello(h.kind);
            h.step = Step.CONNECTING;
            opened.incrementAndGet();
            if (channel.connect(server)) {
                connected(h, channel.register(selector, 0, h));
            } else {
                channel.register(selector, SelectionKey.OP_CONNECT, h);
            }
        }

        /**
         * A stalling prover offers the key; with keys on, a partial request comes from a client that
         * holds it; every other HELLO is a keyless client's.
         */
        private boolean offers(Attack kind) {
            return kind == AUTH_STALL || (keysOn && kind == PARTIAL_REQUEST);
        }

        private byte[] hello(Attack kind) {
            byte[] extensions = null;
            if (offers(kind)) {
                byte[] nonce = new byte[PskExchange.NONCE_BYTES];
                random.nextBytes(nonce);
                extensions = new PskExchange.Offer(HostileBench.KEY_ID, nonce).record();
            }
            if (kind == RDMA_HELLO) {
                byte[] gid = new byte[16];
                gid[10] = (byte) 0xff;
                gid[11] = (byte) 0xff;
                gid[12] = 127;
                gid[15] = 2;
                // 1 MiB requests, 16 in flight and no payload-read offer: 16 MiB of registered slots each.
                return Bootstrap.encode(Bootstrap.HELLO, new Bootstrap.Endpoint(RefusalCode.ACCEPTED,
                        TransportKind.RDMA, HostileBench.SERVICE, RDMA_LIMITS, 1 + random.nextInt(1 << 20),
                        random.nextInt(1 << 24), gid, 1024, 0, 0, "", null));
            }
            return Bootstrap.encode(Bootstrap.HELLO, new Bootstrap.Endpoint(RefusalCode.ACCEPTED, TransportKind.TCP,
                    HostileBench.SERVICE, HostileBench.LIMITS, 0, 0, null, 0, 0, 0, "", extensions));
        }

        private void connected(Hostile h, SelectionKey key) throws IOException {
            SocketChannel c = h.channel;
            switch (h.kind) {
                case SILENT -> h.step = Step.IDLE;
                case TRICKLE -> {
                    h.step = Step.TRICKLING;
                    h.nextNs = System.nanoTime();
                }
                case STORM -> {
                    c.write(ByteBuffer.wrap(h.hello));
                    // SO_LINGER 0: the close resets the connection.
                    closeQuietly(h);
                    h.nextNs = System.nanoTime();
                    return;
                }
                case AUTH_STALL -> {
                    c.write(ByteBuffer.wrap(h.hello));
                    h.step = Step.CHALLENGE;
                }
                default -> {
                    c.write(ByteBuffer.wrap(h.hello));
                    h.step = offers(h.kind) ? Step.CHALLENGE : Step.WELCOME;
                }
            }
            key.interestOps(SelectionKey.OP_READ);
        }

        private void trickle(Hostile h, long nowNs) {
            try {
                if (h.sent < h.hello.length - 1) {
                    h.channel.write(ByteBuffer.wrap(h.hello, h.sent, 1));
                    h.sent++;
                }
                h.nextNs = nowNs + TRICKLE_NS;
            } catch (IOException e) {
                dropped(h);
            }
        }

        private void ready(Hostile h, SelectionKey key) {
            try {
                if (key.isConnectable()) {
                    h.channel.finishConnect();
                    connected(h, key);
                    return;
                }
                ByteBuffer into = h.step == Step.IDLE || h.step == Step.TRICKLING ? discard.clear() : h.in;
                int n = h.channel.read(into);
                if (n < 0) {
                    dropped(h);
                    return;
                }
                if (h.step == Step.CHALLENGE || h.step == Step.WELCOME) {
                    handshake(h);
                } else if (n > 0 && !h.answered) {
                    answer(h, into);
                }
            } catch (IOException e) {
                dropped(h);
            }
        }

        /** Reads the challenge or the WELCOME as it arrives, and answers the challenge. */
        private void handshake(Hostile h) throws IOException {
            if (h.in.position() < Bootstrap.FRAME_LENGTH) {
                return;
            }
            int type = Byte.toUnsignedInt(h.in.get(Bootstrap.FRAME_TYPE_OFFSET));
            int body = h.in.order(ByteOrder.LITTLE_ENDIAN).getInt(Bootstrap.FRAME_BODY_LENGTH_OFFSET);
            if (h.in.position() < Bootstrap.FRAME_LENGTH + body) {
                return;
            }
            if (type == Bootstrap.WELCOME) {
                answer(h, h.in);
                h.step = Step.IDLE;
                if (h.kind == PARTIAL_REQUEST && h.answered && accepted(h.in)) {
                    h.channel.write(ByteBuffer.wrap(partialRequest()));
                }
                return;
            }
            // The challenge: a stalling prover stops here; an attacker holding the key proves it.
            if (h.kind == AUTH_STALL) {
                h.step = Step.IDLE;
                return;
            }
            byte[] challenge = Arrays.copyOf(h.in.array(), Bootstrap.FRAME_LENGTH + body);
            byte[] mac = PskExchange.clientProof(PeerKeys.NONE.with(HostileBench.KEY_ID, HostileBench.KEY)
                    .mac(HostileBench.KEY_ID), h.hello, challenge);
            h.channel.write(ByteBuffer.wrap(Bootstrap.encodeFrame(Bootstrap.AUTH_PROOF, mac)));
            h.in.clear();
            h.step = Step.WELCOME;
        }

        private static boolean accepted(ByteBuffer welcome) {
            return welcome.order(ByteOrder.LITTLE_ENDIAN).getShort(Bootstrap.FRAME_LENGTH + Bootstrap.STATUS_OFFSET)
                    == RefusalCode.ACCEPTED.wire();
        }

        private void answer(Hostile h, ByteBuffer received) {
            h.answered = true;
            if (received.position() >= Bootstrap.FRAME_LENGTH + 2
                    && Byte.toUnsignedInt(received.get(Bootstrap.FRAME_TYPE_OFFSET)) == Bootstrap.WELCOME) {
                if (accepted(received)) {
                    accepted.incrementAndGet();
                } else {
                    refused.incrementAndGet();
                }
            }
        }

        /** A header announcing 4,096 payload bytes and one range, then 10 of the bytes. */
        private static byte[] partialRequest() {
            int payload = 4096;
            byte[] message = new byte[(int) MessageHeader.requestLength(payload, 1)];
            MemorySegment segment = MemorySegment.ofArray(message);
            new MessageHeader().wrap(segment, 0).reset(MessageType.REQUEST, 0).op(1).payloadLength(payload)
                    .rangeCount(1);
            RangeDescriptor.write(segment, MessageHeader.rangesOffset(payload), 0, 4096, 0);
            return Arrays.copyOf(message, MessageHeader.LENGTH + 10);
        }

        private void dropped(Hostile h) {
            if (!h.answered) {
                unanswered.incrementAndGet();
            }
            closeQuietly(h);
            h.nextNs = System.nanoTime() + (h.kind == STORM ? 0 : REOPEN_NS);
        }

        private static void closeQuietly(Hostile h) {
            if (h.channel != null) {
                try {
                    h.channel.close();
                } catch (IOException e) {
                    // Closed all the same.
                }
                h.channel = null;
                h.step = null;
            }
        }

        @Override
        public void stop() throws InterruptedException {
            stopped = true;
            selector.wakeup();
            thread.join(10_000);
        }

        @Override
        public String summary() {
            return opened.get() + " opened, " + refused.get() + " refused, " + accepted.get() + " accepted, "
                    + unanswered.get() + " dropped unanswered";
        }
    }

    /** Clients that submit a request for 32 MiB and never read its response; each comes back every 6 s. */
    private static final class NeverReaders implements HostileBench.Attacker, Runnable {
        private final InetSocketAddress server;
        private final List<InetAddress> from;
        private final boolean keysOn;
        private final OflClient[] clients;
        private final long[] openedAtNs;
        private final Arena arena = Arena.ofShared();
        private final MemorySegment memory;
        private final Thread thread;
        private final AtomicLong connects = new AtomicLong();
        private final AtomicLong failures = new AtomicLong();
        private volatile boolean stopped;

        NeverReaders(InetSocketAddress server, List<InetAddress> from, int count, boolean keysOn) {
            this.server = server;
            this.from = from;
            this.keysOn = keysOn;
            this.clients = new OflClient[count];
            this.openedAtNs = new long[count];
            // One memory for every client: nothing is ever read into it.
            this.memory = arena.allocate(16L * RANGE_BYTES);
            thread = Thread.ofPlatform().name("hostile-never-reading").daemon().start(this);
        }

        @Override
        public void run() {
            while (!stopped) {
                long nowNs = System.nanoTime();
                for (int i = 0; i < clients.length && !stopped; i++) {
                    if (clients[i] == null || nowNs - openedAtNs[i] >= NEVER_READ_PERIOD_NS) {
                        close(i);
                        open(i);
                        openedAtNs[i] = nowNs;
                    }
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        private void open(int i) {
            ClientConfig.Builder builder = ClientConfig.builder().server(server).localAddress(from.get(i % from.size()))
                    .serviceName(HostileBench.SERVICE).connectTimeout(Duration.ofSeconds(1))
                    .limits(new Limits(4096, 16 * RANGE_BYTES, 16, 1));
            if (keysOn) {
                builder.authenticationKey(HostileBench.KEY_ID, HostileBench.KEY);
            }
            try {
                OflClient client = Ofl.connect(builder.build());
                clients[i] = client;
                connects.incrementAndGet();
                Region region = client.registerRegion(memory);
                ResponseRanges ranges = new ResponseRanges();
                for (int r = 0; r < 16; r++) {
                    ranges.add(region, (long) r * RANGE_BYTES, RANGE_BYTES);
                }
                client.submit(HostileBench.OP_FILL, 0, 0, ranges);
            } catch (RuntimeException e) {
                failures.incrementAndGet();
            }
        }

        private void close(int i) {
            if (clients[i] != null) {
                try {
                    clients[i].close();
                } catch (RuntimeException e) {
                    // Gone all the same.
                }
                clients[i] = null;
            }
        }

        @Override
        public void stop() throws InterruptedException {
            if (stopped) {
                return;
            }
            stopped = true;
            thread.join(10_000);
            for (int i = 0; i < clients.length; i++) {
                close(i);
            }
            arena.close();
        }

        @Override
        public String summary() {
            return connects.get() + " connects, " + failures.get() + " failed";
        }
    }
}
