# Reading JUnit's XML report (the console launcher's TEST-junit-jupiter.xml), for the test stages
# that run outside Maven: tools/rxe-guest/guest.sh and tools/aarch64/run.sh. Sourced, not run.

# junit_counts XML MATCH: "passed failed seconds skipped" of the test cases whose classname starts
# with MATCH (a class name followed by '"' for exactly that class); "0 1 0 0" when there is none.
# A skipped test is neither passed nor failed: the caller decides what a skip counts as.
junit_counts() {
    awk -v cls="$2" '
        /<testcase / {
            inside = index($0, "classname=\"" cls) > 0
            if (inside) {
                n++
                bad = 0
                if (match($0, /time="[0-9.]+"/)) t += substr($0, RSTART + 6, RLENGTH - 7)
            }
            next
        }
        inside && /<(failure|error)[ >\/]/ { if (!bad) { failed++; bad = 1 } }
        inside && /<skipped[ >\/]/ { if (!bad) { skipped++; bad = 1 } }
        /<\/testcase>/ { inside = 0 }
        END { if (n == 0) print "0 1 0 0"; else printf "%d %d %.1f %d\n", n - failed - skipped, failed, t, skipped }
    ' "$1" 2>/dev/null || echo "0 1 0 0"
}

# junit_failures XML MATCH: one line per failed test case whose classname starts with MATCH, with
# the first 300 characters of its failure message, so that a red run names what failed.
junit_failures() { junit_list "$1" "$2" 'failure|error' FAILED 300; }

# junit_skipped XML MATCH: one line per skipped test case whose classname starts with MATCH, with
# the first 200 characters of the reason it gave.
junit_skipped() { junit_list "$1" "$2" skipped SKIPPED 200; }

# junit_list XML MATCH ELEMENTS LABEL WIDTH: "LABEL Class.test: text" for each test case whose
# classname starts with MATCH and that holds one of ELEMENTS (an alternation, e.g. failure|error);
# the text is the element's message attribute, or else its body, cut to WIDTH characters.
junit_list() {
    awk -v cls="$2" -v elements="$3" -v label="$4" -v width="$5" '
        /<testcase / {
            inside = index($0, "classname=\"" cls) > 0
            if (inside && match($0, /name="[^"]*"/)) name = substr($0, RSTART + 6, RLENGTH - 7)
            if (inside && match($0, /classname="[^"]*"/)) owner = substr($0, RSTART + 11, RLENGTH - 12)
            next
        }
        inside && $0 ~ ("<(" elements ")[ >/]") {
            text = ""
            if (match($0, /message="[^"]*"/)) {
                text = substr($0, RSTART + 9, RLENGTH - 10)
            } else {
                text = $0
                sub(/.*<[a-z]+[^>]*>(<!\[CDATA\[)?/, "", text)
                sub(/^org\.opentest4j\.TestAbortedException: /, "", text)
            }
            printf "%s %s.%s: %s\n", label, owner, name, substr(text, 1, width)
            inside = 0
        }
        /<\/testcase>/ { inside = 0 }
    ' "$1" 2>/dev/null
}

# junit_classes XML PACKAGE: one line "Class passed failed seconds skipped" per top-level class of
# PACKAGE (or a package below it) in the report, by simple name, in the report's order; a @Nested
# class counts under the class holding it.
junit_classes() {
    awk -v pkg="$2." '
        /<testcase / {
            inside = 0
            if (!match($0, /classname="[^"]*"/)) next
            cls = substr($0, RSTART + 11, RLENGTH - 12)
            if (index(cls, pkg) != 1) next
            sub(/\$.*/, "", cls)
            sub(/.*\./, "", cls)
            if (!(cls in n)) order[++classes] = cls
            n[cls]++
            inside = 1
            bad = 0
            if (match($0, /time="[0-9.]+"/)) t[cls] += substr($0, RSTART + 6, RLENGTH - 7)
            next
        }
        inside && /<(failure|error)[ >\/]/ { if (!bad) { failed[cls]++; bad = 1 } }
        inside && /<skipped[ >\/]/ { if (!bad) { skipped[cls]++; bad = 1 } }
        /<\/testcase>/ { inside = 0 }
        END {
            for (i = 1; i <= classes; i++) {
                c = order[i]
                printf "%s %d %d %.1f %d\n", c, n[c] - failed[c] - skipped[c], failed[c] + 0, t[c], skipped[c] + 0
            }
        }
    ' "$1" 2>/dev/null
}
