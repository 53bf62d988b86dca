#!/usr/bin/env python3
"""A second recording for the replay backend, made from a real one: a stand-in.

    make-replay-recording.py SRC.h5 DST.h5 [--device H100-SXM] [--seed 1]

Copies SRC (a sweep result file measured on one GPU) to DST and changes, for
each row, its times by a factor of its family and variant (FACTORS below,
invented: memory-bound variants 1.4 times slower, roughly the H200's 4.8 TB/s
over the H100 SXM's 3.35; atomics and shared-memory variants as recorded;
matmul 0.95), and a few points (1 in 50, by a hash of the point id and
--seed) twice more: its samples, median_ns, min_ns, mean_ns, stddev_ns,
timed_s and its wall time (end_unix moves, start_unix stays); gbps and gflops
follow. /devices then names the --device GPU with that GPU's figures
(DEVICES below: the datasheet and deviceQuery figures of the time model's
table, src/model/gpu_table.h). The root attribute `stand_in` says what was
done. Nothing in DST was measured on that GPU: it is a recording whose
classes rank points differently from SRC's, for the replay backend's
--replay-devices CLASS:COUNT=FILE while no real recording of that GPU exists.
Needs h5py and NumPy.
"""

import argparse
import hashlib
import shutil
import sys

import h5py
import numpy as np

# (family, variant or None for every other variant) -> time factor
FACTORS = {
    ("histogram", "global_atomic"): 1.0,
    ("histogram", "shared_priv"): 1.0,
    ("histogram", "shared_wide"): 1.0,
    ("reduce", "atomic"): 1.0,
    ("smem_bank", None): 1.0,
    ("matmul", None): 0.95,
}
MEMORY_BOUND = 1.4
SLOW_EVERY = 50  # 1 point in SLOW_EVERY twice as slow again

# the /devices figures of each GPU this script can stand in for
DEVICES = {
    "H100-SXM": dict(
        name="NVIDIA H100 80GB HBM3",
        cc=90,
        sm_count=132,
        mem_clock_khz=2619000,
        mem_bus_width_bits=5120,
        peak_gbps=2 * 2619000e3 * 5120 / 8 / 1e9,
        l2_bytes=52428800,
        mem_bytes=85520809984,
    ),
}


def slowed(point_id, seed):
    """Whether the point is one of the few twice as slow again."""
    h = hashlib.blake2b(f"{seed}:{point_id}".encode(), digest_size=8).digest()
    return int.from_bytes(h, "little") % SLOW_EVERY == 0


def factor(family, variant, point_id, seed):
    f = FACTORS.get((family, variant), FACTORS.get((family, None), MEMORY_BOUND))
    return f * (2.0 if slowed(point_id, seed) else 1.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--device", default="H100-SXM", choices=sorted(DEVICES))
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    shutil.copyfile(a.src, a.dst)
    with h5py.File(a.dst, "r+") as f:
        m = f["measurements"][:]
        s = f["samples"][:]
        k = np.array(
            [
                factor(r["family"].decode(), r["variant"].decode(), int(r["point_id"]), a.seed)
                for r in m
            ]
        )
        for c in ("median_ns", "min_ns", "mean_ns", "stddev_ns", "timed_s"):
            m[c] = m[c] * k
        for c in ("gbps", "gflops"):
            m[c] = m[c] / k
        m["end_unix"] = m["start_unix"] + (m["end_unix"] - m["start_unix"]) * k
        for r, fk in zip(m, k):
            o, n = int(r["sample_offset"]), int(r["n_samples"])
            s[o : o + n] *= fk
        f["measurements"][:] = m
        f["samples"][:] = s
        d = f["devices"][:]
        for c, v in DEVICES[a.device].items():
            d[c] = v
        f["devices"][:] = d
        f.attrs["stand_in"] = (
            f"not measured: {a.src} with its times changed by family and variant "
            f"(scripts/make-replay-recording.py, seed {a.seed}) and /devices of {a.device}"
        )
        slow = sum(slowed(int(i), a.seed) for i in m["point_id"])
    print(f"{a.dst}: {len(m)} rows, {slow} of them twice as slow again; device {a.device}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
