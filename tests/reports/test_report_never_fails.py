"""The report never fails and never drops a file silently (issue 26, and issue 30's "negative availWidth").

Whatever a run holds -- a blank first sample (perfmon writes " " there), an infinite or not-a-number figure, one
report, only zeros, no time stamps, thirty-one runs with long names -- the report renders; what cannot be drawn says
why in words and the rest of the report is there. Every corpus file imported alone gives a report, all of them
together give one, and what a report leaves out (files of the folder that failed, runs no answer or section uses)
is listed in its "Not included" box.

In ``make test`` the runs of one corpus file per folder and format (and every refused file) are reported alone from
one workspace holding the whole corpus (``ReportOptions.runs``): about 25 reports of 0.4 s instead of 160.
``make stress`` (tests/stress.py, part ``reports``) imports every corpus file into a workspace of its own and runs
the command a consultant runs on it, ``main.py report FILE -o OUT.pdf``.
"""

import dataclasses
import math
import subprocess

import pytest

from app.importer import import_file
from parsers.base import ImportOptions
from reports import ReportOptions, build_report
from tests.analysis_util import iops_log
from tests.conftest import CORPUS, CUSTOMER_FORBIDDEN

NOTES = {"iomark/IOMARK_FINDINGS.md", "locales/make_captures.sh", "locales/derive_locale_formats.py",
         *(f"replay/storm_fast_replay_{c}-linear_{r}.fio" for c in ("startdelay", "stonewall") for r in "ab")}
FILES = sorted(p.relative_to(CORPUS).as_posix() for p in CORPUS.rglob("*")
               if p.is_file() and p.name not in ("MANIFEST.md", "SHA256SUMS")
               and p.relative_to(CORPUS).as_posix() not in NOTES)


def _one_per_format() -> list[str]:
    """One file per corpus folder and format, every file the registry refuses, and the real logs that crashed
    the report (only LogicalDisk(_Total) counters)."""
    from parsers.registry import UnknownFormat, detect

    picked: dict[tuple[str, str], str] = {}
    out = []
    for rel in FILES:
        try:
            fmt = str(detect(str(CORPUS / rel)).id)
        except UnknownFormat:
            out.append(rel)
            continue
        if (rel.split("/")[0], fmt) not in picked or "LogicalDisk-Total" in rel:
            picked.setdefault((rel.split("/")[0], fmt), rel)
            out.append(rel)
    return sorted(set(out))


SOME = _one_per_format()


def pdf_text(path) -> str:
    return subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout


def words(path) -> str:
    return " ".join(pdf_text(path).split())


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """Every corpus file imported as a folder drop imports it, into one workspace; (workspace, results)."""
    from app.workspace import Workspace

    ws = Workspace(tmp_path_factory.mktemp("corpus") / "ws.duckdb")
    results = {rel: import_file(ws, str(CORPUS / rel), ImportOptions(), in_folder=True) for rel in FILES}
    yield ws, results
    ws.close()


@pytest.fixture(scope="module")
def empty(tmp_path_factory):
    from app.workspace import Workspace

    ws = Workspace(tmp_path_factory.mktemp("empty") / "ws.duckdb")
    yield ws
    ws.close()


@pytest.mark.parametrize("rel", SOME)
def test_corpus_files_alone_give_a_report(corpus, empty, rel, tmp_path):
    """A file imported: the report of its runs; a file refused: the report of its folder names it in the box."""
    ws, results = corpus
    r = results[rel]
    out = tmp_path / "r.pdf"
    name = rel.rsplit("/", 1)[-1]
    if r.status == "failed":
        build_report(empty, ReportOptions(date="x"), str(out), not_imported=[(name, r.error)])
        text = words(out)
        assert "Not included" in text, text[:2000]
        assert name in text.replace("- ", "-"), text[:2000]
        return
    assert r.status == "imported", (rel, r.status, r.error)
    assert r.run_ids, rel
    content = build_report(ws, ReportOptions(runs=r.run_ids, date="x"), str(out))
    assert out.read_bytes().startswith(b"%PDF")
    assert content.sections


def test_all_corpus_files_together_give_one_report_that_names_what_it_leaves_out(corpus, tmp_path):
    """The whole corpus in one report (58 runs of device rates side by side: the comparison table is printed in
    parts, never columns narrower than a character), and the files that failed are named in the box. Failed
    before: ValueError 'flowable given negative availWidth' in the comparison table."""
    ws, results = corpus
    failed = [(rel.rsplit("/", 1)[-1], r.error) for rel, r in results.items() if r.status == "failed"]
    assert len(failed) >= 10
    out = tmp_path / "all.pdf"
    build_report(ws, ReportOptions(date="x"), str(out), not_imported=failed)
    text = words(out)
    box = text[text.index("Not included"):]
    assert f"{len(failed)} files of the folder could not be read" in box
    from reports.content import MAX_LISTED

    for name, _why in failed[:MAX_LISTED]:
        assert name[:30] in box.replace("- ", "-"), name
    if len(failed) > MAX_LISTED:  # the rest counted, never dropped without a word
        assert f"and {len(failed) - MAX_LISTED:,} more" in box
    assert "The table is printed in" in text
    assert "parts, one under the other" in text
    for what, pattern in CUSTOMER_FORBIDDEN.items():
        if what != "code identifier":  # run names from file names hold underscores
            assert not pattern.search(text), what


