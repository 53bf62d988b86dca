#!/bin/sh
# Reads, with Nsight Compute, the two counters issue 4 names for a set of
# seeds.yaml points: global load sectors per request and shared-load bank
# conflicts (plus the requests and wavefronts behind them), so that sweep's
# own CUPTI figures (--counters) can be checked against ncu's. One sweep run
# per point, each a one-point job; ncu profiles that point's first launch of
# its kernel (the checked launch). Writes OUTDIR/ncu.csv:
#   point,kernel,metric,value
# Usage: scripts/ncu-crosscheck.sh SWEEP OUTDIR     (on a GPU machine, with ncu)
set -eu
sweep=$1
out=$2
mkdir -p "$out"
metrics=l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio
metrics=$metrics,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
metrics=$metrics,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
metrics=$metrics,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
metrics=$metrics,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
metrics=$metrics,smsp__inst_executed_op_shared_ld.sum
csv=$out/ncu.csv
echo "point,kernel,metric,value" >"$csv"

# point name | kernel | family | variant | axes (YAML flow mapping)
while IFS='|' read -r name kernel family variant axes; do
	[ -n "$name" ] || continue
	dir=$out/$name
	mkdir -p "$dir"
	cat >"$dir/job.yaml" <<-EOF
	name: ncu-$name
	measure: {min_samples: 1, max_samples: 1, warmup: 1}
	families:
	  $family:
	    variants: [$variant]
	    axes: $axes
	EOF
	ncu --clock-control none --metrics "$metrics" -k "regex:^$kernel\$" --launch-count 1 \
		-f -o "$dir/report" "$sweep" -q --backend cuda "$dir/job.yaml" -o "$dir/out.h5" \
		</dev/null >"$dir/ncu.log" 2>&1 || { echo "ncu failed for $name: see $dir/ncu.log" >&2; continue; }
	ncu --import "$dir/report.ncu-rep" --csv --page raw --metrics "$metrics" </dev/null \
		>"$dir/raw.csv"
	# raw page: a header row of names, a row of units, then one row per kernel
	python3 - "$dir/raw.csv" "$name" "$kernel" "$metrics" >>"$csv" <<-'EOF'
	import csv, sys
	path, name, kernel, metrics = sys.argv[1:]
	rows = list(csv.reader(open(path)))
	head = next(i for i, r in enumerate(rows) if "Kernel Name" in r)
	cols, data = rows[head], rows[head + 2:]
	for m in metrics.split(","):
	    v = data[0][cols.index(m)].replace(",", "")
	    print(f"{name},{kernel},{m},{v}")
	EOF
done <<'POINTS'
strided_s1|strided_read_course_kernel|strided_read|course|{stride: 1, n: 64M}
strided_s2|strided_read_course_kernel|strided_read|course|{stride: 2, n: 64M}
strided_s8|strided_read_course_kernel|strided_read|course|{stride: 8, n: 64M}
strided_s32|strided_read_course_kernel|strided_read|course|{stride: 32, n: 64M}
offset_1|offset_read_kernel|offset_read|offset|{offset: 1, n: 256M}
float3_aos|float3_aos_kernel|float3|aos|{n: 64M}
float3_soa|float3_soa_kernel|float3|soa|{n: 64M}
rowsum_thread|rowsum_thread_kernel|rowsum|thread_per_row|{rows: 8192, cols: 8192}
transpose_naive|transpose_naive_kernel|transpose|naive|{rows: 8192, cols: 8192, tile: 32, block_rows: 8}
transpose_pad0|transpose_shared_kernel|transpose|shared|{rows: 8192, cols: 8192, tile: 32, block_rows: 8, pad: 0}
transpose_pad1|transpose_shared_kernel|transpose|shared|{rows: 8192, cols: 8192, tile: 32, block_rows: 8, pad: 1}
smem_s1|smem_bank_kernel|smem_bank|stride|{word_stride: 1}
smem_s2|smem_bank_kernel|smem_bank|stride|{word_stride: 2}
smem_s32|smem_bank_kernel|smem_bank|stride|{word_stride: 32}
smem_broadcast|smem_bank_kernel|smem_bank|broadcast|{word_stride: 0}
matmul_tiled32|matmul_tiled_kernel|matmul|tiled|{size: 4096, tile: 32, pad: 0}
POINTS
echo "wrote $csv"
