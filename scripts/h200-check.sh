#!/bin/sh
# The GPU half of a session, on the lent H200: builds a clean tree (REV names
# it), runs every gpu-labelled test, then the counter runs whose fixtures the
# CPU-only tests check. Writes under OUT: logs, the .h5 files, times.
# Usage: scripts/h200-check.sh REV OUT     (from the source root, on the GPU)
set -u
rev=$1
out=$2
mkdir -p "$out"
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSWEEP_GIT_REV="$rev" \
	>"$out/configure.log" 2>&1 && cmake --build build-gpu >"$out/build.log" 2>&1 ||
	{ tail -30 "$out/build.log"; exit 1; }
echo "build: $(($(date +%s) - t0)) s"
nvidia-smi --query-gpu=name,uuid,clocks.sm,clocks.mem --format=csv >"$out/gpu.txt"
(cd build-gpu && timeout 280 ctest -L gpu --output-on-failure) >"$out/ctest-gpu.log" 2>&1
echo "ctest -L gpu: rc $? after $(($(date +%s) - t0)) s"
grep -E "tests passed|Passed|Failed|Skipped" "$out/ctest-gpu.log" | tail -8
for job in launch seeds; do
	timeout 110 build-gpu/sweep -q --counters "jobs/$job.yaml" \
		-o "$out/h200-$job-counters.h5" >"$out/$job.log" 2>&1
	echo "$job --counters: rc $? after $(($(date +%s) - t0)) s"
done
