/**
 * {@code ofl check}: ofl's checks as an operator command against a real address and device. The
 * link checks run a client against an {@code ofl check} server, here or on another host; the
 * conformance suite of {@code ofl-conformance} runs, both ends in this process, through the JUnit
 * Platform launcher. {@link dev.ofl.check.Check} is the command.
 */
package dev.ofl.check;