# ---- whatever a run holds ----------------------------------------------------------------------------------------
PERFMON_TOTAL = """"(PDH-CSV 4.0) (Pacific Standard Time)(480)","\\\\SRV01\\LogicalDisk(_Total)\\Disk Reads/sec",\
"\\\\SRV01\\LogicalDisk(_Total)\\Disk Writes/sec","\\\\SRV01\\LogicalDisk(_Total)\\Avg. Disk sec/Transfer"
"01/10/2024 10:00:00.000"," "," "," "
"01/10/2024 10:00:15.000","12.5","30.1","0.004"
"01/10/2024 10:00:30.000","14.5","33.1","0.005"
"01/10/2024 10:00:45.000","11.5","20.1","0.003"
"""


def _imp(ws, path, **kw):
    r = import_file(ws, str(path), ImportOptions(**kw))
    assert r.status == "imported", r.error
    return r.run_ids[0]


def test_a_perfmon_total_only_log_with_a_blank_first_sample_reports(ws, write, tmp_path):
    """The crash of issue 26: only LogicalDisk(_Total) counters and the blank first sample perfmon writes; the
    first interval has no value, which reached reportlab as NaN ("cannot convert float NaN to integer") and made
    every report of the workspace fail. Now the interval is a gap in the line, said under the chart."""
    rid = _imp(ws, write("srv01_total.csv", PERFMON_TOTAL))
    out = tmp_path / "r.pdf"
    build_report(ws, ReportOptions(date="x", iops_cap=300), str(out))
    text = words(out)
    assert "Gaps in a line: intervals without a value (missing is not zero)." in text
    assert "47.6 IOPS" in text  # the peak: 14.5 + 33.1
    assert ws.run(rid)


def test_a_run_with_an_infinite_figure_is_named_and_the_rest_of_the_report_stays(ws, write, tmp_path):
    """A workspace edited by another program holds inf and NaN in a run's rates: the run is said to hold a figure
    that is not a number (report and device named), the other runs are analysed. Failed before: DuckDB's
    "Could not cast value inf to DECIMAL(38,12)" ended every report."""
    good = _imp(ws, write("good.txt", iops_log([10, 200, 900, 1200, 800, 300, 50, 10])))
    bad = _imp(ws, write("bad.txt", iops_log([10, 200, 900, 1200, 800, 300, 50, 10], host="other")))
    ws.con.execute("UPDATE iostat_samples SET r_s = 'inf'::DOUBLE WHERE run_id = ? AND sample_idx = 3", [bad])
    ws.con.execute("UPDATE iostat_samples SET w_s = 'nan'::DOUBLE WHERE run_id = ? AND sample_idx = 4", [bad])
    ws.con.execute("DELETE FROM series_sums WHERE run_id = ?", [bad])  # as if the sums were never stored
    out = tmp_path / "r.pdf"
    content = build_report(ws, ReportOptions(date="x"), str(out))
    text = words(out)
    assert "could not be analysed over time: holds a figure that is not a finite number (report 4, device sda)" \
        in text
    assert good in content.values["storm"]
    assert bad not in content.values["storm"]
    assert "1,200 IOPS" in text


def test_one_report_only_zeros_and_no_times_report(ws, write, tmp_path):
    """A run of one interval, a run of only zeros, and a run without time stamps or interval: one report, each
    run said as it is."""
    _imp(ws, write("one.txt", iops_log([500])), first_report="interval")
    _imp(ws, write("zeros.txt", iops_log([0] * 10)))
    no_times = write("no_times.txt", "Linux 5.15.0 (lab) \t11/22/26 \t_x86_64_\t(4 CPU)\n\n" + "".join(
        "Device            r/s     w/s   rkB/s   wkB/s  %util\nsda            10.00   20.00   40.00   80.00   5.00\n\n"
        for _ in range(4)))
    assert import_file(ws, no_times, ImportOptions()).status == "imported"
    out = tmp_path / "r.pdf"
    build_report(ws, ReportOptions(date="x", iops_cap=200), str(out))
    text = words(out)
    assert "no report times" in text
    assert "Run zeros peaked at 0 IOPS" in text


