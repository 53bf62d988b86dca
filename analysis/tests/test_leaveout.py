"""Leaving a family out of a calibration file (sweep_analysis.leaveout): the
copy lacks exactly that family's /measurements rows, keeps the rest of the
file (other rows, attributes, datasets), and never touches the source or
an existing destination."""

import h5py
import numpy as np
import pytest

from sweep_analysis import leaveout

ROW = np.dtype([("family", "S32"), ("median_ns", "f8")])


def _fleet(path):
    rows = np.array([(b"strided_read", 1.0), (b"smem_bank", 2.0), (b"strided_read", 3.0)], ROW)
    with h5py.File(path, "w") as f:
        m = f.create_dataset("measurements", data=rows, maxshape=(None,), chunks=True)
        m.attrs["units:median_ns"] = "ns"
        f.create_dataset("devices", data=np.arange(2))
    return path


def test_without_family_drops_its_rows_only(tmp_path):
    src = _fleet(str(tmp_path / "fleet.h5"))
    dst = str(tmp_path / "less.h5")
    assert leaveout.families(src) == ["smem_bank", "strided_read"]
    assert leaveout.without_family(src, dst, "strided_read") == 2
    with h5py.File(dst, "r") as f:
        m = f["measurements"]
        assert list(m["family"]) == [b"smem_bank"] and list(m["median_ns"]) == [2.0]
        assert m.attrs["units:median_ns"] == "ns"
        assert list(f["devices"][:]) == [0, 1]
    assert leaveout.families(src) == ["smem_bank", "strided_read"]  # the source as it was


def test_without_family_absent_and_existing(tmp_path):
    src = _fleet(str(tmp_path / "fleet.h5"))
    dst = str(tmp_path / "copy.h5")
    assert leaveout.without_family(src, dst, "rowsum") == 0
    assert leaveout.families(dst) == ["smem_bank", "strided_read"]
    with pytest.raises(FileExistsError):
        leaveout.without_family(src, dst, "smem_bank")
    assert leaveout.families(dst) == ["smem_bank", "strided_read"]  # left as it was
