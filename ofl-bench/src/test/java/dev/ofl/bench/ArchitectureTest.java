package dev.ofl.bench;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dependency directions of the project, checked on the compiled classes of every module: the
 * engine and the wire format in {@code ofl-api} depend on nothing of ours; each backend depends on
 * the SPI and never on another backend; the user package reaches into no backend; the raw verbs
 * binding is used only by the layer that owns native objects, the probe and the verbs
 * micro-benchmarks.
 */
class ArchitectureTest {
    private static final String[] BACKENDS = {"dev.ofl.tcp..", "dev.ofl.verbs..", "dev.ofl.testing.."};
    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.ofl");
        // A rule over an empty import proves nothing: make sure every module is in it.
        for (String name : new String[] {"dev.ofl.api.spi.ClientSession", "dev.ofl.tcp.TcpBackend",
            "dev.ofl.verbs.rdma.RdmaBackend", "dev.ofl.testing.FakeBackend", "dev.ofl.probe.Probe",
            "dev.ofl.verbs.ffm.ibv_wc"}) {
            assertTrue(classes.contain(name), name + " was not imported");
        }
    }

    @Test
    void theApiModuleDependsOnNothingOfOurs() {
        classes().that().resideInAPackage("dev.ofl.api..")
                // jdk.jfr: the sessions' JFR events (a JDK module, see ofl-api's module-info); javax.crypto:
                // peer authentication's HMAC (java.base).
                .should().onlyDependOnClassesThat()
                .resideInAnyPackage("dev.ofl.api..", "java..", "javax.crypto..", "jdk.jfr..", "org.slf4j..")
                .check(classes);
    }

    @Test
    void theWireFormatKnowsNothingOfTheEngine() {
        noClasses().that().resideInAPackage("dev.ofl.api.wire..")
                .should().dependOnClassesThat().resideInAPackage("dev.ofl.api.spi..")
                .check(classes);
    }

    @Test
    void backendsNeverDependOnEachOther() {
        for (String backend : BACKENDS) {
            for (String other : BACKENDS) {
                if (!other.equals(backend)) {
                    noClasses().that().resideInAPackage(backend)
                            .should().dependOnClassesThat().resideInAPackage(other)
                            .check(classes);
                }
            }
        }
    }

    /** JFR is allowed: a backend records events of its own (rdma: {@code dev.ofl.DeviceEvent}). */
    @Test
    void backendsUseTheEngineOnlyThroughTheSpiAndTheWireFormat() {
        for (String backend : BACKENDS) {
            classes().that().resideInAPackage(backend)
                    .should().onlyDependOnClassesThat().resideInAnyPackage(backend, "dev.ofl.api", "dev.ofl.api.spi",
                            "dev.ofl.api.wire", "java..", "org.slf4j..", "jdk.jfr..")
                    .check(classes);
        }
    }

    @Test
    void theUserPackageReachesIntoNoBackend() {
        noClasses().that().resideInAPackage("dev.ofl.api")
                .should().dependOnClassesThat().resideInAnyPackage(BACKENDS)
                .check(classes);
    }

    @Test
    void theRawBindingIsUsedOnlyByItsOwnersTheProbeAndTheVerbsBenchmarks() {
        classes().that().resideInAPackage("dev.ofl.verbs.ffm..")
                .should().onlyHaveDependentClassesThat().resideInAnyPackage("dev.ofl.verbs..", "dev.ofl.probe..",
                        "dev.ofl.bench.jmh..")
                .check(classes);
    }

    @Test
    void theEngineBackdoorIsUsedOnlyInsideTheApiModuleAndTheMicroBenchmarks() {
        classes().that().resideInAPackage("dev.ofl.api.internal..")
                .should().onlyHaveDependentClassesThat().resideInAnyPackage("dev.ofl.api..", "dev.ofl.bench.jmh..")
                .check(classes);
    }

    @Test
    void nothingUsesUnsafe() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("sun.misc..", "jdk.internal..")
                .check(classes);
    }
}
