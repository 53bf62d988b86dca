#!/bin/sh
# A short libFuzzer run for ctest: FUZZER over the committed CORPUS with its
# DICT, RUNS inputs of at most MAX_LEN bytes from a fixed seed (the same run
# every time), stopped after SECONDS (default 30) on a slow machine. New
# inputs go to a scratch directory, never into the source tree. A crash,
# leak, timeout or broken contract fails the test and leaves the input as
# crash-*, leak-* or timeout-* in the test's working directory: reproduce it
# with replay_job or replay_set.
# usage: short_run.sh FUZZER CORPUS DICT RUNS MAX_LEN [SECONDS]
set -eu
[ $# -ge 5 ] || {
	echo "usage: $0 FUZZER CORPUS DICT RUNS MAX_LEN [SECONDS]" >&2
	exit 2
}
fuzzer=$1 corpus=$2 dict=$3 runs=$4 max_len=$5 seconds=${6:-30}
[ -d "$corpus" ] || {
	echo "short_run: no corpus directory $corpus" >&2
	exit 1
}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$fuzzer" -seed=1 -runs="$runs" -max_len="$max_len" -max_total_time="$seconds" \
	-dict="$dict" -timeout=10 -rss_limit_mb=2048 -error_exitcode=1 -timeout_exitcode=1 \
	-print_final_stats=1 -artifact_prefix="$PWD/" "$scratch" "$corpus"
