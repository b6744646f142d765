/**
 * The ofl wire format, shared by every backend: the 64-byte message header, range descriptors and
 * bootstrap messages, each a flyweight or codec with its byte diagram, and the one place where
 * incoming fields are checked against negotiated limits. {@code docs/PROTOCOL.md} is the normative
 * description; these classes implement it. All fields are little-endian.
 */
package dev.ofl.api.wire;
