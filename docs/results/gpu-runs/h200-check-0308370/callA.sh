#!/bin/bash
# GPU call A: the gpu tests, the tail counters fixture, and issue 22's budget
# (seeds and full) of a clean revision.
set -u
source .devdeps/env.sh
rev=$1
out=$OUT/a
mkdir -p $out
t0=$(date +%s)
cmake -S . -B build-gpu -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSWEEP_GIT_REV=$rev >$out/cfg.log 2>&1 && cmake --build build-gpu >$out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build: $(($(date +%s) - t0)) s"
(cd build-gpu && timeout 200 ctest -L gpu --output-on-failure) >$out/ctest-gpu.log 2>&1
echo "ctest -L gpu: rc $? after $(($(date +%s) - t0)) s"
grep -E "tests passed|Passed|Failed|Skipped" $out/ctest-gpu.log | tail -5
timeout 60 build-gpu/sweep -q --counters -o $out/tail-counters.h5 tests/data/counters/tail.yaml >$out/tail.log 2>&1
echo "tail --counters: rc $? after $(($(date +%s) - t0)) s"
REV=$rev timeout 470 sh scripts/h200-budget.sh --full $out/budget 2>&1 | tail -60
echo "all: $(($(date +%s) - t0)) s"
