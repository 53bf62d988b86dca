#!/bin/sh
# The analysis tools on a file of a million rows (issue 23, cause 10): makes
# the file with the real writer on the model backend (jobs/full.yaml, the
# strided_read axes widened: 1,093,365 points, no GPU needed; some 8 minutes
# on one core), then times `sweep-report` of it, `sweep-compare` of it
# against a copy and `sweep-export --csv` of it, each with its peak resident
# memory (/usr/bin/time: the largest process of the tool's tree, its forked
# worker included). Prints one line per tool; the figures are in
# docs/results/analysis-1m.md and (the export) docs/results/export-memory.md.
# A benchmark, not a test: it asserts nothing. A tool that runs past
# BENCH_LIMIT_S (default 900) is killed and reported as not finished.
# Usage: scripts/bench-analysis.sh [WORK]   (from the source root; WORK
# default build/bench-analysis, where the file is kept for the next run)
# Environment: BUILD_DIR (default build; its sweep and venv are used).
set -u
build=${BUILD_DIR:-build}
work=${1:-$build/bench-analysis}
limit=${BENCH_LIMIT_S:-900}
sweep=$build/sweep
py=$build/venv/bin/python
[ -x "$sweep" ] || { echo "bench-analysis: no $sweep: build sweep first" >&2; exit 2; }
[ -x "$py" ] || { echo "bench-analysis: no $py: scripts/bootstrap.sh test makes it" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench-analysis: needs /usr/bin/time (GNU time)" >&2; exit 2; }
mkdir -p "$work"
big=$work/big.h5
if [ ! -f "$big" ]; then
	echo "bench-analysis: making $big (model backend, about 1.1M points)"
	"$sweep" --backend model jobs/full.yaml -q \
		--set strided_read.block=0,32,64,96,128,256,512,1024 \
		--set strided_read.vec=1,2,4 --set strided_read.elem_bytes=4,8 \
		-o "$big.part" --force || exit 1
	mv "$big.part" "$big"
fi
[ -f "$work/copy.h5" ] || cp "$big" "$work/copy.h5"
rows=$("$py" -c 'import h5py, sys; print(len(h5py.File(sys.argv[1])["measurements"]))' "$big")
echo "bench-analysis: $big: $rows rows, $(du -m "$big" | cut -f1) MiB;" \
	"revision $(git rev-parse --short=7 HEAD 2>/dev/null || echo unknown)" \
	"$(git diff --quiet HEAD -- analysis 2>/dev/null || echo '(analysis/ changed)');" \
	"$(nproc) cores, $(date -u +%Y-%m-%d)"

# The tools as the venv installs them, from this tree (PYTHONPATH), figures without a display.
PYTHONPATH=$(pwd)/analysis${PYTHONPATH:+:$PYTHONPATH}
export PYTHONPATH MPLBACKEND=Agg
bench() { # name, then the tool's module and arguments
	name=$1
	shift
	# timeout signals its whole process group: the tool's forked worker too
	/usr/bin/time -f "%e %M" -o "$work/$name.time" timeout -s KILL "$limit" \
		"$py" -m "$@" >"$work/$name.out" 2>"$work/$name.err"
	rc=$?
	# shellcheck disable=SC2046 # the two numbers time wrote
	set -- $(tail -1 "$work/$name.time")
	if [ "$rc" = 137 ]; then
		echo "$name: not finished after $limit s (stopped; its peak memory is not known)"
	else
		echo "$name: exit $rc, $1 s, peak RSS $(($2 / 1024)) MiB"
	fi
}
bench report sweep_analysis.report "$big" -o "$work/report" --force
bench compare sweep_analysis.compare "$big" "$work/copy.h5" --md "$work/compare.md"
# issue 36 cause 13: --csv of the measurements streams (docs/results/export-memory.md)
bench export sweep_analysis.export "$big" --csv -o "$work/big.csv"
