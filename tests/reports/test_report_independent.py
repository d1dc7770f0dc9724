"""An independent review of the report's numbers: figures recomputed from the raw iostat text with plain Python
(no StormScope code) under the definitions the report prints (its glossary), then compared with the PDF's text.

The glossary says "IOPS: ... reads plus writes completed per second". The iostat -x captures also carry d/s
(discards) and f/s (flush requests); a figure that counts them must say so, or it contradicts the glossary."""

import math
import re
import subprocess

from app.analysis import questions as Q
from app.importer import import_file
from parsers.base import ImportOptions
from reports import ReportOptions, build_report
from tests.conftest import SAMPLES


def raw_xt(name: str, dev: str = "vda") -> list[dict[str, float]]:
    """Each report's device row of an `iostat -xt` text file, by column name."""
    rows, hdr = [], None
    for line in (SAMPLES / name).read_text().splitlines():
        f = line.split()
        if f and f[0] == "Device":
            hdr = f[1:]
        elif f and f[0] == dev and hdr:
            rows.append(dict(zip(hdr, map(float, f[1:]), strict=True)))
    return rows


def nearest_rank(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[math.ceil(len(s) * p / 100) - 1]


def pdf_text(path) -> str:
    return subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True).stdout


def imp(ws, name, **kw):
    r = import_file(ws, str(SAMPLES / name), ImportOptions(**kw))
    assert r.status == "imported", r.error
    return r.run_ids[0]


def _glossary_iops(text: str) -> str:
    m = re.search(r"^\s*IOPS\s+(Input/output operations per second.*)$", text, re.M)
    assert m, "the glossary defines IOPS"
    return m.group(1)


def _row(text: str, label: str) -> list[str]:
    m = re.search(rf"^{re.escape(label)}\s+(.*)$", text, re.M)
    assert m, label
    return re.split(r"\s{2,}", m.group(1).strip())


def test_compare_totals_and_percentiles_follow_the_glossarys_iops(ws, tmp_path):
    slow = imp(ws, "storm_slow_iostat-xt.txt", first_report="interval")
    fast = imp(ws, "storm_fast_iostat-xt.txt", first_report="interval")
    Q.add_question(ws, Q.CompareQuestion(run_ids=[slow, fast], metric="peak_iops", align="activity"))
    out = tmp_path / "r.pdf"
    build_report(ws, ReportOptions(date="x"), str(out))
    text = pdf_text(out)
    glossary = _glossary_iops(text)
    counts_other = "discard" in glossary or "flush" in glossary
    rows = raw_xt("storm_slow_iostat-xt.txt")
    rw = [r["r/s"] + r["w/s"] for r in rows]  # 1 s reports: the interval's IOPS and its I/Os
    rwdf = [r["r/s"] + r["w/s"] + r["d/s"] + r["f/s"] for r in rows]
    per = rwdf if counts_other else rw
    # Total I/Os: 37,526 reads + writes; 37,741 with 53 discards and 162 flush requests
    total = _row(text, "Total I/Os")
    assert total[1] == f"{round(sum(per)):,}", (glossary, total, round(sum(rw)), round(sum(rwdf)))
    # p95 interval (by time, nearest rank): 619 from reads + writes; 626 when report 32's 50 flushes count
    p95 = _row(text, "p95 interval")
    assert p95[1] == f"{nearest_rank(per, 95):,.0f}", (glossary, p95, nearest_rank(rw, 95), nearest_rank(rwdf, 95))
    # Mean = total / 95 s: 395.0 or 397.3
    mean = _row(text, "Mean")
    assert mean[1] == f"{sum(per) / len(per):,.1f}", (glossary, mean)


def test_storm_figures_total_follows_the_glossarys_iops(ws, tmp_path):
    fast = imp(ws, "storm_fast_iostat-xt.txt", first_report="interval")
    Q.add_question(ws, Q.StormQuestion(run_id=fast))
    out = tmp_path / "r.pdf"
    build_report(ws, ReportOptions(date="x"), str(out))
    text = pdf_text(out)
    glossary = _glossary_iops(text)
    rows = raw_xt("storm_fast_iostat-xt.txt")
    rw = sum(r["r/s"] + r["w/s"] for r in rows)  # 36,333
    rwdf = sum(r["r/s"] + r["w/s"] + r["d/s"] + r["f/s"] for r in rows)  # 36,340 (7 discards)
    want = rwdf if ("discard" in glossary or "flush" in glossary) else rw
    total = _row(text, "Total I/Os")
    assert total[0] == f"{round(want):,}", (glossary, total, rw, rwdf)
