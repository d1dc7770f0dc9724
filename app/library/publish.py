"""Publish a workspace's engagement to a library (no Qt).

What is published (app.store.library writes it atomically):

* ``runs``: one row per run with the figures of ``app.analysis.library.run_figures`` (storm peak, plateau,
  peak-to-plateau, per desktop, read share, request size, mean await, shares within 10/20/50 ms), and the
  engagement's workload, hypervisor and desktops repeated on each row so any engine filters on them;
* ``answers``: every stored question's answer as the report prints it (``app.analysis.questions.answer_all``):
  cap verdicts, sizing answers (disks), response-time checks ... with their deciding numbers;
* ``samples`` (optional): every run's interval series (IOPS, reads, writes, kB/s, await).

Anonymised by default (``reports.anonymise``, as the PDF does): runs are "run N", the customer tag is left out,
user-typed titles give way to the generated ones, and every text is swept for the run, host and customer names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from app.analysis.library import (
    WORKLOADS,
    engagement_id,
    measured_desktops,
    run_figures,
    workspace_runs,
)
from app.store.library import now_utc, write_engagement
from app.workspace import Workspace
from parsers.kinds import DEVICE_RATES, has
from reports.anonymise import Anonymiser


@dataclass
class Published:
    engagement: str
    location: str
    runs: int
    answers: int
    samples: int
    manifest: dict[str, Any]
    unchanged: bool  # the library already held this engagement with the same figures


def _dates(values: list[Any]) -> str | None:
    got = [v for v in values if v is not None]
    return min(got).isoformat() if got else None


def publish(ws: Workspace, location: str, *, customer: str | None = None, anonymise: bool = True,
            workload: str | None = None, hypervisor: str | None = None, desktops: int | None = None,
            samples: bool = False) -> Published:
    """Publish ``ws``'s engagement to the library folder ``location`` (see the module doc)."""
    from app.analysis.questions import answer_all, describe
    from app.analysis.series import load_series
    from app.store.library import LibraryError

    if workload is not None and workload not in WORKLOADS:
        raise LibraryError(f"the workload is one of {', '.join(WORKLOADS.values())}, not {workload!r}")
    runs = workspace_runs(ws)
    if not runs:
        raise LibraryError("the workspace has no runs: nothing to publish")
    an = Anonymiser(anonymise)
    an.customer(customer)
    names = {r.run_id: an.run(r.run_id, r.name) for r in runs}
    eid = engagement_id(ws)
    rows = []
    for r in runs:
        d = desktops or measured_desktops(ws, r.run_id)
        f = run_figures(ws, r.run_id, d)
        rows.append({"run": names[r.run_id], **{k: v for k, v in f.items() if k != "started_at"},
                     "workload": workload, "hypervisor": hypervisor})
    answers = []
    for sq, a in answer_all(ws, names):
        title = describe(sq.question, names) if anonymise or not sq.title else sq.title
        answers.append({"position": sq.position, "question_kind": sq.kind, "title": an.text(title),
                        "verdict": a.verdict, "number": an.text(a.number), "reason": an.text(str(a.reason)),
                        "figure_values": [f.value for f in a.figures], "figure_units": [f.unit for f in a.figures],
                        "error": a.error is not None})
    tables: dict[str, pa.Table] = {"runs": pa.Table.from_pylist(rows)}
    if answers:
        tables["answers"] = pa.Table.from_pylist(answers)
    n_samples = 0
    if samples:
        parts = []
        for r in runs:
            if not has(r.tool, DEVICE_RATES):
                continue
            s = load_series(ws, r.run_id)
            cols = [c for c in ("t_start_s", "t_end_s", "iops", "read_iops", "write_iops", "kbs", "await_ms")
                    if c in s.frame.columns]
            parts.append(s.frame.select(cols).to_arrow().append_column(
                "run", pa.array([names[r.run_id]] * s.frame.height, pa.string())))
        if parts:
            tables["samples"] = pa.concat_tables(parts, promote_options="permissive")
            n_samples = tables["samples"].num_rows
    starts = [r.started_at for r in runs]
    ends = [r.ended_at for r in runs]
    last = max((e for e in ends if e is not None), default=None)
    manifest: dict[str, Any] = {
        "format": "stormscope-library-engagement", "engagement": eid,
        "customer": None if anonymise else (customer or None), "anonymised": anonymise,
        "first_date": _dates(starts), "last_date": None if last is None else last.isoformat(),
        "tools": sorted({r.tool for r in runs}), "runs": len(runs), "workload": workload, "hypervisor": hypervisor,
        "desktops": desktops, "published_at": now_utc(), "stormscope_version": _version(),
    }
    before = _existing(location, eid)
    written = write_engagement(location, manifest, tables)
    unchanged = before is not None and before == written
    return Published(eid, location, len(rows), len(answers), n_samples, written, unchanged)


def _existing(location: str, eid: str) -> dict[str, Any] | None:
    import json
    from pathlib import Path

    from app.store.library import MANIFESTS

    p = Path(location).expanduser().resolve() / MANIFESTS / f"{eid}.json"
    try:
        got = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return got if isinstance(got, dict) else None


def _version() -> str:
    from reports.options import version

    return version()
