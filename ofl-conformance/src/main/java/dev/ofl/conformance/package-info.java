/**
 * {@link dev.ofl.conformance.OflConformanceSuite}: the tests every backend must pass. A backend's
 * test source extends it and names the backend; the suite starts servers and clients through
 * {@link dev.ofl.api.Ofl} only, so the same assertions hold for TCP and RDMA.
 */
package dev.ofl.conformance;
