"""What the customer reads in the PDF (issue 12): the sizing range, one definition per figure, customer words,
tables that never split a token, anonymisation of names inside file names, paths and tags, and the PDF's
outline, links and metadata. Every check reads the PDF's extracted text (pdftotext)."""

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from app.analysis.cap import cap_report
from app.analysis.sizing import sizing_cases, what_if
from app.analysis.storm import storm_report
from app.importer import import_file
from parsers.base import ImportOptions
from reports import ReportOptions, build_report
from reports.content import fmt
from tests.conftest import CUSTOMER_FORBIDDEN, SAMPLES

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parents[1] / "fixtures"
SIZING_RANGE = {"users": 100, "iops_per_user": "8..25", "read_pct": 40, "raid": "10", "disk_iops": 75}
SIZING_MULT = {"users": 100, "iops_per_user": 8, "storm_multiplier": 3.125, "read_pct": 40, "raid": "10",
               "disk_iops": 75}

# the words a customer must never read (the window's list), and parameter dumps
FORBIDDEN = {
    **CUSTOMER_FORBIDDEN,
    "parameter dump": re.compile(r"sigma|›|\bTrue\b|\bFalse\b|\bNone\b|since boot excluded"),
}


def pdf_text(path, layout=True):
    args = ["pdftotext"] + (["-layout"] if layout else []) + [str(path), "-"]
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def flat(s):
    return " ".join(s.split())


def imp(ws, path, **kw):
    r = import_file(ws, str(path), ImportOptions(**kw))
    assert r.status == "imported", r.error
    return r.run_ids[0]


@pytest.fixture
def engagement(ws):
    """The scripted engagement: two boot storms, a capped run (cap tag 200 IOPS), fio json+, one vscsiStats VM."""
    ws.ids = {
        "fast": imp(ws, SAMPLES / "storm_fast_iostat-xt.txt", first_report="interval"),
        "slow": imp(ws, SAMPLES / "storm_slow_iostat-xt.txt", first_report="interval"),
        "capped": imp(ws, SAMPLES / "capped_200iops_iostat-d.txt", interval_s=2, tags={"cap_iops": "200"}),
        "fio": imp(ws, SAMPLES / "fio_randrw_jsonplus.json"),
        "vscsi": imp(ws, FIXTURES / "vscsistats" / "vscsiStats-helper_sample_vscsiStats.csv", interval_s=60),
    }
    return ws


# ---- 1. sizing: the range the consultant gave ---------------------------------------------------------------
@pytest.mark.parametrize("sizing", [SIZING_RANGE, SIZING_MULT], ids=["range 8..25", "steady 8 x 3.125"])
def test_sizing_shows_steady_18_and_storm_54_in_one_report(engagement, tmp_path, sizing):
    out = tmp_path / "s.pdf"
    content = build_report(engagement, ReportOptions(date="x", sizing=sizing, sections=["summary", "sizing"]), str(out))
    text = flat(pdf_text(out))
    if "storm_multiplier" in sizing:
        headline = ("For 100 users the design needs 18 disks at the steady 8 IOPS per user (17.07 rounded up) and 54 "
                    "disks at the storm's 25 IOPS per user (8 × storm multiplier 3.125; 53.33 rounded up); 54 disks "
                    "carry the storm.")
    else:  # a range is the sizing method's light and heavy user, not a steady load and its storm (issue 26)
        headline = ("For 100 users the design needs 18 disks if they are light users (8 IOPS each; 17.07 rounded up) "
                    "and 54 disks if they are heavy users (25 IOPS each; 53.33 rounded up); 54 disks carry either.")
    assert headline in content.verdicts
    assert headline in text
    assert not re.search(r"54 disks[^.;]* at 8 IOPS", text)  # the storm figure is never given for the steady load
    # the figures are sizing_cases' own: 800 / 1,280 front/back-end IOPS steady, 2,500 / 4,000 in the storm
    cases = sizing_cases(100, "8..25", read_pct=40, raid="10", disk_iops=75)
    assert [(c.result.disks, round(c.result.disks_exact, 2)) for c in cases] == [(18, 17.07), (54, 53.33)]
    assert "Front-end IOPS users × IOPS per user 800 2,500" in text
    assert "Back-end IOPS reads + writes × write penalty 1,280 4,000" in text
    assert re.search(r"Disks for IOPS back-end IOPS ÷ IOPS per disk,( rounded up)? 17\.07 → 18 53\.33 → 54", text)
    # the what-if table over RAID levels and disk types: RAID 10 on 7,200 rpm disks is the consultant's 18 / 54
    rows = what_if(100, [8, 25], read_pct=40)
    r10 = {r["disk_type"]: r["disks"] for r in rows if r["raid"] == "10"}
    r5 = {r["disk_type"]: r["disks"] for r in rows if r["raid"] == "5"}
    assert r10["sata7k"] == [18, 54]
    assert r5["sata7k"] == [30, 95]
    assert "What if: other RAID levels and disk types" in text
    assert f"RAID 10 2 18 / 54 {r10['sas10k'][0]} / {r10['sas10k'][1]}" in text
    assert f"RAID 5 (4+1) 4 30 / 95 {r5['sas10k'][0]} / {r5['sas10k'][1]}" in text


