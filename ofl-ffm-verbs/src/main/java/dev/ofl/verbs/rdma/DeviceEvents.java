package dev.ofl.verbs.rdma;

import dev.ofl.verbs.AsyncEvent;
import dev.ofl.verbs.Context;
import dev.ofl.verbs.VerbsException;
import dev.ofl.verbs.ffm.ibv_event_type;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A device context's asynchronous events and what they do to the connections made on it, read on
 * the process's {@link CompletionPoller} thread (no thread per device): {@code IBV_EVENT_PORT_ERR}
 * breaks every link on that port at once, {@code IBV_EVENT_DEVICE_FATAL} (or an event stream that
 * fails, as after the device was removed) every link of the context, and
 * {@code IBV_EVENT_QP_FATAL} or {@code IBV_EVENT_CQ_ERR} that one link. Each broken link is
 * {@linkplain Link#failLink(String) failed} with a reason that names its cause ("port 1 of rxe0
 * went down"); each event is logged, recorded as {@code dev.ofl.DeviceEvent} and acknowledged.
 * A GID change needs nothing here: every connection selects its GID from the table as it is then.
 *
 * <p>Without these events a connection learns that its port went down only when a request's
 * retries run out (the RC retry budget) or, between requests, never. Thread-safe.
 */
final class DeviceEvents implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DeviceEvents.class);

    private final Context context;
    /** The one event buffer, used on the poller thread (taking an event allocates nothing). */
    private final AsyncEvent event;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    /** Null if the descriptor could not be watched: then only retries and liveness tell. */
    private final CompletionPoller.Registration registration;
    /** Why the device can no longer be used, once it failed. */
    private volatile String failure;

    private DeviceEvents(Context context, CompletionPoller poller) {
        this.context = context;
        this.event = context.asyncEvents();
        CompletionPoller.Registration watching = null;
        try {
            watching = poller.watch(context.asyncEventDescriptor(), this::onReadable);
        } catch (IOException | RuntimeException e) {
            LOG.warn("the asynchronous events of {} cannot be watched ({}): its connections learn of a port that "
                    + "went down only when their retries run out", context.deviceName(), e.getMessage());
        }
        this.registration = watching;
    }

    /** Starts watching {@code context}'s events on {@code poller}. */
    static DeviceEvents watch(Context context, CompletionPoller poller) {
        return new DeviceEvents(context, poller);
    }

    /** Whether events are watched at all; for tests. */
    boolean watching() {
        return registration != null;
    }

    /** Makes {@code link} one that the device's events can break; until {@link #remove}. */
    void add(Link link) {
        links.add(link);
    }

    /** Forgets {@code link}; before its queue pair is destroyed. */
    void remove(Link link) {
        links.remove(link);
    }

    /** Why the device failed, or {@code null}: a failed device is opened again before the next connection. */
    String failure() {
        return failure;
    }

    /** Takes every pending event; on the poller thread. */
    private boolean onReadable() {
        while (true) {
            try {
                if (!event.take()) {
                    return true;
                }
            } catch (VerbsException e) {
                String reason = context.deviceName() + " failed: its event stream ended (" + e.getMessage() + ")";
                breakAll(new ArrayList<>(links), reason, "event stream failed", 0);
                failure = reason;
                return false;
            }
            dispatch();
        }
    }

    private void dispatch() {
        List<Link> hit = new ArrayList<>();
        String reason = null;
        int port = event.isPortEvent() ? event.port() : 0;
        // The links are found before the event is acknowledged (an acknowledged queue pair may be
        // destroyed and its address reused) and broken after it: destroying a queue pair waits for
        // the acknowledgement of its events, and a link's teardown holds its lock meanwhile.
        try {
            switch (event.type()) {
                case ibv_event_type.IBV_EVENT_PORT_ERR -> {
                    reason = "port " + port + " of " + context.deviceName() + " went down (IBV_EVENT_PORT_ERR)";
                    for (Link link : links) {
                        if (link.gid.port() == port) {
                            hit.add(link);
                        }
                    }
                }
                case ibv_event_type.IBV_EVENT_DEVICE_FATAL -> {
                    reason = context.deviceName() + " failed (IBV_EVENT_DEVICE_FATAL)";
                    hit.addAll(links);
                }
                case ibv_event_type.IBV_EVENT_QP_FATAL, ibv_event_type.IBV_EVENT_CQ_ERR -> {
                    boolean cq = event.type() == ibv_event_type.IBV_EVENT_CQ_ERR;
                    for (Link link : links) {
                        long address = cq ? link.cq.address().address() : link.qp.address().address();
                        if (address == event.element()) {
                            hit.add(link);
                            reason = (cq ? "the completion queue of qp " : "qp ") + link.qp.qpNumber() + " of "
                                    + context.deviceName() + " failed (" + event.typeName() + ")";
                        }
                    }
                }
                default -> {
                    // PORT_ACTIVE, GID_CHANGE and the rest: nothing to break; logged and recorded below.
                    // QP_REQ_ERR and QP_ACCESS_ERR are the peer's doing (a request or an access this
                    // side refused): the failed completion that comes with them breaks the connection
                    // and names it, as a transport failure, not the link's.
                }
            }
        } finally {
            event.acknowledge();
        }
        breakAll(hit, reason, event.typeName(), port);
        if (event.type() == ibv_event_type.IBV_EVENT_DEVICE_FATAL) {
            // Only now, so that one who sees the device failed also sees its links failed.
            failure = reason;
        }
    }

    private void breakAll(List<Link> hit, String reason, String type, int port) {
        for (Link link : hit) {
            try {
                link.failLink(reason);
            } catch (RuntimeException e) {
                // One link that cannot be failed must not stop the device's events for the others.
                LOG.error("failing qp {} after \"{}\" failed", link.qp.qpNumber(), reason, e);
            }
        }
        if (reason != null) {
            LOG.warn("{}: {} connection(s) of this process broken", reason, hit.size());
        } else if (type.equals("IBV_EVENT_PORT_ACTIVE")) {
            LOG.info("port {} of {} is active (IBV_EVENT_PORT_ACTIVE)", port, context.deviceName());
        } else {
            LOG.debug("{} on {} port {}", type, context.deviceName(), port);
        }
        DeviceEventRecord record = new DeviceEventRecord();
        if (record.shouldCommit()) {
            record.device = context.deviceName();
            record.port = port;
            record.event = type;
            record.connectionsBroken = hit.size();
            record.reason = reason;
            record.commit();
        }
    }

    /** Stops watching; waits for a handler in progress. Before the context is closed. */
    @Override
    public void close() {
        if (registration != null) {
            registration.close();
        }
        event.close();
    }
}
