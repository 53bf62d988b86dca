#!/bin/sh
# Issue 22's measurement on the lent H200, from a clean checkout: builds the
# sweep binary at this revision, runs jobs/seeds.yaml (and, with --full,
# jobs/full.yaml), then prints from the files timed / wall, the per-family
# time budget (phase columns), the RSE rule and the median ratios against the
# committed references. About 30 s + 20 s; --full adds about 250-380 s.
# Usage: [REV=abc1234] scripts/h200-budget.sh [--full] OUT   (from the source root)
set -u
full=0
if [ "${1:-}" = "--full" ]; then full=1; shift; fi
out=${1:?usage: scripts/h200-budget.sh [--full] OUT}
mkdir -p "$out"
# REV names a tree without .git; otherwise git says, -dirty included
if [ -z "${REV:-}" ]; then
	REV=$(git rev-parse --short=7 HEAD 2>/dev/null || echo unknown)
	git diff --quiet HEAD 2>/dev/null || REV="$REV-dirty"
fi
rev=$REV
t0=$(date +%s)
if ! cmake -S . -B build-gpu -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF \
	-DSWEEP_GIT_REV="$rev" >"$out/configure.log" 2>&1 ||
	! cmake --build build-gpu --target sweep >"$out/build.log" 2>&1; then
	tail -30 "$out/configure.log" "$out/build.log"
	exit 1
fi
echo "build $rev: $(($(date +%s) - t0)) s"
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.mem --format=csv >"$out/gpu.txt" 2>&1
files="" refs=""
run() { # job, reference
	t=$(date +%s)
	build-gpu/sweep -q "jobs/$1.yaml" -o "$out/$1.h5" >"$out/$1.log" 2>&1
	echo "$1: rc $? in $(($(date +%s) - t)) s"
	files="$files $out/$1.h5"
	refs="$refs --ref $2"
}
run seeds docs/results/gpu-runs/h200-check-2b86d9f/seeds-gpu-1.h5
[ "$full" = 1 ] && run full docs/results/h200-full.h5
if python3 -c "import h5py, numpy" 2>/dev/null; then
	# shellcheck disable=SC2086 # the lists are meant to split
	python3 scripts/budget-figures.py $files $refs | tee "$out/figures.txt"
else
	echo "no h5py/numpy here: run scripts/budget-figures.py$files$refs where they are"
fi
