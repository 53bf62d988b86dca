"""The README's Python block ("Reading the results") runs as written.

The block is cut out of README.md and executed in a folder holding a fresh
quick.h5 (jobs/quick.yaml on the model backend, written by the real C
writer), so a change to the README's code or to the file that breaks it
fails here.
"""

import contextlib
import io
import os
import re

from conftest import SOURCE, _sweep

SECTION = "## Reading the results"


def readme_block():
    """The first ```python block under SECTION, as text."""
    with open(os.path.join(SOURCE, "README.md"), encoding="utf-8") as f:
        text = f.read()
    start = text.find(f"\n{SECTION}\n")
    assert start >= 0, f"README.md has no '{SECTION}' section"
    # the section ends at the next heading of its level or above
    end = re.search(r"\n#{1,2} ", text[start + len(SECTION) + 1 :])
    section = text[start : start + len(SECTION) + 1 + end.start()] if end else text[start:]
    m = re.search(r"\n```python\n(.*?)\n```\n", section, flags=re.S)
    assert m, f"README.md's '{SECTION}' section has no ```python block"
    return m.group(1)


def test_readme_python_block(sweep_bin, tmp_path, monkeypatch):
    code = readme_block()
    assert "quick.h5" in code  # the block reads the file this test makes
    _sweep(sweep_bin, os.path.join(SOURCE, "jobs", "quick.yaml"), tmp_path / "quick.h5")
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md (Reading the results)", "exec"), {})
    printed = out.getvalue()
    # the rows it prints: decoded variant names, not bytes
    assert "stride" in printed and "model_sectors_per_request" in printed
    assert re.search(r"^\d+\s+course\s", printed, flags=re.M), printed
    assert "b'" not in printed
