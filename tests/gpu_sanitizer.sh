#!/bin/sh
# Runs the GPU test under compute-sanitizer TOOL (memcheck, racecheck, ...).
# SKIPPED (77) where there is no GPU or no compute-sanitizer.
# usage: gpu_sanitizer.sh TOOL TEST_GPU_BINARY
tool=$1 test=$2
"$test" --probe || exit $?
if ! command -v compute-sanitizer >/dev/null 2>&1; then
	echo "compute-sanitizer not found: SKIPPED"
	exit 77
fi
SW_TEST_QUICK=1 exec compute-sanitizer --tool "$tool" --error-exitcode 1 "$test"
