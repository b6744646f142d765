package dev.ofl.check;

import dev.ofl.conformance.OflConformanceSuite;
import dev.ofl.conformance.TransportUnderTest;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The conformance suite for the backend, address and properties the command was given: the
 * {@link TransportUnderTest} comes from the launcher's configuration parameters
 * ({@value #BACKEND}, {@value #ADDRESS}, and {@value #PROPERTY_PREFIX}{@code NAME} for each backend
 * property), so nothing static carries state between runs. Only {@link ConformanceRun} runs it.
 */
@ExtendWith(BackendConformance.FromConfiguration.class)
class BackendConformance extends OflConformanceSuite {
    /** The backend's name. */
    static final String BACKEND = "ofl.check.backend";
    /** The IPv4 address servers bind and clients connect from. */
    static final String ADDRESS = "ofl.check.address";
    /** A backend property, for example {@code ofl.check.property.rdma.device}. */
    static final String PROPERTY_PREFIX = "ofl.check.property.";
    /** Comma-separated names of the properties given, since JUnit cannot list parameters by prefix. */
    static final String PROPERTY_NAMES = "ofl.check.propertyNames";

    BackendConformance(TransportUnderTest transport) {
        super(transport);
    }

    /** Resolves the constructor's {@link TransportUnderTest} from the configuration parameters. */
    static final class FromConfiguration implements ParameterResolver {
        @Override
        public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
            return parameter.getParameter().getType() == TransportUnderTest.class;
        }

        @Override
        public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
            String backend = required(context, BACKEND);
            InetAddress address;
            try {
                address = InetAddress.getByName(required(context, ADDRESS));
            } catch (UnknownHostException e) {
                throw new ParameterResolutionException(ADDRESS + " is not an address: " + e.getMessage(), e);
            }
            Map<String, String> properties = new LinkedHashMap<>();
            for (String name : context.getConfigurationParameter(PROPERTY_NAMES).orElse("").split(",")) {
                if (!name.isEmpty()) {
                    properties.put(name, required(context, PROPERTY_PREFIX + name));
                }
            }
            TransportUnderTest transport = TransportUnderTest.named(backend).withBindAddress(address)
                    .withClientProperties(properties).withServerProperties(properties);
            // RDMA finds its RoCE v2 GID from an IPv4 address and documents refusing IPv6.
            return "rdma".equals(backend) ? transport.refusingIpv6() : transport;
        }

        private static String required(ExtensionContext context, String key) {
            return context.getConfigurationParameter(key).orElseThrow(
                    () -> new ParameterResolutionException("the launcher did not pass " + key));
        }
    }
}