def test_cli_takes_an_iops_per_user_range(engagement, tmp_path):
    engagement.close()
    out = tmp_path / "cli.pdf"
    p = subprocess.run([sys.executable, str(ROOT / "main.py"), "report", "-w", str(tmp_path / "ws.duckdb"), "-o",
                        str(out), "--sections", "summary", "sizing", "--users", "100", "--iops-per-user", "8..25",
                        "--read-pct", "40", "--raid", "10", "--disk-iops", "75", "--json"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    verdicts = json.loads(p.stdout)["verdicts"]
    assert any("18 disks if they are light users (8 IOPS each" in v and "54 disks if they are heavy users (25 IOPS"
               in v for v in verdicts), verdicts
    pdf = flat(pdf_text(out))
    assert "18 disks if they are light users (8 IOPS each" in pdf
    again = subprocess.run([sys.executable, str(ROOT / "main.py"), "report", "-w", str(tmp_path / "ws.duckdb"), "-o",
                            str(out), "--sections", "appendix", "--full-paths", "--confidential", "For ACME only"],
                           capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert again.returncode == 0, again.stderr
    raw = pdf_text(out)
    assert "For ACME only" in raw
    assert str(SAMPLES / "storm_fast_iostat-xt.txt") in re.sub(r"\s", "", raw)
    bad = subprocess.run([sys.executable, str(ROOT / "main.py"), "report", "-w", str(tmp_path / "ws.duckdb"), "-o",
                          str(out), "--users", "100", "--iops-per-user", "25..8"], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert bad.returncode == 2
    assert "range" in bad.stderr


# ---- 2. one definition per figure ------------------------------------------------------------------------
def test_plateau_means_the_storm_figure_only_in_the_window_the_command_line_and_the_pdf(engagement, tmp_path):
    """The review found "plateau" used for the storm's figure (the capped run's 6 s burst, 104,336 IOPS) and for
    the cap check's median of every interval (201 IOPS). Now the cap check says "median interval" everywhere, and
    the plateau's one definition is the text of the window's column tip, the command's method and the PDF."""
    from app.analysis.range_stats import COLUMNS
    from app.analysis.storm import PLATEAU_DEFINITION
    from app.analysis.text import format_cap

    ws = engagement
    res = cap_report(ws, ws.ids["capped"], iops_cap=200)
    chk = res.checks[0]
    # the command line: the text and the JSON
    said = format_cap(res)
    assert "median interval 201.0 IOPS" in said
    assert "plateau" not in said.lower()
    d = res.as_dict()
    assert d["median_interval_iops"] == d["plateau_iops"] == chk.plateau
    assert d["checks"][0]["median_interval"] == chk.plateau
    assert "plateau" not in json.dumps(res.method["verdicts"])
    # the window's results table: the column's tip is the definition
    assert next(c for c in COLUMNS if c.key == "plateau").tooltip == f"Plateau: {PLATEAU_DEFINITION}"
    # the PDF: the glossary and the method carry the same definition; the cap check never says plateau of 201
    out = tmp_path / "p.pdf"
    build_report(ws, ReportOptions(date="x", sections=["storm", "cap", "appendix"]), str(out))
    text = flat(pdf_text(out, layout=False))
    # defined once: the glossary (the storm table's note and the method point to it)
    assert text.count(PLATEAU_DEFINITION[1:]) == 1
    assert "Plateau and peak: see the glossary." in text
    assert "plateau of 201" not in text
    assert "plateau (201" not in text


def test_plateau_is_the_storm_definition_and_the_median_is_called_so(engagement, tmp_path):
    ws = engagement
    out = tmp_path / "d.pdf"
    build_report(ws, ReportOptions(date="x", sections=["runs", "storm", "cap", "compare"]), str(out))
    raw = pdf_text(out)
    text = flat(raw)
    fast = storm_report(ws, ws.ids["fast"]).run
    capped = storm_report(ws, ws.ids["capped"]).run
    cap = cap_report(ws, ws.ids["capped"], iops_cap=200).checks[0]
    # storm table: peak then plateau (time-weighted median of the intervals above half the peak)
    assert fast.plateau_iops == 1200
    assert f"storm_fast_iostat-xt {fmt(fast.peak_iops)} {fmt(fast.plateau_iops)}" in text
    # cap table: the plateau is the storm's; the median of every interval is called the median interval
    assert (f"capped_200iops_iostat-d 200 IOPS did not hold {fmt(capped.plateau_iops)} {fmt(cap.plateau)} "
            f"{fmt(cap.worst_window['average'])}") in text
    assert "plateau of 201" not in text
    assert "plateau (201" not in text
    # one median per run: the A/B table's median interval is the cap table's
    assert re.search(rf"Median interval IOPS 600 450 {fmt(cap.plateau)}\b", text), text
    # the footnote says what the figure counts: single intervals, not windows
    assert "the share of the judged time spent in single intervals above the cap plus its 5 % tolerance" in text
    # the period starts at the start of the first interval: 02:15:30 is the end of the first 1 s report
    assert "2026-11-22 02:15:29 – 02:16:29" in text
    assert "02:16:34 – 02:18:09" in text
    assert "since boot excluded" not in text
    assert "since-boot excluded" not in text
    # phases on the chart's time axis (0 = the first activity, second 5 of the run): the storm phase holds the peak
    assert re.search(r"phase 3 8 ?s 34 ?s 1,212 1,094 28,450", text)
    assert "From and To: seconds from the start of the first" in text
    # one format per quantity: IOPS and I/O counts whole, with thousands separators
    assert not re.search(r"\d\.\d+ IOPS", text)
    assert "36,340" in text
    assert "36,340.0" not in text
    assert "670,577" in text
    for m in re.finditer(r"\b\d{4,}\b", text.replace("SHA-256", "")):  # no 4-digit figure without its separator
        assert m.group(0) in ("2026",), m.group(0)


# ---- 3. words for a customer -------------------------------------------------------------------------------
def test_no_flags_code_names_internal_files_or_paths_in_the_pdf(engagement, tmp_path):
    out = tmp_path / "w.pdf"
    build_report(engagement, ReportOptions(date="x", iops_cap=200, sizing=SIZING_MULT), str(out))
    text = flat(pdf_text(out, layout=False))
    data = [engagement.run(i).name for i in engagement.ids.values()]
    data += [Path(engagement.run(i).source_path).name for i in engagement.ids.values()] + ["cap_iops"]
    clean = text
    for d in sorted(data, key=len, reverse=True):
        clean = clean.replace(d, "«data»")
    found = [f"{what}: {m.group(0)!r}" for what, rx in FORBIDDEN.items() for m in rx.finditer(clean)]
    assert not found, found
    for word in ("iops_per_user", "backend_iops", "over_cap_share_strict", "sigma^2", "raid › mirror"):
        assert word not in text
    # file names only
    assert str(SAMPLES) not in text
    assert "/" + SAMPLES.name + "/" not in text
    # the appendix: short prose per analysis and a glossary
    for term in ("IOPS", "Await", "Plateau", "Percentile", "Write penalty", "Storm multiplier", "Exact vs estimate"):
        assert f" {term} " in f" {text} "
    assert "How the figures were computed" in text
    assert "Glossary" in text


# ---- 4. tables never split a number or a name -------------------------------------------------------------
def test_tables_wrap_names_only_at_separators_and_ratios_compare_like_with_like(ws, tmp_path):
    long_name = "iostat_unlimited_disk_boot_storm_second_attempt_after_the_firmware_update"
    ids = [imp(ws, SAMPLES / "storm_fast_iostat-xt.txt", first_report="interval", name=long_name),
           imp(ws, SAMPLES / "storm_slow_iostat-xt.txt", first_report="interval"),
           imp(ws, SAMPLES / "capped_200iops_iostat-d.txt", interval_s=2)]
    out = tmp_path / "t.pdf"
    build_report(ws, ReportOptions(date="x", sections=["runs", "storm", "compare"]), str(out))
    raw = pdf_text(out, layout=False)
    joined = re.sub(r"(?<=[_.-])\n", "", raw)
    assert long_name in joined
    for k in range(1, len(long_name)):  # a line may only end after _ . or -
        if long_name[k - 1] not in "_.-":
            assert long_name[:k] + "\n" + long_name[k:k + 4] not in raw, long_name[:k]
    for number in ("36,340", "37,741", "670,577", "112,376"):
        assert number in raw
        head, tail = number.split(",")
        assert f"{head},\n" not in raw
        assert f"{number[:-1]}\n{number[-1]}" not in raw
    # three unrelated runs: no ratio at all (never the last of them divided by the first)
    text = flat(pdf_text(out))
    assert "×" not in text.split("A/B comparison")[-1]
    assert "No ratios" in text
    # the two runs being compared: each figure against the first run's, in brackets
    build_report(ws, ReportOptions(date="x", runs=ids[:2], sections=["compare"]), str(out))
    text = flat(pdf_text(out))
    assert "Peak IOPS 1,212 809 (0.67×)" in text
    assert "each run's figure divided by the baseline's" in text


# ---- 5. anonymise -----------------------------------------------------------------------------------------
def test_anonymise_covers_names_inside_file_names_paths_tags_and_notes(ws, tmp_path):
    src = tmp_path / "secret-dir"
    src.mkdir()
    f = src / "vm_vda_iostat.txt"
    f.write_text((SAMPLES / "storm_fast_iostat-xt.txt").read_text().replace("(vm)", "(dbhost01)", 1))
    rid = imp(ws, f, first_report="interval", tags={"note": "dbhost01 vda after the patch"})
    out = tmp_path / "a.pdf"
    build_report(ws, ReportOptions(date="x", anonymise=True), str(out))
    text = flat(pdf_text(out, layout=False))
    assert ws.run(rid).host == "dbhost01"
    assert ws.run(rid).name == "vm_vda_iostat"
    for secret in ("vda", "dbhost01", "zram0", "secret-dir", str(tmp_path)):
        assert secret not in text, secret
    # a run's name is its file's (host and device inside): "run 1"; a tag's words are withheld (issue 26)
    assert "vm_vda_iostat" not in text
    assert "Run 1 peaked" in text
    assert "host 1" in text
    assert "note = withheld" in text
    # not anonymised: file names only unless full paths are asked for
    build_report(ws, ReportOptions(date="x", sections=["appendix"]), str(out))
    text = flat(pdf_text(out, layout=False))
    assert "vm_vda_iostat.txt" in text
    assert "secret-dir" not in text
    build_report(ws, ReportOptions(date="x", sections=["appendix"], full_paths=True), str(out))
    assert str(f) in re.sub(r"\s", "", pdf_text(out, layout=False))


# ---- 6. a deliverable: outline, clickable contents, metadata, page size, confidentiality line ------------
def test_pdf_has_outline_links_metadata_and_page_size(engagement, tmp_path):
    out = tmp_path / "m.pdf"
    content = build_report(engagement, ReportOptions(title="Boot storm review", consultant="Jo Doe",
                                                     company="StorageWorks", customer="ACME", date="x",
                                                     page_size="Letter", confidential="Confidential: ACME only"),
                           str(out))
    info = subprocess.run(["pdfinfo", str(out)], capture_output=True, text=True, check=True).stdout
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert re.search(r"^Title:\s+Boot storm review$", info, re.M)
    assert re.search(r"^Author:\s+Jo Doe · StorageWorks$", info, re.M)
    assert re.search(rf"^Creator:\s+StormScope {re.escape(version)}$", info, re.M)
    assert "612 x 792 pts (letter)" in info
    data = out.read_bytes()
    assert b"/Outlines" in data
    assert b"/PageMode /UseOutlines" in data
    assert [s.key for s in content.sections] == ["summary", "runs", "overlay", "storm", "cap", "latency", "jobs",
                                                 "compare", "appendix"]
    for sec in content.sections:  # one bookmark per section
        assert f"/Title ({sec.title})".encode() in data
    # no contents page (page 1 holds the answers): the outline is the way to the sections
    pages = pdf_text(out).split("\f")[:-1]
    assert all("Confidential: ACME only" in p for p in pages)
    build_report(engagement, ReportOptions(date="x"), str(out))
    assert "841.89 pts (A4)" in subprocess.run(["pdfinfo", str(out)], capture_output=True, text=True).stdout


# ---- charts: runs on one axis, the cap drawn, a scale that shows the level in question ------------------
def test_overlay_draws_runs_on_one_axis_with_the_cap_line_and_a_log_scale(engagement, tmp_path):
    out = tmp_path / "o.pdf"
    content = build_report(engagement, ReportOptions(date="x", sections=["overlay"]), str(out))
    charts = [c for s in content.sections for c in s.charts]
    # limited and unlimited on one chart
    assert len(charts) == 1
    assert len(charts[0].data["lines"]) == 3
    # 112,376 IOPS against a 200 IOPS cap: a log scale
    assert [r["value"] for r in charts[0].data["refs"]] == [200.0]
    assert charts[0].data["log"] is True
    text = flat(pdf_text(out))
    assert "cap 200 IOPS" in text
    assert "IOPS (log scale)" in text
    assert "100,000" in text
    assert "100 " in text
    # the since-boot statement is true per run: left out of the -d run, kept (intervals) for the -y runs
    assert ("The first report of capped_200iops_iostat-d covers the time since boot and is left out; the first "
            "reports of storm_fast_iostat-xt and storm_slow_iostat-xt are intervals and are kept.") in text


def test_iozone_units_and_sizes_and_error_wording_are_for_customers(ws, tmp_path):
    a = imp(ws, FIXTURES / "iozone" / "iozone-results-comparator_ext2_1.iozone.txt")
    imp(ws, FIXTURES / "iozone" / "iozone2csv_iozone.out.txt")
    fio = imp(ws, SAMPLES / "fio_randread_lat_limited.json")  # fio JSON without json+ latency bins
    out = tmp_path / "i.pdf"
    build_report(ws, ReportOptions(date="x", sections=["iozone", "latency"]), str(out))
    text = flat(pdf_text(out))
    assert "kB/s" in text
    assert " kb s " not in text
    # the answer, not a dump: one row per test, each run's best throughput in it, the ratio, which is faster
    assert ("iozone2csv_iozone.out is faster than iozone-results-comparator_ext2_1.iozone in 13 of the 13 tests: "
            "iozone2csv_iozone.out's best throughput is 2.10–115.87 times") in text
    assert "5,218,171" in text  # write, the second run's best: whole kB/s with separators
    assert "5218171" not in text
    assert "÷" in text
    assert f"{ws.run(fio).name} has no latency histogram" in text
    assert f"run {fio} " not in text
    assert "(op all)" not in text
    assert a


def test_paths_in_any_text_become_file_names_and_the_report_says_how_to_verify_it(ws, tmp_path):
    imp(ws, SAMPLES / "storm_fast_iostat-xt.txt", first_report="interval",
        tags={"note": "copied from /mnt/customer-share/vdi/boot1.txt"})
    out = tmp_path / "p.pdf"
    build_report(ws, ReportOptions(date="x", sections=["overlay", "appendix"]), str(out))
    text = flat(pdf_text(out))
    assert "copied from boot1.txt" in text
    assert "customer-share" not in text
    assert "I/O" in text  # not a path
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert f"StormScope {version} wrote this report" in text
    assert "byte-identical PDF" in text


def test_runs_clearly_over_a_cap_make_one_summary_line(engagement, tmp_path):
    out = tmp_path / "c.pdf"
    content = build_report(engagement, ReportOptions(date="x", iops_cap=50, sections=["summary", "cap"]), str(out))
    text = flat(pdf_text(out))
    fast = cap_report(engagement, engagement.ids["fast"], iops_cap=50).checks[0]
    slow = cap_report(engagement, engagement.ids["slow"], iops_cap=50).checks[0]
    assert fast.verdict == slow.verdict == "not capped"
    line = [v for v in content.verdicts if v.startswith("No 50 IOPS cap was in force on")]
    assert len(line) == 1
    assert line[0] in text
    assert (f"storm_fast_iostat-xt ({fmt(fast.plateau)} IOPS); storm_slow_iostat-xt ({fmt(slow.plateau)} IOPS)"
            in line[0])


def test_a_line_with_its_own_colour_is_drawn_and_keyed_in_it():
    """The load limit's points are green within the goal and red when missed in the window; the report's chart
    drew them in the palette's order instead (within the goal blue, and the fitted curve changed colour with the
    lines present). A line's ``colour`` is now its dots', its curve's and its key's."""
    from reportlab.graphics.shapes import Circle, Line

    from app.analysis.knee import POINT_COLOURS
    from reports.content import Chart
    from reports.pdf import _fonts, line_chart

    green = POINT_COLOURS[True]
    chart = Chart("lines", "points", {"x": "IOPS", "lines": [
        {"label": "cannot tell", "t": [], "y": [], "markers": True, "connect": False, "colour": "#888888"},
        {"label": "within the goal", "t": [1000.0, 2000.0], "y": [1.0, 2.0], "markers": True, "connect": False,
         "colour": green}]})
    d, _gaps = line_chart(chart, 400, _fonts()[0])
    dots = [c for c in d.contents if isinstance(c, Circle)]
    assert len(dots) == 2
    assert all(c.fillColor.hexval().lower() == "0x" + green[1:] for c in dots)
    keys = [ln for ln in d.contents if isinstance(ln, Line) and ln.strokeWidth == 1.5]
    assert any(ln.strokeColor.hexval().lower() == "0x" + green[1:] for ln in keys)
