"""Formats are plug-ins: each format module registers itself (kind, label, capabilities, tables), the registry
discovers the parsers package, and the code above the parsers asks parsers.kinds instead of comparing kind
strings. The recipe of docs/adding-a-format.md is proved by a throwaway format that lives only in this test."""

from __future__ import annotations

import re
import sys
import textwrap
from datetime import datetime
from pathlib import Path

import pytest

import parsers
from app.importer import import_file
from parsers import kinds, registry
from parsers.base import ImportOptions, JobState, Rows, SampleTimes, SinceBoot
from parsers.kinds import (
    CAPABILITIES,
    DEVICE_RATES,
    HOST_LATENCY,
    JOB_SUMMARY,
    LATENCY_HISTOGRAMS,
    THROUGHPUT_GRID,
    TIME_SERIES,
    has,
    kind_label,
    kinds_with,
)
from tests.conftest import CORPUS, ROOT

FORMATS = {  # id: (kind, tables written)
    "iostat-text": ("iostat", ("iostat_samples", "cpu_samples")),
    "iostat-json": ("iostat", ("iostat_samples", "cpu_samples")),
    "iostat-macos": ("iostat", ("iostat_samples", "cpu_samples")),
    "iostat-illumos": ("iostat", ("iostat_samples",)),
    "zpool-iostat": ("iostat", ("iostat_samples",)),
    "iostat-aix": ("iostat", ()),  # recognised to be refused
    "vscsistats-csv": ("vscsistats", ("histograms", "histogram_stats")),
    "vscsistats-text": ("vscsistats", ()),  # recognised to be refused
    "fio-json": ("fio", ("fio_jobs", "histograms", "histogram_stats")),
    "fio-log": ("fio-log", ("iostat_samples",)),
    "fio-hist-log": ("fio-hist", ("histograms", "histogram_stats")),
    "iozone-text": ("iozone", ("iozone_results",)),
    "hdparm-text": ("hdparm", ("hdparm_results",)),
    "iometer-csv": ("iometer", ("iometer_results",)),
    "iomark-csv": ("iomark", ("iomark_results",)),
    "iomark-mapped": ("iomark", ("iomark_results",)),
    "nmon-csv": ("nmon", ("iostat_samples", "cpu_samples")),
    "perfmon-csv": ("perfmon", ("iostat_samples", "cpu_samples")),
    "perfmon-blg": ("perfmon", ()),  # recognised to be refused (binary .blg)
    "esxtop-csv": ("esxtop", ("iostat_samples",)),
    "diskspd-xml": ("diskspd", ("fio_jobs",)),
    "diskspd-text": ("diskspd", ("fio_jobs",)),
    "sar-text": ("sar", ("iostat_samples",)),
    "sadf-d": ("sar", ("iostat_samples",)),
    "sar-binary": ("sar", ()),  # recognised to be refused (binary saDD)
    "sadf-other": ("sar", ()),  # recognised to be refused (sadf -j, -x, -p)
    "getcounter-csv": ("getcounter", ("iostat_samples", "cpu_samples")),
}


def test_the_registry_finds_every_format_module_by_itself():
    got = {f.id: (f.kind, tuple(f.tables)) for f in registry.formats()}
    assert got == FORMATS


def test_each_kind_has_the_name_customers_read_and_its_capabilities():
    assert {k: kind_label(k) for k in ("iostat", "vscsistats", "fio", "iozone", "hdparm", "iometer", "iomark")} == {
        "iostat": "iostat", "vscsistats": "vscsiStats", "fio": "fio", "iozone": "IOzone", "hdparm": "hdparm",
        "iometer": "Iometer", "iomark": "IOmark"}
    assert {c: set(kinds_with(c)) for c in CAPABILITIES} == {
        TIME_SERIES: {"iostat", "vscsistats", "perfmon", "esxtop", "nmon", "fio-log", "fio-hist", "sar", "getcounter"},
        DEVICE_RATES: {"iostat", "perfmon", "esxtop", "nmon", "fio-log", "sar", "getcounter"},
        LATENCY_HISTOGRAMS: {"vscsistats", "fio", "fio-hist"},
        JOB_SUMMARY: {"fio", "diskspd"},
        THROUGHPUT_GRID: {"iozone"},
        HOST_LATENCY: {"esxtop"},
    }
    assert kind_label("nosuchtool") == "nosuchtool"  # a kind no format declares is shown as stored
    assert not has("nosuchtool", TIME_SERIES)
    with pytest.raises(ValueError, match="unknown capability"):
        has("iostat", "storm")


