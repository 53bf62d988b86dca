#!/usr/bin/env bash
# The GPU runs of issue 35 item 7, one call per class (docs/results/time-model.md,
# "Held out"):
#   scripts/gpu-held-out.sh REV CLASS    (CLASS: h100 or h200, a file-name prefix)
# on a clean checkout of REV, built for arch 90 only: the GPU tests
# (test_gpu, test_example_gpu), then jobs/fleet.yaml (the calibration, with
# the index_read and naive matmul points it gained), examples/time.yaml (the
# three example plug-ins, built against this build's install) and
# jobs/new-points.yaml. nvidia-smi's device name is recorded with every run
# and the class is refused when the card is not one, so that no figure is
# put down to the wrong card. Results: $OUT/CLASS.tgz.
set -u
source .devdeps/env.sh
rev=$1 what=$2
out=$OUT/$what
mkdir -p "$out"
t0=$(date +%s)
say() { echo "$what +$(($(date +%s) - t0)) s: $*"; }
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv >"$out/nvidia-smi.csv" 2>&1
say "GPU: $(sed -n 2p "$out/nvidia-smi.csv")"
case "$what" in
h100) want="H100" ;;
h200) want="H200" ;;
*) want="?" ;;
esac
if ! sed -n 2p "$out/nvidia-smi.csv" | grep -q "$want"; then
	say "this card is not an $want: nothing measured"
	cd "$OUT" && tar czf "$what.tgz" "$what"
	exit 3
fi
cmake -S . -B build-gpu -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSWEEP_GIT_REV="$rev" \
	-DBUILD_TESTING=ON -DCMAKE_INSTALL_PREFIX=/tmp/sweep-prefix >"$out/cfg.log" 2>&1 &&
	cmake --build build-gpu >"$out/build.log" 2>&1 &&
	cmake --install build-gpu >"$out/install.log" 2>&1 || {
	tail -30 "$out/build.log"
	exit 1
}
say "built $(build-gpu/sweep --version | head -1)"
(cd build-gpu && timeout 300 ctest -R "^(test_gpu|test_example_gpu)$" --output-on-failure) >"$out/ctest-gpu.log" 2>&1
say "GPU tests: rc $?; $(grep -E 'tests passed' "$out/ctest-gpu.log")"
plugins=()
for e in gather spmv stencil2d; do
	cmake -S examples/$e -B build-gpu/ex-$e -G Ninja -DCMAKE_PREFIX_PATH=/tmp/sweep-prefix \
		>>"$out/examples-build.log" 2>&1 && cmake --build build-gpu/ex-$e >>"$out/examples-build.log" 2>&1 ||
		say "example $e: build failed"
	plugins+=(--plugin "build-gpu/ex-$e/$e.so")
done
run() { # name job [more sweep args]: one rank, the output in $out
	local name=$1 job=$2
	shift 2
	build-gpu/sweep -q "$@" "$job" -o "$out/$name.h5" >"$out/$name.log" 2>&1
	say "$name: rc $? ($(tail -1 "$out/$name.log"))"
}
run "$what-fleet" jobs/fleet.yaml
run "$what-examples" examples/time.yaml "${plugins[@]}"
run "$what-new-points" jobs/new-points.yaml
cd "$OUT" && tar czf "$what.tgz" "$what" && rm -rf "$what"
say "done"
