package dev.ofl.check;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs the backend conformance suite ({@code ofl-conformance}, the one every backend's build runs)
 * with the JUnit Platform launcher against the address and backend properties the command was
 * given, both ends in this process, and turns each test into a {@link CheckResult} named
 * {@code conformance.Behaviour.test}. The suite's servers bind the address on ports the system
 * picks. Not thread-safe; one run at a time.
 */
final class ConformanceRun {
    private ConformanceRun() {
    }

    /**
     * Runs the suite.
     *
     * @param backend the backend's name
     * @param address what servers bind and clients connect from
     * @param properties backend properties for every client and server
     * @param report called with each result as it is known
     * @return the results, one per test (a container that fails before its tests run is one result)
     */
    static List<CheckResult> run(String backend, InetAddress address, Map<String, String> properties,
            Consumer<CheckResult> report) {
        LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectClass(BackendConformance.class))
                .configurationParameter(BackendConformance.BACKEND, backend)
                .configurationParameter(BackendConformance.ADDRESS, address.getHostAddress())
                .configurationParameter(BackendConformance.PROPERTY_NAMES, String.join(",", properties.keySet()))
                // The operator's own junit-platform.properties, if any on the class path, must not change the run.
                .enableImplicitConfigurationParameters(false);
        properties.forEach((name, value) -> request.configurationParameter(BackendConformance.PROPERTY_PREFIX + name,
                value));
        LauncherDiscoveryRequest discovery = request.build();
        Results results = new Results(report);
        LauncherFactory.create().execute(discovery, results);
        return results.all;
    }

    /** Collects one result per test, and per container that failed on its own. */
    private static final class Results implements TestExecutionListener {
        private final Consumer<CheckResult> report;
        private final List<CheckResult> all = new ArrayList<>();
        private TestPlan plan;

        Results(Consumer<CheckResult> report) {
            this.report = report;
        }

        @Override
        public void testPlanExecutionStarted(TestPlan testPlan) {
            plan = testPlan;
        }

        @Override
        public void executionSkipped(TestIdentifier test, String reason) {
            add(new CheckResult(name(test), false, "skipped: " + reason));
        }

        @Override
        public void executionFinished(TestIdentifier test, TestExecutionResult result) {
            boolean passed = result.getStatus() == TestExecutionResult.Status.SUCCESSFUL;
            if (!test.isTest() && passed) {
                return;
            }
            String detail = result.getThrowable().map(ConformanceRun::describe).orElse(passed ? "" : "aborted");
            add(new CheckResult(name(test), passed, detail));
        }

        private void add(CheckResult result) {
            all.add(result);
            report.accept(result);
        }

        /** {@code conformance.EchoAndRanges.rowsStreamedInSeveralCommitsArriveIntact[288_rows_of_256_bytes]} and the like. */
        private String name(TestIdentifier test) {
            List<TestIdentifier> path = new ArrayList<>();
            for (Optional<TestIdentifier> at = Optional.of(test); at.isPresent() && at.get().getParentId().isPresent();
                    at = plan.getParent(at.get())) {
                path.addFirst(at.get());
            }
            StringBuilder name = new StringBuilder("conformance");
            boolean underMethod = false;
            // The first node is the suite class itself: every name would carry it.
            for (TestIdentifier node : path.subList(Math.min(1, path.size()), path.size())) {
                boolean method = node.getSource().orElse(null) instanceof MethodSource;
                if (method && underMethod) {
                    name.append('[').append(node.getDisplayName().replace(' ', '_')).append(']');
                } else if (node.getSource().orElse(null) instanceof MethodSource source) {
                    name.append('.').append(source.getMethodName());
                } else {
                    name.append('.').append(node.getDisplayName());
                }
                underMethod = method;
            }
            return name.toString();
        }
    }

    /** The failure's first line, with its type when the message alone would not say what broke. */
    private static String describe(Throwable failure) {
        String message = String.valueOf(failure.getMessage());
        int newline = message.indexOf('\n');
        String first = newline < 0 ? message : message.substring(0, newline) + " …";
        return failure instanceof AssertionError ? first : failure.getClass().getSimpleName() + ": " + first;
    }
}
