#!/usr/bin/env bash
# One GPU call after the time model's L1 lines (docs/results/time-model.md,
# "Where it misses"): the GPU tests at REV, then Nsight Compute's counts for
# the naive matmul's three tiles and the fleet's constant-cache loop, the
# points whose L1 request rate the calibration shares: instructions,
# global-load requests and sectors, L1 wavefronts and cycles of one launch
# each. nvidia-smi's device name is recorded first.
#   scripts/gpu-l1-probe.sh REV      (on the GPU machine, .devdeps carried)
# Writes $OUT/l1-probe.tgz: nvidia-smi.csv, ctest-gpu.log, ncu.csv
# (point,kernel,metric,value) and each point's ncu log.
set -u
source .devdeps/env.sh
rev=$1
out=$OUT/l1-probe
mkdir -p "$out"
t0=$(date +%s)
say() { echo "+$(($(date +%s) - t0)) s: $*"; }
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,clocks.max.mem --format=csv \
	>"$out/nvidia-smi.csv" 2>&1
say "GPU: $(sed -n 2p "$out/nvidia-smi.csv")"
cmake -S . -B build-gpu -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DSWEEP_GIT_REV="$rev" \
	-DBUILD_TESTING=ON >"$out/cfg.log" 2>&1 &&
	cmake --build build-gpu >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
say "built $(build-gpu/sweep --version | head -1)"
(cd build-gpu && timeout 150 ctest -R "^(test_gpu|test_gpu_memcheck)$" --output-on-failure) \
	>"$out/ctest-gpu.log" 2>&1
say "GPU tests: rc $?; $(grep -E 'tests passed' "$out/ctest-gpu.log")"

metrics=smsp__inst_executed.sum,sm__cycles_elapsed.avg
metrics=$metrics,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
metrics=$metrics,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
metrics=$metrics,l1tex__data_pipe_lsu_wavefronts.sum
csv=$out/ncu.csv
echo "point,kernel,metric,value" >"$csv"
while IFS='|' read -r name kernel family variant axes; do
	dir=$out/$name
	mkdir -p "$dir"
	printf 'name: l1-%s\nmeasure: {min_samples: 1, max_samples: 1, warmup: 1}\nfamilies:\n  %s:\n    variants: [%s]\n    axes: %s\n' \
		"$name" "$family" "$variant" "$axes" >"$dir/job.yaml"
	timeout 60 ncu --clock-control none --metrics "$metrics" -k "regex:^$kernel\$" \
		--launch-count 1 --csv --page raw build-gpu/sweep -q --backend cuda "$dir/job.yaml" \
		-o "$dir/out.h5" </dev/null >"$dir/ncu.log" 2>&1
	say "$name: ncu rc $?"
	python3 - "$dir/ncu.log" "$name" "$kernel" "$metrics" >>"$csv" <<-'EOF'
	import csv, sys
	path, name, kernel, metrics = sys.argv[1:]
	rows = [r for r in csv.reader(open(path)) if r]
	head = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
	if head is not None and len(rows) > head + 2:
	    cols, data = rows[head], rows[head + 2]
	    for m in metrics.split(","):
	        if m in cols:
	            print(f"{name},{kernel},{m},{data[cols.index(m)].replace(',', '')}")
	EOF
done <<'POINTS'
mm_t8|matmul_naive_kernel|matmul|naive|{size: 4096, tile: 8}
mm_t16|matmul_naive_kernel|matmul|naive|{size: 4096, tile: 16}
mm_t32|matmul_naive_kernel|matmul|naive|{size: 4096, tile: 32}
const_global|const_read_global_kernel|constant_read|global|{distinct: 1}
POINTS
rm -rf build-gpu/Testing
cd "$OUT" && tar czf l1-probe.tgz l1-probe && rm -rf l1-probe
say "done"