def test_the_tables_a_format_declares_are_the_tables_it_writes():
    """Every corpus file a format reads sends rows only to tables it declares; no pseudo-tables."""
    seen: dict[str, set[str]] = {}
    for path in sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name not in ("MANIFEST.md", "SHA256SUMS")):
        try:
            fmt = registry.detect(str(path))
        except registry.UnknownFormat:
            continue
        try:
            for ev in fmt.parse(str(path), ImportOptions(), JobState(), lambda _m, _l: None):
                if isinstance(ev, Rows | SampleTimes | SinceBoot):
                    assert ev.table in fmt.tables, f"{path.name}: {fmt.id} wrote {ev.table}"
                    seen.setdefault(fmt.id, set()).add(ev.table)
        except parsers.base.ParseError:
            continue
    assert seen["iostat-text"] == {"iostat_samples", "cpu_samples"}
    assert seen["fio-json"] == {"fio_jobs", "histograms", "histogram_stats"}


def test_no_code_above_the_parsers_compares_a_kind_with_a_literal():
    """The window, command line, analyses and report ask parsers.kinds (has / kinds_with / kind_label): no
    comparison with a declared kind's id, in Python or in SQL."""
    ids = "|".join(re.escape(k.id) for k in kinds.kinds())
    q = r"""["']"""
    compare = re.compile(rf"(==|!=|\bin\b)\s*[({{\[]?\s*{q}({ids}){q}|{q}({ids}){q}\s*(==|!=|\bin\b)"
                         rf"|kind\s*=\s*'({ids})'")
    found = [f"{p.relative_to(ROOT)}:{i}: {line.strip()}"
             for folder in ("app", "reports") for p in sorted((ROOT / folder).rglob("*.py"))
             for i, line in enumerate(p.read_text().splitlines(), 1) if compare.search(line)]
    assert found == []
    old = 'if r["kind"] in ("fio", "iostat")] and r.kind = \'iostat\' and "iostat" in kinds'
    assert len(compare.findall(old)) == 3  # what the guard catches


def test_iostat_dates_read_anew_at_the_end_reach_the_workspace_as_typed_events(ws, write):
    """A day > 12 late in the file changes the reading of every time stamp streamed before it: the parser sends
    SampleTimes (and the since-boot report with them), the workspace rewrites the stored times."""
    hdr = "Device            r/s     w/s     rkB/s     wkB/s  %util"
    stamps = ["12/04/2024 23:59:50", "12/04/2024 23:59:55", "13/04/2024 00:00:00"]
    text = "Linux 5.15.0 (vdi01) \t12/04/2024 \t_x86_64_\t(4 CPU)\n\n" + "".join(
        f"{s}\n{hdr}\nsda           {10 + i:>8.2f}{20:>8.2f}{40:>10.2f}{80:>10.2f}{1.0:>7.2f}\n\n"
        for i, s in enumerate(stamps))
    path = write("late_day.txt", text)
    events = list(registry.detect(path).parse(path, ImportOptions(), JobState(), lambda _m, _l: None))
    assert [type(e).__name__ for e in events if isinstance(e, SampleTimes | SinceBoot)] == ["SampleTimes"]
    r = import_file(ws, path, ImportOptions())
    assert r.status == "imported", r.error
    got = ws.con.execute("SELECT sample_idx, ts, t_s, since_boot FROM iostat_samples ORDER BY 1").fetchall()
    assert got == [(0, datetime(2024, 4, 12, 23, 59, 50), 0.0, True),
                   (1, datetime(2024, 4, 12, 23, 59, 55), 5.0, False),
                   (2, datetime(2024, 4, 13, 0, 0), 10.0, False)]


# ---- the recipe: one new module, nothing else edited ---------------------------------------------------------

