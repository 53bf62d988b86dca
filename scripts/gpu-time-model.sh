#!/usr/bin/env bash
# The GPU runs of issue 29 item 5, one call each (docs/results/time-model.md):
#   scripts/gpu-time-model.sh REV h100   the H100: jobs/fleet.yaml, seeds.yaml,
#                                        full.yaml (resumed when the call is cut)
#   scripts/gpu-time-model.sh REV h200   test_gpu and test_example_gpu, and on an
#                                        H200 (nvidia-smi says) jobs/fleet.yaml
# on a clean checkout of REV, built for arch 90 only, with the measure
# settings the jobs carry. nvidia-smi's device name is recorded with every
# run, so that no figure is put down to the wrong card. Results go to
# $OUT/<class>.tgz; FULL_S bounds the full job's run in this call.
set -u
source .devdeps/env.sh
rev=$1 what=$2
out=$OUT/$what
mkdir -p "$out"
t0=$(date +%s)
say() { echo "$what +$(($(date +%s) - t0)) s: $*"; }
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv >"$out/nvidia-smi.csv" 2>&1
nvidia-smi -q >"$out/nvidia-smi-q.txt" 2>&1
say "GPU: $(sed -n 2p "$out/nvidia-smi.csv")"
testing=OFF
[ "$what" = h200 ] && testing=ON
cmake -S . -B build-gpu -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSWEEP_GIT_REV="$rev" \
	-DBUILD_TESTING=$testing >"$out/cfg.log" 2>&1 &&
	cmake --build build-gpu >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
say "built $(build-gpu/sweep --version | head -1)"
run() { # name job [more sweep args]: one rank, the output in $out
	local name=$1 job=$2
	shift 2
	build-gpu/sweep -q "$@" "$job" -o "$out/$name.h5" >"$out/$name.log" 2>&1
	say "$name: rc $? ($(tail -1 "$out/$name.log"))"
}
if [ "$what" = h200 ]; then
	(cd build-gpu && timeout 240 ctest -R "test_gpu|test_example_gpu" --output-on-failure) >"$out/ctest-gpu.log" 2>&1
	say "test_gpu: rc $?; $(grep -E 'tests passed' "$out/ctest-gpu.log")"
	# the fleet check only where the card is an H200: the name says
	if grep -q "H200" "$out/nvidia-smi.csv"; then run h200-fleet jobs/fleet.yaml; fi
else
	run h100-fleet jobs/fleet.yaml
	run h100-seeds jobs/seeds.yaml
	# kept in build-gpu/, which a warm machine keeps: a cut run resumes
	if [ -e build-gpu/h100-full.h5 ]; then resume=--resume; else resume=; fi
	timeout -s TERM "${FULL_S:-440}" build-gpu/sweep -q $resume jobs/full.yaml \
		-o build-gpu/h100-full.h5 >>"$out/h100-full.log" 2>&1
	say "h100-full: rc $? ($(tail -1 "$out/h100-full.log"))"
	cp build-gpu/h100-full.h5 "$out/"
fi
cd "$OUT" && tar czf "$what.tgz" "$what" && rm -rf "$what"
say "done"
