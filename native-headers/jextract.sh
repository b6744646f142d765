#!/bin/sh
# Regenerates the libibverbs layouts with jextract where jextract exists (it cannot be installed
# on the ofl build machines; there the layouts in ofl-ffm-verbs/src/main/java/dev/ofl/verbs/ffm
# are maintained by hand in the same shape and pinned by VerbsLayoutTest).
#
# Usage: native-headers/jextract.sh [output-dir]     (default: target/jextract)
# Needs: jextract 22+ (https://jdk.java.net/jextract/) and libibverbs-dev.
#
# The output is for comparison, not for committing over the hand-written layer: jextract emits
# one header class with static methods for constants and functions, while ofl splits constants
# per C enum, names offsets *_OFFSET and binds the data-path verbs through the ops table.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-"$here/../target/jextract"}
header=${VERBS_HEADER:-/usr/include/infiniband/verbs.h}
[ -f "$header" ] || { echo "missing $header: apt-get install libibverbs-dev" >&2; exit 1; }
command -v jextract >/dev/null || { echo "jextract not found: https://jdk.java.net/jextract/" >&2; exit 1; }
mkdir -p "$out"
exec jextract \
    --output "$out" \
    --target-package dev.ofl.verbs.ffm \
    --header-class-name verbs_h \
    --library :libibverbs.so.1 \
    -I /usr/include \
    @"$here/jextract-includes.txt" \
    "$header"
