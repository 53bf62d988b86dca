"""The time model's table of real GPUs as the report reads it: a copy of
`sweep --list-devices` (src/model/gpu_table.h, one GPU a line, each figure
with its source), parsed from that output into gpu_table.csv beside this
module, so the report needs no sweep binary. test_gpus.py fails when the
copy and the binary's table differ; to refresh it:

    python -m sweep_analysis.gpus build/sweep > analysis/sweep_analysis/gpu_table.csv

It holds no figure of its own. A GPU is found as sweep finds a measured one
(sw_gpu_of_driver_name): by its table name or the name its driver reports,
case apart; no partial match, so a name that is not a GPU's finds none.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pandas as pd

CSV = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gpu_table.csv")
COLUMNS = ["name", "driver_name", "cc", "sms", "boost_mhz", "dram_gbps", "l2_mib", "fp32_gflops"]

# A row of `sweep --list-devices`: name, CC, SMs, MHz, DRAM GB/s, L2 MiB,
# FP32 GF/s, then "driver name; sources" (src/main.c, print_devices).
_ROW = re.compile(
    r"^(\S+)\s+(\d+)\.(\d)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([^;]+);"
)
_COUNT = re.compile(r"^GPUs the time model knows \((\d+)\)")


def parse_list_devices(text: str) -> pd.DataFrame:
    """The table of `sweep --list-devices`' output. Raises ValueError when the
    rows read are not as many as its first line announces (a changed format)."""
    lines = text.splitlines()
    m = _COUNT.match(lines[0]) if lines else None
    if not m:
        raise ValueError("not the output of sweep --list-devices (no 'GPUs the time model knows')")
    rows = []
    for ln in lines:
        r = _ROW.match(ln)
        if r and r.group(1) != "name":
            g = r.groups()
            rows.append(
                [g[0], g[8].strip(), 10 * int(g[1]) + int(g[2]), int(g[3])]
                + [float(x) for x in g[4:8]]
            )
    if len(rows) != int(m.group(1)):
        raise ValueError(
            f"sweep --list-devices announces {m.group(1)} GPUs, {len(rows)} rows were read: "
            "its format changed (sweep_analysis/gpus.py reads it)"
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def to_csv(table: pd.DataFrame) -> str:
    return table.to_csv(index=False, lineterminator="\n")


_table = None


def table() -> pd.DataFrame:
    """The committed copy of the table (gpu_table.csv)."""
    global _table
    if _table is None:
        _table = pd.read_csv(CSV, dtype={"name": str, "driver_name": str})
    return _table


def find(name) -> dict | None:
    """The table's row of a GPU named by its table name or its driver's name,
    case apart, as a dict; None when no entry is named so."""
    if not isinstance(name, str) or not name.strip():
        return None
    t = table()
    key = name.strip().lower()
    hit = t[(t["name"].str.lower() == key) | (t["driver_name"].str.lower() == key)]
    return hit.iloc[0].to_dict() if len(hit) else None


def main(argv) -> int:
    if len(argv) != 2:
        print("usage: python -m sweep_analysis.gpus SWEEP_BINARY > gpu_table.csv", file=sys.stderr)
        return 2
    p = subprocess.run([argv[1], "--list-devices"], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        print(f"{argv[1]} --list-devices failed: {p.stderr}", file=sys.stderr)
        return 2
    sys.stdout.write(to_csv(parse_list_devices(p.stdout)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
