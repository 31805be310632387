#!/bin/sh
# A short libFuzzer run of the library's parsers (tests/fuzz/run-fuzz):
# MNOTIFY_FUZZ_SECONDS (default 60).  Skipped (77) without clang.
set -eu
top=${top_srcdir:-$(dirname "$0")/../..}
"$top/tests/fuzz/run-fuzz" "$top" "$(cd ../.. && pwd)"
