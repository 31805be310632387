#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A short libFuzzer run of the library's parsers (tests/fuzz/run-fuzz):
# MNOTIFY_FUZZ_SECONDS (default 30 here; `make fuzz` runs 300).  Skipped
# (77) without clang, which ./mnotify-lab installs.
set -eu
top=${top_srcdir:-$(dirname "$0")/../..}
MNOTIFY_FUZZ_SECONDS=${MNOTIFY_FUZZ_SECONDS:-30} \
	"$top/tests/fuzz/run-fuzz" "$top" "$(cd ../.. && pwd)"
