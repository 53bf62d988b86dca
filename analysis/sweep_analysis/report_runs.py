"""The report's sections on the runs: the title, each file's run and its
devices, the course claims (claims.py) and the closing note."""

from __future__ import annotations

import time

from . import __version__, claims, summary
from .doc import Bullets, Heading, Para, Table
from .reader import STATUS_NAMES, cc_text
from .report_page import TOOL
from .tables import fmt

ABOUT_COLUMNS = (
    "GB/s are useful bytes (what the computation must move, counted as the course counts "
    "them) over the median time of one launch; GFLOP/s likewise for matmul. `x ref` is a "
    "variant's throughput over its family's reference variant measured in the same file on "
    "the same device type at the same sizes. Model figures come from sweep's model for the "
    "row's compute capability (for measured rows: the measuring GPU's)."
)


class RunSections:
    """The header, the devices, the claims and the footer (a mixin of report.Report)."""

    def header(self):
        names = ", ".join(r.label for r in self.runs)
        self.add(Heading(1, f"sweep report: {names}"))

    def devices(self):
        """Each file's run (the Summary comes first, so the runs open this
        section), then every /devices row."""
        self.add(Heading(2, "Runs and devices"))
        for r in self.runs:
            a = r.attrs
            counts = r.rows["status"].value_counts()
            status = ", ".join(f"{int(counts.get(k, 0))} {v}" for k, v in STATUS_NAMES.items())
            job = a.get("job_path", "?")
            end = a.get("end_time", "not recorded (killed, or still running)")
            self.add(
                Para(
                    f"**{r.label}**: job `{job}`, written by {a.get('tool_version', '?')}; "
                    f"started {a.get('start_time', '?')}, ended {end}; "
                    f"{a.get('sessions', '?')} session(s), backend {a.get('backend', '?')}, "
                    f"{a.get('mpi_size', '?')} MPI rank(s). {len(r.rows)} rows: {status}."
                )
            )
            if r.notes:
                self.add(Bullets(r.notes))
        self.add(Para(ABOUT_COLUMNS))
        rows = []
        for r in self.runs:
            for _, d in r.devices.iterrows():
                model = d["backend"] == "model"
                rows.append(
                    [
                        r.label,
                        str(d["rank"]),
                        str(d["session"]),
                        d["host"],
                        "model backend"
                        if model
                        else d["name"] + (" (emulated)" if d["backend"] == "replay" else ""),
                        "-" if model else cc_text(d["cc"]),
                        "-" if model else str(d["sm_count"]),
                        "-" if model else fmt(d["peak_gbps"], 4),
                        "-" if model else f"{d['l2_bytes'] / 2**20:.0f}",
                        "-" if model else f"{d['mem_bytes'] / 2**30:.0f}",
                        "-" if model else _cuda_version(d["driver_version"]),
                        d["uuid"] or "-",
                    ]
                )
        self.add(
            Table(
                [
                    "file",
                    "rank",
                    "session",
                    "host",
                    "device",
                    "CC",
                    "SMs",
                    "peak GB/s",
                    "L2 MiB",
                    "memory GiB",
                    "driver CUDA",
                    "UUID",
                ],
                rows,
                right={1, 2, 6, 7, 8, 9},
            )
        )

    def claims(self):
        self.add(Heading(2, "Course claims"))
        self.add(
            Para(
                "Each claim of the course material beside what this file measured and what the "
                "model predicts; docs/course.md says, for each claim, where it comes from, how "
                "sweep tests it and on what hardware. The verdict comes from the rule in the last "
                "column, on the basis named beside it; *on the GPU* and *on the model* give each "
                "side's own verdict where it has one. *not in this file* means the file lacks the "
                "rows that rule needs: jobs/seeds.yaml measures every family, and the CC 1.x "
                "claims need model rows (`sweep --backend model jobs/seeds.yaml -o model.h5`, then "
                "`sweep-report seeds.h5 model.h5 -o DIR`)."
            ),
            Para(
                f"**How a verdict is earned.** {claims.EARNED_RULE} A verdict whose basis is "
                f"*{claims.RULE_ITSELF}* checks the model against a rule the model is written "
                f"from (C1, C2, C4, C15: the CC 1.x coalescing rules), so it confirms sweep's "
                f"code, not a GPU: those verdicts are counted apart from the measured ones. Where "
                f"the GPU and the model disagree the row says both (C6 on a recent GPU: SoA no "
                f"faster than AoS, while the model at CC 1.x prefers SoA)."
            ),
        )
        heads = ["claim", "statement", "course", "measured", "on the GPU", "model", "on the model"]
        table = Table([*heads, "verdict", "basis", "rule"], [], folded=True)
        short = Table([*heads, "verdict", "basis"], [])
        col = {"holds": "holds", "differs": "differs"}
        results = claims.evaluate(self.rows, {r.label: r.samples for r in self.runs})
        self.claim_results = results
        full = f"[{summary.FULL_CLAIMS}](#{Heading(2, summary.FULL_CLAIMS).anchor})"
        for i, (c, v) in enumerate(results):
            table.rows.append(
                [c.id, c.statement, c.course, v.measured, v.on_gpu, v.model, v.on_model]
                + [v.verdict, v.basis, c.rule]
            )
            short.rows.append(
                [c.id, c.statement, c.course, summary.compact(v.measured), v.on_gpu]
                + [summary.compact(v.model), v.on_model, v.verdict, v.basis]
            )
            for k, said in ((4, v.on_gpu), (6, v.on_model), (7, v.verdict)):
                table.classes[(i, k)] = col.get(said, "absent")
                short.classes[(i, k)] = col.get(said, "absent")
        line = _claims_line([v for _, v in results])
        short.caption = (
            f"Each cell gives the range of its figures and the weakest case; every figure and "
            f"each claim's rule: section {full}"
        )
        self.add(Para(f"**{line}**"), short)
        self.full_claims = [
            Heading(2, summary.FULL_CLAIMS),
            Para(
                "The course claims with every figure the verdicts rest on and the rule of each "
                "(the section *Course claims* gives their ranges and weakest cases)."
            ),
            table,
        ]
        self.progress(f"claims: {line}")

    def footer(self):
        self.add(Heading(2, "About this report"))
        made = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        self.add(
            Para(
                f"Made by sweep_analysis {__version__} on {made} "
                f"with `{TOOL} {' '.join(r.path for r in self.runs)} -o DIR`. The file format is "
                f"docs/hdf5-schema.md; the raw samples of every row are in the file's /samples "
                f"(`sweep-export FILE --csv --table samples`); `sweep-compare A.h5 B.h5` compares "
                f"two runs."
            )
        )


def _claims_line(verdicts) -> str:
    """The claims summary: verdicts counted by basis, the rule-itself ones apart."""

    def count(basis):
        vs = [v.verdict for v in verdicts if v.basis == basis]
        return f"{vs.count('holds')} hold, {vs.count('differs')} differ"

    absent = sum(v.verdict == claims.ABSENT for v in verdicts)
    return (
        f"Measured: {count('measured')}. Model: {count('model')}. "
        f"{claims.RULE_ITSELF}: {count(claims.RULE_ITSELF)}. {absent} not in this file."
    )


def _cuda_version(v):
    v = int(v)
    return f"{v // 1000}.{(v % 1000) // 10}" if v > 0 else "-"