def test_thirty_runs_with_long_names_lay_out(ws, write, tmp_path):
    """Issue 30: 30 or more runs of device rates with ordinary long names made the comparison table fail with
    "negative availWidth"; the overlay's legend grew taller than a page. Now the table is printed in parts that
    repeat the figure and its unit, and the legend counts the runs it cannot list."""
    # 31 iostat invocations appended to one log (one run each: one import instead of 31)
    many = write("many.txt", "".join(iops_log([10 + i, 200, 900 + i, 1200, 800, 300, 50, 10], host=f"h{i}")
                                     for i in range(31)))
    r = import_file(ws, many, ImportOptions())
    assert len(r.run_ids) == 31
    for i, rid in enumerate(r.run_ids):
        ws.rename_run(rid, f"customer-site-boot-storm-measurement-{i:03d}-with-a-long-descriptive-name")
    out = tmp_path / "r.pdf"
    build_report(ws, ReportOptions(date="x"), str(out))
    text = words(out)
    assert "The table is printed in" in text
    assert "each repeating Figure, Unit" in text
    assert "more (colours repeat)" in text
    # the runs stay told apart in the table's heads (wrapped, not cut to one shared prefix)
    assert text.count("with-a-long-descriptive-name") >= 62


def test_a_section_whose_figures_cannot_be_made_says_why_and_the_report_goes_on(ws, write, tmp_path, monkeypatch):
    """An analysis error inside a section (a typed AnalysisError: the data cannot give the figure) is the section's
    text, in words; the other sections are there."""
    from app.analysis.histograms import AnalysisError
    from reports import sections

    sections.load()

    def broken(ctx):
        raise AnalysisError("run 1 has no interval report (only the since-boot report)")

    entry = sections.SECTION_BUILDERS._entries["storm"]  # the storm builder, swapped for the test, in its place
    monkeypatch.setitem(sections.SECTION_BUILDERS._entries, "storm",
                        dataclasses.replace(entry, item=dataclasses.replace(entry.item, build=broken)))
    _imp(ws, write("a.txt", iops_log([10, 200, 900, 1200, 800, 300, 50, 10])))
    out = tmp_path / "r.pdf"
    build_report(ws, ReportOptions(date="x"), str(out))
    text = words(out)
    assert "Storm metrics This section could not be made: has no interval report (only the since-boot report)." \
        in text
    assert "I/O over time" in text
    assert "Appendix: sources and methods" in text


# ---- the drawing itself ------------------------------------------------------------------------------------------
def _numbers(node):
    """Every number a reportlab drawing hands to the PDF."""
    from reportlab.graphics.shapes import Group, PolyLine

    for n in getattr(node, "contents", []):
        if isinstance(n, Group):
            yield from _numbers(n)
        elif isinstance(n, PolyLine):
            yield from n.points
        else:
            for attr in ("x", "y", "x1", "x2", "y1", "y2", "width", "height"):
                v = getattr(n, attr, None)
                if isinstance(v, (int, float)):
                    yield v


def test_a_chart_draws_only_finite_numbers_and_gaps_for_the_rest():
    from reports.content import Chart
    from reports.pdf import line_chart

    nan, inf = float("nan"), float("inf")
    chart = Chart("lines", "t", {"lines": [
        {"label": "a", "t0": [0, 5, 10, 15, 20], "t": [5, 10, 15, 20, 25], "y": [nan, 10, inf, None, 20]},
        {"label": "b", "t0": [nan, 5], "t": [5, inf], "y": [1, 2]},  # no usable time: no point
        {"label": "c", "t": [], "y": []}], "refs": [{"value": inf, "label": "cap"}, {"value": nan, "label": "x"}],
        "bands": [{"t0": nan, "t1": 5, "label": "worst", "style": "worst"}]})
    d, gaps = line_chart(chart, 400, "Helvetica")
    assert d is not None
    assert gaps
    assert all(math.isfinite(v) for v in _numbers(d))
    empty = Chart("lines", "t", {"lines": [{"label": "a", "t": [5, 10], "y": [None, nan]}]})
    assert line_chart(empty, 400, "Helvetica") == (None, False)


def test_a_chart_without_values_says_so_in_its_place(ws, write, tmp_path):
    """A perfmon log whose rate counters are blank in every sample: the overlay has nothing to draw and says so."""
    blank = PERFMON_TOTAL.split("\n")[0] + "\n" + "".join(
        f'"01/10/2024 10:0{k}:00.000"," "," ","0.004"\n' for k in range(5))
    assert import_file(ws, write("blank.csv", blank), ImportOptions()).status == "imported"
    out = tmp_path / "r.pdf"
    build_report(ws, ReportOptions(date="x"), str(out))
    assert out.read_bytes().startswith(b"%PDF")


def test_tables_too_wide_for_the_page_are_split_into_parts():
    from reports.pdf import MIN_COLUMN, _floor, column_groups

    fonts = ("Helvetica", "Helvetica-Bold")
    header = ["Figure", "Unit"] + [f"run-{i:02d}-with-a-name" for i in range(58)]
    rows = [["Peak", "IOPS"] + ["1,200"] * 58]
    groups = column_groups(header, rows, 480, fonts, keep=2)
    assert len(groups) > 1
    assert all(g[:2] == [0, 1] for g in groups)
    assert sorted(c for g in groups for c in g[2:]) == list(range(2, 60))
    assert column_groups(["a", "b"], [["1", "2"]], 480, fonts, keep=1) == [[0, 1]]
    w = _floor([200.0, 1.0, 279.0], 480)
    assert min(w) >= MIN_COLUMN
    assert abs(sum(w) - 480) < 1e-6
