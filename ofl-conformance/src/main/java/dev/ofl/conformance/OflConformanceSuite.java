package dev.ofl.conformance;

import java.util.Objects;
import org.junit.jupiter.api.Nested;

/**
 * The conformance suite every ofl backend runs: each behaviour is a class of its own, and this
 * class runs all of them, as {@link Nested} classes, against the backend its subclass names. A
 * backend's test source needs one class:
 *
 * <pre>{@code
 * class TcpConformanceTest extends OflConformanceSuite {
 *     TcpConformanceTest() {
 *         super(TransportUnderTest.named("tcp"));
 *     }
 * }
 * }</pre>
 *
 * <p>JUnit (and so surefire, which selects the subclass by its name) runs every nested behaviour
 * for that backend; in the backend module's reports each behaviour appears as
 * {@code OflConformanceSuite$EchoAndRanges} and so on, under the subclass. To run one backend's
 * suite alone: {@code mvn verify -pl ofl-tcp -am -Dtest='TcpConformanceTest*'
 * -Dsurefire.failIfNoSpecifiedTests=false} (the trailing {@code *} keeps the nested classes). A
 * behaviour added here runs for every backend at once.
 *
 * <p>Every test starts its servers and clients through {@link dev.ofl.api.Ofl#serve} and
 * {@link dev.ofl.api.Ofl#connect} by backend name only. No test measures time: every wait is
 * bounded by a deadline, a latch await with a timeout or the per-test timeout, and no test sleeps
 * to synchronize. Each test checks every response byte it receives, and the bytes around the
 * ranges it gives, against what must be there.
 *
 * <p>Not thread-safe; JUnit runs one test of an instance at a time.
 */
public abstract class OflConformanceSuite {
    private final TransportUnderTest transport;

    /**
     * Creates the suite for one backend; JUnit calls the subclass's constructor once per test.
     *
     * @param transport the backend under test and what the suite needs to know about it
     */
    protected OflConformanceSuite(TransportUnderTest transport) {
        this.transport = Objects.requireNonNull(transport, "transport");
    }

    @Nested
    class EchoAndRanges extends EchoAndRangesBehaviour {
        EchoAndRanges() {
            super(transport);
        }
    }

    @Nested
    class RefusalAndFailure extends RefusalAndFailureBehaviour {
        RefusalAndFailure() {
            super(transport);
        }
    }

    @Nested
    class Timeouts extends TimeoutBehaviour {
        Timeouts() {
            super(transport);
        }
    }

    @Nested
    class RegionLifetime extends RegionLifetimeBehaviour {
        RegionLifetime() {
            super(transport);
        }
    }

    @Nested
    class Reconnect extends ReconnectBehaviour {
        Reconnect() {
            super(transport);
        }
    }

    @Nested
    class LimitsAndBootstrap extends LimitsAndBootstrapBehaviour {
        LimitsAndBootstrap() {
            super(transport);
        }
    }

    @Nested
    class Concurrency extends ConcurrencyBehaviour {
        Concurrency() {
            super(transport);
        }
    }

    @Nested
    class Shutdown extends ShutdownBehaviour {
        Shutdown() {
            super(transport);
        }
    }

    @Nested
    class Statistics extends StatisticsBehaviour {
        Statistics() {
            super(transport);
        }
    }

    @Nested
    class Threading extends ThreadingBehaviour {
        Threading() {
            super(transport);
        }
    }

    @Nested
    class Authentication extends AuthenticationBehaviour {
        Authentication() {
            super(transport);
        }
    }
}
