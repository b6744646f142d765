/** Extracts the packaged softverbs library and selects it for the ofl RDMA backend. */
package dev.ofl.softverbs;