DEMO_MODULE = '''
"""A throwaway format for the recipe test: per-second disk rates in a CSV with a banner."""

from __future__ import annotations

from collections.abc import Iterator

import polars as pl

from parsers.base import Event, ImportOptions, JobState, ParseError, Rows, RunEnd, RunInfo, RunStart, WarnFn
from parsers.base import read_text
from parsers.kinds import DEVICE_RATES, TIME_SERIES, register_kind
from parsers.registry import register
from parsers.schema import frame_schema
from parsers.semantics import Counts, Semantics, Span

BANNER = "# demo-rates v1"
KIND = register_kind("demo", "Demo Rates", {TIME_SERIES, DEVICE_RATES})
# what its data means: one row per physical disk and second, rates
SEMANTICS = Semantics(main_table="iostat_samples", span=Span.INTERVAL, counts=Counts.RATES,
                      layers={"disk": "every row: the tool reports physical disks only"},
                      wording={"r_s": "r", "w_s": "w"})


class DemoRatesFormat:
    id = "demo-rates"
    kind = KIND.id
    label = "Demo Rates CSV"
    priority = 10
    tables = ("iostat_samples",)
    semantics = SEMANTICS

    def sniff(self, head: bytes) -> float:
        return 1.0 if head.startswith(BANNER.encode()) else 0.0

    def parse(self, path: str, options: ImportOptions, state: JobState, warn: WarnFn) -> Iterator[Event]:
        lines = read_text(path, "a Demo Rates file").splitlines()
        rows = []
        for n, line in enumerate(lines[2:], 3):
            t, device, r, w = line.split(",")
            try:
                rows.append({"sample_idx": n - 3, "t_s": float(t), "device": device, "r_s": float(r),
                             "w_s": float(w), "since_boot": False, "is_group": False, "layer": "disk"})
            except ValueError:
                raise ParseError(f"not a number in {line!r}", n) from None
        yield RunStart("demo", RunInfo(kind=self.kind, host="demo-host", interval_s=1.0,
                                       interval_source="timestamps"))
        cols = ["sample_idx", "t_s", "device", "r_s", "w_s", "since_boot", "is_group", "layer"]
        yield Rows("demo", "iostat_samples", pl.DataFrame(rows, schema=frame_schema("iostat_samples", cols)))
        yield RunEnd("demo", {"n_samples": len(rows), "n_devices": 1})


FORMAT = register(DemoRatesFormat())
'''


@pytest.fixture
def demo_format(tmp_path, monkeypatch):
    """``parsers/demo_rates.py`` as a new module would be, in a folder of the parsers package (outside the
    repository, so no other test sees it); the registry discovers the package again."""
    folder = tmp_path / "parsers_extra"
    folder.mkdir()
    (folder / "demo_rates.py").write_text(textwrap.dedent(DEMO_MODULE))
    monkeypatch.setattr(parsers, "__path__", [*parsers.__path__, str(folder)])
    registry.FORMATS.reload()  # the next question imports the package again, the new module with it
    yield folder
    registry.unregister("demo-rates")
    kinds.unregister_kind("demo")
    sys.modules.pop("parsers.demo_rates", None)


def test_a_new_format_is_one_module_that_registers_itself(ws, write, demo_format):
    from app.analysis.series import load_series
    from app.analysis.storm import storm_report
    from reports.content import collect
    from reports.options import ReportOptions

    assert "demo-rates" in {f.id for f in registry.formats()}  # discovered: no list names it
    assert (kind_label("demo"), has("demo", DEVICE_RATES), has("demo", LATENCY_HISTOGRAMS)) == (
        "Demo Rates", True, False)
    assert "demo" in kinds_with(TIME_SERIES)

    rows = "".join(f"{t},sda,{100 + 50 * (t % 3)},{20}\n" for t in range(12))
    path = write("capture.csv", "# demo-rates v1\nt_s,device,r_s,w_s\n" + rows)
    assert registry.detect(path).id == "demo-rates"  # sniffed from the content
    r = import_file(ws, path, ImportOptions())
    assert (r.status, r.kind, r.format) == ("imported", "demo", "demo-rates")
    rid = r.run_ids[0]

    # the analyses that ask for device rates take it: the series and the storm metrics
    s = load_series(ws, rid)
    assert s.frame.height == 12
    assert storm_report(ws, rid).run.peak_iops == 220.0
    # the report's run table names it as customers read it
    content = collect(ws, ReportOptions(runs=[rid], sections=["runs"]))
    runs_table = next(t for sec in content.sections if sec.key == "runs" for t in sec.tables)
    assert runs_table.rows[0][2] == "Demo Rates"


def test_a_format_with_an_undeclared_kind_or_table_is_refused():
    class Bad:
        id, kind, label, priority, tables = "bad", "no-such-kind", "Bad", 9990, ()

    with pytest.raises(ValueError, match="is not declared"):
        registry.register(Bad())
    Bad.kind, Bad.tables = "iostat", ("no_such_table",)
    with pytest.raises(ValueError, match="not in parsers.schema"):
        registry.register(Bad())
    assert "bad" not in {f.id for f in registry.formats()}


def test_the_recipe_is_written_down():
    text = (Path(ROOT) / "docs" / "adding-a-format.md").read_text()
    for needed in ("register_kind", "register(", "Semantics(", "tests/corpus/", "SHA256SUMS", "MANIFEST.md", "golden",
                   "test_format_contract.py", "**1 code file**"):
        assert needed in text
    assert set(CAPABILITIES) <= set(re.findall(r"`(\w+)`", text))
