"""The rows as every tool takes them: each row joined to its /devices row
and device class, and the selections of rows: the latest of a point,
per GPU, and one per point and device class (its median GPU's)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .reader_format import CALIBRATION, DEVICE_CLASS, EMULATES, MODEL_DEVICE, Run


def class_labels(devices: pd.DataFrame) -> pd.Series:
    """Each /devices row's device class: the file's `device_class` where it
    has one (schema 5), else derived as the writer derives it: a GPU model is
    (name, CC, memory), labelled by its name unless two models of the file
    share it, then "name CC x.y, N GiB". Model-backend rows: "model"."""
    model = devices["backend"] == "model"
    given = devices.get(DEVICE_CLASS)
    keys = devices[["name", "cc", "mem_bytes"]][~model].drop_duplicates()
    shared = set(keys["name"][keys["name"].duplicated()])
    out = []
    for i, d in devices.iterrows():
        if model[i]:
            out.append("model")
        elif given is not None and given[i]:
            out.append(str(given[i]))
        elif d["name"] in shared:
            out.append(f"{d['name']} CC {cc_text(d['cc'])}, {d['mem_bytes'] / 2**30:.0f} GiB")
        else:
            out.append(str(d["name"]))
    return pd.Series(out, index=devices.index, dtype=object)


# The /devices columns each row gets (_join_devices), by the names it gets them under.
DEVICE_JOIN = {
    EMULATES: EMULATES,
    "host": "host",
    "uuid": "uuid",
    "name": "device_name",
    "peak_gbps": "peak_gbps",
    "sm_count": "sm_count",
    "pci_bus_id": "pci_bus_id",
    "emulates": "emulates",
    DEVICE_CLASS: DEVICE_CLASS,
}
DEVICE_JOINED = list(dict.fromkeys(DEVICE_JOIN.values()))


def _join_devices(run: Run):
    """Add the columns of each row's /devices row (by rank and session) to
    every row (run.all_rows)."""
    d = run.devices.drop_duplicates(["rank", "session"], keep="last").copy()
    d[DEVICE_CLASS] = class_labels(d) if len(d) else pd.Series(dtype=object)
    if EMULATES not in d:  # the GPU an emulated device replays: "" where unknown
        d[EMULATES] = ""
    keep = DEVICE_JOIN
    d = d[["rank", "session", *keep]].rename(columns=keep).reset_index(drop=True)
    # a left join on (rank, session), whose keys are unique in d: each row's
    # device row by position (-1: none, NaN as a merge gives), the rows' own
    # columns not copied
    at = pd.MultiIndex.from_frame(d[["rank", "session"]]).get_indexer(
        pd.MultiIndex.from_frame(run.rows[["rank", "session"]])
    )
    rows = shallow(run.rows)
    for c in keep.values():
        rows[c] = d[c].reindex(at).set_axis(rows.index)
    rows[EMULATES] = rows[EMULATES].fillna("")
    # the labels, made once per distinct (backend, CC, device row, target) and
    # given to each row: a million rows share a few label strings
    key = ["backend", "cc", "device_name", DEVICE_CLASS, MODEL_DEVICE]
    group = rows.groupby(key, sort=False, dropna=False).ngroup().to_numpy()
    first = rows[key].iloc[np.unique(group, return_index=True)[1]]
    cls, device = _device_labels(first)
    rows[DEVICE_CLASS] = cls[group]
    rows["device"] = device[group]
    rows["file"] = run.label
    run.all_rows = rows


def _device_labels(rows) -> tuple:
    """The device class and the device label of rows: arrays of str. A model
    row is "model CC 9.0" for a CC target, "model H100-SXM (CC 9.0)" for a
    device target (the time model's GPU: model_device)."""
    model = rows["backend"] == "model"
    target = rows[MODEL_DEVICE].fillna("").astype(str)
    name = rows["device_name"].fillna("unknown device").astype(str)
    cls = rows[DEVICE_CLASS].fillna(name).astype(str)
    # a class whose label is not its name (two models share the name) is named by its label
    label = np.where(cls != name, cls, name)
    cc = rows["cc"].map(cc_text).astype(str)  # str even with no rows (a sweep just started)
    emulated = np.where(rows["backend"] == "replay", ", emulated", "")
    modelled = np.where(target != "", "model " + target + " (CC " + cc + ")", "model CC " + cc)
    device = np.where(model, modelled, label + " (CC " + cc + emulated + ")")
    return np.asarray(np.where(model, "model", cls), dtype=object), np.asarray(device, dtype=object)


def device_targets(rows: pd.DataFrame) -> np.ndarray:
    """Which rows are the model's device targets (`--model-devices`: a GPU of
    the time model's table, model_device set), as a boolean array; the other
    model rows are CC targets, shown apart from them."""
    return ((rows["backend"] == "model") & (rows[MODEL_DEVICE].fillna("") != "")).to_numpy()


def cc_text(cc) -> str:
    """90 -> '9.0'."""
    cc = int(cc)
    return f"{cc // 10}.{cc % 10}"


def take(rows: pd.DataFrame, pos) -> pd.DataFrame:
    """rows at these positions, in this order: a frame over the same columns
    (no copy, copy on write) when that is all of them in order."""
    pos = np.asarray(pos, dtype=np.int64)
    if len(pos) == len(rows) and (pos == np.arange(len(rows))).all():
        return shallow(rows)
    return rows.take(pos)


# pandas copies on write (always from pandas 3): two frames may share their
# columns, and a change to one copies what it changes. Without it, a frame
# shares nothing: it is a copy.
COPY_ON_WRITE = int(pd.__version__.split(".")[0]) >= 3 or (
    getattr(pd.options.mode, "copy_on_write", False) is True
)


def shallow(rows: pd.DataFrame) -> pd.DataFrame:
    """A frame of its own over the same columns where pandas copies on write,
    a copy where it does not."""
    return rows.copy(deep=not COPY_ON_WRITE)


def _latest_pos(keys: pd.DataFrame, by) -> np.ndarray:
    """Positions of the last row of each group `by` in session order (stable:
    file order within a session), in that order. keys: session and by."""
    order = np.argsort(keys["session"].to_numpy(), kind="stable")
    last = ~keys.iloc[order].duplicated(by, keep="last").to_numpy()
    return order[last]


def latest(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per point and backend: the one of the latest session."""
    return take(
        rows, _latest_pos(rows[["session", "point_id", "backend"]], ["point_id", "backend"])
    )


def _gpu_keys(rows: pd.DataFrame) -> pd.DataFrame:
    """The columns that tell one GPU's row of a point from another's: UUID and
    rank (two ranks sharing a GPU each keep theirs); none for model rows."""
    gpu = (rows["backend"] != "model").to_numpy()
    return pd.DataFrame(
        {
            "session": rows["session"].to_numpy(),
            "point_id": rows["point_id"].to_numpy(),
            "backend": rows["backend"].to_numpy(),
            "_uuid": np.where(gpu, rows["uuid"].fillna("").astype(str).to_numpy(), ""),
            "_rank": np.where(gpu, rows["rank"].to_numpy(), -1),
        }
    )


PER_GPU = ["point_id", "backend", "_uuid", "_rank"]


def latest_per_gpu(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per point, backend and GPU (UUID and rank: two ranks sharing
    a GPU each keep theirs): the one of the latest session. Model rows have
    no GPU: one per point and backend."""
    return take(rows, _latest_pos(_gpu_keys(rows), PER_GPU))


def class_rows(rows: pd.DataFrame, placement: str = "once") -> pd.DataFrame:
    """One row per point, backend and device class: what a table of a
    class's figures shows. Rows of a point that ran once (placement `once`,
    not a calibration point, or a model row) keep the latest session's, as
    `latest` does. A point that ran on several GPUs of a class (every_gpu, a
    calibration point) is shown by its median GPU's row (by median time, the
    lower middle of an even count; ok rows before the others), so the figure
    shown is one GPU's real measurement with its own samples. Rows keep
    their order; only the chosen ones are copied."""
    once = (rows["backend"] == "model") | ((rows[CALIBRATION] == 0) & (placement == "once"))
    once = once.to_numpy()
    at_once = np.flatnonzero(once)
    keys = rows[["session", "point_id", "backend"]]
    kept = [at_once[_latest_pos(keys.iloc[at_once], ["point_id", "backend"])]]
    at_many = np.flatnonzero(~once)
    if len(at_many):
        many = _gpu_keys(rows.iloc[at_many])
        many_pos = at_many[_latest_pos(many, PER_GPU)]
        kept.append(_median_gpu_pos(rows.iloc[many_pos], many_pos))
    pos = np.concatenate(kept)
    # in the rows' order (by index label, as their rows were)
    return take(rows, pos[np.argsort(rows.index.to_numpy()[pos], kind="stable")])


def _median_gpu_pos(many: pd.DataFrame, pos: np.ndarray) -> np.ndarray:
    """Of each point's rows on several GPUs (many, at positions pos), the
    position of its median GPU's, per point, backend and class."""
    keys = ["point_id", "backend", DEVICE_CLASS]
    m = pd.DataFrame(
        {
            **{k: many[k].to_numpy() for k in keys},
            "_bad": (many["status"] != 0).astype(int).to_numpy(),
            "_t": many["median_ns"].fillna(np.inf).to_numpy(),
            "_pos": pos,
        }
    )
    m = m.sort_values([*keys, "_bad", "_t"], kind="stable")
    g = m.groupby(keys, sort=False, dropna=False)
    size = g["_bad"].transform("size")
    n_ok = size - g["_bad"].transform("sum")
    pick = np.where(n_ok > 0, (n_ok - 1) // 2, size - 1)
    return m["_pos"].to_numpy()[g.cumcount().to_numpy() == pick]
