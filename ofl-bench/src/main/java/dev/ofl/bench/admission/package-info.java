/**
 * Admission measurements: idle connections' threads and memory, and good clients' connect times
 * under hostile sockets ({@link dev.ofl.bench.admission.AdmissionBench}).
 */
package dev.ofl.bench.admission;
