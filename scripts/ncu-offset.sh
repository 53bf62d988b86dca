#!/bin/sh
# Why a start offset costs bandwidth when model and load counters agree
# (issue 15, item 7; docs/model.md "Where model and hardware part"). Times
# offset_read at a few offsets with sweep itself (one job, the same run), then
# reads with Nsight Compute, for each point's first launch, what the memory
# system did below the load unit: L1 requests and sectors, L2 requests,
# sectors, hits and misses, DRAM bytes and each unit's throughput. Metrics
# this ncu does not know are dropped (and listed) rather than failing the run.
# Writes OUTDIR/offset.h5 (sweep's rows) and OUTDIR/ncu.csv:
#   point,offset,n,metric,value
# Usage: scripts/ncu-offset.sh SWEEP OUTDIR     (on a GPU machine, with ncu)
set -eu
sweep=$1
out=$2
mkdir -p "$out"
want="gpu__time_duration.sum
l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
l1tex__m_xbar2l1tex_read_sectors.sum
lts__t_requests_srcunit_tex_op_read.sum
lts__t_sectors_srcunit_tex_op_read.sum
lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum
lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum
lts__t_tag_requests.sum
lts__d_sectors_fill_device.sum
dram__sectors_read.sum
dram__bytes_read.sum
dram__throughput.avg.pct_of_peak_sustained_elapsed
lts__throughput.avg.pct_of_peak_sustained_elapsed
l1tex__throughput.avg.pct_of_peak_sustained_elapsed"
ncu --query-metrics >"$out/query.txt" 2>&1 || true
metrics=
for m in $want; do
	base=${m%%.*}
	if grep -q "^$base " "$out/query.txt"; then
		metrics=${metrics:+$metrics,}$m
	else
		echo "ncu here has no $base: left out" >&2
	fi
done
# a query that failed (no device at query time) lists nothing: ask for all
[ -n "$metrics" ] || metrics=$(echo $want | tr ' ' ,)

offsets="0 1 8 16 24 32"
sizes="256M 1G"
cat >"$out/job.yaml" <<-EOF
name: offset-study
families:
  offset_read:
    variants: [offset]
    axes: {offset: [$(echo $offsets | tr ' ' ,)], n: [$(echo $sizes | tr ' ' ,)]}
EOF
"$sweep" -q --backend cuda "$out/job.yaml" -o "$out/offset.h5"

csv=$out/ncu.csv
echo "point,offset,n,metric,value" >"$csv"
for n in $sizes; do
	for k in $offsets; do
		name=o${k}_n$n
		dir=$out/$name
		mkdir -p "$dir"
		cat >"$dir/job.yaml" <<-EOF
		name: ncu-$name
		measure: {min_samples: 1, max_samples: 1, warmup: 1}
		families:
		  offset_read:
		    variants: [offset]
		    axes: {offset: $k, n: $n}
		EOF
		ncu --clock-control none --metrics "$metrics" -k "regex:^offset_read_kernel\$" \
			--launch-count 1 -f -o "$dir/report" "$sweep" -q --backend cuda \
			"$dir/job.yaml" -o "$dir/out.h5" </dev/null >"$dir/ncu.log" 2>&1 ||
			{ echo "ncu failed for $name: see $dir/ncu.log" >&2; continue; }
		ncu --import "$dir/report.ncu-rep" --csv --page raw --metrics "$metrics" </dev/null \
			>"$dir/raw.csv"
		python3 - "$dir/raw.csv" "$name,$k,$n" "$metrics" >>"$csv" <<-'EOF'
		import csv, sys
		path, prefix, metrics = sys.argv[1:]
		rows = list(csv.reader(open(path)))
		head = next(i for i, r in enumerate(rows) if "Kernel Name" in r)
		cols, data = rows[head], rows[head + 2:]
		for m in metrics.split(","):
		    v = data[0][cols.index(m)].replace(",", "")
		    print(f"{prefix},{m},{v}")
		EOF
	done
done
echo "wrote $csv"
