/**
 * The separate-process benchmark: {@code server} and {@code client} roles, the ABBA schedule,
 * summaries, JSON and chart output, and the {@code compare} tool with its plain peers.
 */
package dev.ofl.bench.run;
