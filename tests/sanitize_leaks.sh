#!/usr/bin/env bash
# test_sanitize_leaks (-DSWEEP_SANITIZE=ON only): sweep itself under LeakSanitizer
# with full stacks, so that tests/lsan.supp can tell Open MPI's allocations
# from sweep's: a new file, a --resume of it and an --extend to one more n,
# and dry runs (a new file; under every_gpu, new and resumed), on the model
# backend. Any leak that is not Open MPI's fails the run (ASan's
# exit code 23).
# Usage: sanitize_leaks.sh SWEEP JOB.yaml
set -euo pipefail
sweep=$1 job=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/sanitize_leaks.XXXXXX")
trap 'rm -rf "$dir"' EXIT
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}:detect_leaks=1:fast_unwind_on_malloc=0:exitcode=23"

run() {
	local rc=0
	"$sweep" --backend model -q "$@" 2>"$dir/stderr" || rc=$?
	if ((rc != 0)); then
		cat "$dir/stderr" >&2
		echo "sanitize_leaks: sweep $* exited $rc" >&2
		exit 1
	fi
}
run "$job" -o "$dir/out.h5"
run --resume "$job" -o "$dir/out.h5"
run --extend --set strided_read.n=1M,2M,4M "$job" -o "$dir/out.h5"
# the dry runs' own paths (issue 30, cause 5): the output's checks, binding
# under a placement and the runs a resume owes
run --dry-run "$job" -o "$dir/new.h5"
run --placement every_gpu "$job" -o "$dir/every.h5"
run --dry-run --placement every_gpu "$job" -o "$dir/new.h5"
run --dry-run --resume --placement every_gpu "$job" -o "$dir/every.h5"
echo "sanitize_leaks: a new file, a resume, an extend and dry runs: no leak outside Open MPI"
