"""A scripted engagement, end to end: the repository's captures (two boot storms, a 200 IOPS cap with a burst,
fio with latency bins, vscsiStats VM disks) imported, the consultant's questions stored (did the cap hold,
compare the storms, storm profile, response-time goal, disks for 100 users at 8..25 IOPS), the report built,
and its PDF read back with pdftotext as the customer reads it:

* each answer on page 1 carries the numbers the analyses compute (called here directly, not through the
  questions module), and its section restates them;
* every number prints one way: shares with two decimals, IOPS under 1,000 with at most one decimal and none
  above, I/O counts whole;
* no page shows a command-line flag, a code identifier, an internal reference or a filesystem path;
* with anonymising on, a device name hidden in a file name ("host1_vda_iostat") is gone from every page.
"""

import re
import shutil
import subprocess

import pytest

from app.analysis import questions as Q
from app.analysis.cap import cap_report
from app.analysis.compare import compare_runs
from app.analysis.crosscheck import crosscheck
from app.analysis.histograms import latency_share
from app.analysis.numbers import fmt_value
from app.analysis.sizing import size_vdi
from app.analysis.storm import storm_report
from app.importer import import_file
from parsers.base import ImportOptions
from reports import ReportOptions, build_report
from tests.analysis.test_vm_timeline import naive_read, two_vm_file
from tests.conftest import CORPUS, CUSTOMER_FORBIDDEN, SAMPLES


def pdf_pages(path):
    out = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout
    return [" ".join(p.split()) for p in out.split("\f")[:-1]]


def imp(ws, path, **kw):
    r = import_file(ws, str(path), ImportOptions(**kw))
    assert r.status == "imported", r.error
    return r.run_ids[0]


@pytest.fixture(scope="module")
def engagement(tmp_path_factory):
    from app.workspace import Workspace

    tmp = tmp_path_factory.mktemp("engagement")
    # the fast storm as the consultant saved it from host1's disk vda: the device name is part of the file name
    fast_file = tmp / "host1_vda_iostat.txt"
    shutil.copy(SAMPLES / "storm_fast_iostat-xt.txt", fast_file)
    # two VMs on one RAID set, vscsiStats -c (SYNTHETIC, see tests/test_vm_timeline.py: no public capture of two
    # VMs exists): VM 2099979 alone at 36,000 I/Os per 60 s collection, 7,000 once VM 2099980 starts
    vscsi_file = tmp / "esx01_vscsiStats_raid5.csv"
    vscsi_file.write_text(two_vm_file())
    ws = Workspace(tmp / "ws.duckdb")
    ids = {"fast": imp(ws, fast_file, first_report="interval"),
           "slow": imp(ws, SAMPLES / "storm_slow_iostat-xt.txt", first_report="interval"),
           "capped": imp(ws, SAMPLES / "capped_200iops_iostat-d.txt", interval_s=2),
           "vscsi": imp(ws, vscsi_file),
           "fio": imp(ws, SAMPLES / "fio_randrw_jsonplus.json"),
           # fio limited to 300 IOPS (direct reads) with iostat watching the disk at the same time
           "limited": imp(ws, CORPUS / "crosscheck" / "loop0_randread-direct_iostat.txt"),
           "limited_fio": imp(ws, CORPUS / "crosscheck" / "loop0_randread-direct_fio.json")}
    Q.add_question(ws, Q.CapQuestion(run_id=ids["capped"], iops_cap=200))
    Q.add_question(ws, Q.CompareQuestion(run_ids=[ids["slow"], ids["fast"]], metric="peak_iops", align="activity"))
    Q.add_question(ws, Q.StormQuestion(run_id=ids["fast"]))
    Q.add_question(ws, Q.ResponseTimeQuestion(run_ids=[ids["vscsi"], ids["fio"]], threshold_ms=50, goal_pct=95))
    Q.add_question(ws, Q.SizingQuestion(users=100, iops_per_user=8, iops_per_user_storm=25))
    Q.add_question(ws, Q.CapQuestion(run_id=ids["limited"], iops_cap=300))
    out = tmp / "report.pdf"
    content = build_report(ws, ReportOptions(title="Boot storm review", customer="ACME", date="23 November 2026"),
                           str(out))
    anon = tmp / "anon.pdf"
    build_report(ws, ReportOptions(title="Boot storm review", date="x", anonymise=True), str(anon))
    yield ws, ids, content, pdf_pages(out), pdf_pages(anon)
    ws.close()


def _section(pages, n, title):
    """The text of question n's section: from its heading to the next one."""
    text = " ".join(pages[1:])
    start = text.index(f"{n}. {title} Answer:")
    nxt = re.search(rf"{n + 1}\. \S.*? Answer:|Runs analysed The runs", text[start + 10:])
    return text[start: start + 10 + nxt.start()] if nxt else text[start:]


def test_each_verdict_carries_the_numbers_the_analyses_compute(engagement):
    ws, ids, content, pages, _anon = engagement
    answers = content.values["answers"]
    assert [a["verdict"] for a in answers] == ["not held", "information", "information", "met", "information",
                                               "held"]
    page1 = pages[0]  # no cover page: the heading, then the answers
    assert page1.startswith("Boot storm review Prepared for ACME · 23 November 2026 Answers ")
    # 1. the cap: worst 10 s window and windows over, from cap_report itself
    c = cap_report(ws, ids["capped"], None, iops_cap=200).checks[0]
    worst = f"{round(c.worst_window['average']):,} IOPS"
    assert worst == "65,716 IOPS"
    cap_line = f"Not held · worst 10 s window {worst} vs cap 200 IOPS + 5 % = 210 IOPS."
    assert cap_line in page1
    sec1 = _section(pages, 1, answers[0]["title"])
    assert cap_line in sec1
    assert f"{c.windows_over} of {c.windows_judged}" in sec1
    assert f"{c.over_cap_share * 100:.2f} %" in sec1  # time above the limit, the same two decimals everywhere
    # 2. compare: the peaks of both storms and their ratio, from compare_runs
    cmp = compare_runs(ws, [ids["slow"], ids["fast"]])
    peak = next(m for m in cmp.metrics if m["metric"] == "peak_iops")
    slow_peak, fast_peak = (f"{round(v):,} IOPS" for v in peak["values"])
    assert (slow_peak, fast_peak) == ("809 IOPS", "1,212 IOPS")
    sec2_head = _section(pages, 2, answers[1]["title"])
    assert f"{fast_peak} ({peak['ratio'][1]:.2f} × the baseline)" in sec2_head  # the figures, restated in the section
    # the whole question: which storm is higher and sooner, and by how much
    assert (f"host1_vda_iostat peaks higher than storm_slow_iostat-xt: {fast_peak} against {slow_peak}, "
            f"{peak['ratio'][1]:.2f} times as high (403 IOPS more), and sooner: 16 s after its first activity against "
            "61 s (45 s sooner).") in page1
    sec2 = _section(pages, 2, answers[1]["title"])
    assert f"{round(peak['values'][1]):,} ({peak['ratio'][1]:.2f}×)" in sec2  # the side-by-side table
    # 3. storm profile: peak and plateau, from storm_report
    m = storm_report(ws, ids["fast"]).run
    assert f"Information · host1_vda_iostat peaked at {m.peak_iops:,.0f} IOPS in the interval {m.peak_t_start_s:g}–" \
           f"{m.peak_t_end_s:g} s, 16 s after the first activity; its sustained level (plateau) was " \
           f"{m.plateau_iops:,.0f} IOPS" in page1
    sec3 = _section(pages, 3, answers[2]["title"])
    assert f"Plateau (sustained level) {m.plateau_iops:,.0f} IOPS" in sec3
    # 4. response time: the lowest share within 50 ms of the two VM disks and the fio jobs, from latency_share
    vm2 = latency_share(ws, ids["vscsi"], 50.0, "all", "2099980:8195 (scsi0:1)").share
    assert f"VM 2099980, disk scsi0:1: {vm2 * 100:.2f} % (exact) within 50 ms vs goal 95 %" in page1
    # ... and which VM suffered, and when: VM 2099979 while VM 2099980 was active, below the goal for that stretch
    assert ("esx01_vscsiStats_raid5, VM 2099979, disk scsi0:0 suffered most while VM 2099980, disk scsi0:1 was active "
            "(minutes 6–11): 92.86 % of its I/O within 50 ms, below the goal of 95 %.") in page1
    sec4 = _section(pages, 4, answers[3]["title"])
    assert f"{vm2 * 100:.2f} % (exact)" in sec4
    # ... and the two-VM story, per collection from a naive read of the file: VM1 alone, then with VM2
    reads = naive_read(two_vm_file())
    lat = ("2099979", "latency of IOs in Microseconds (us)")
    alone, together = (sum(c for c, _lim in reads[i][lat]["counts"]) for i in (0, 6))
    assert (alone / 60, round(together / 60, 1)) == (600, 116.7)
    assert "VM 2099979, disk scsi0:0 alone 0–6 600 IOPS" in sec4  # the table's row: alone, minutes 0–6
    assert "VM 2099979, disk scsi0:0 with VM 2099980, disk scsi0:1 6–11 116.7 IOPS" in sec4
    # 5. sizing: 8 IOPS per user -> 18 disks, 25 -> 54, in one report
    steady, storm = size_vdi(100, 8).disks_layout, size_vdi(100, 25).disks_layout
    assert (steady, storm) == (18, 54)
    assert f"light users (8 IOPS each): {steady} disks; heavy users (25 IOPS each): {storm} disks" in page1
    sec5 = _section(pages, 5, answers[4]["title"])
    assert "What if: other RAID levels and disk types" in sec5
    # 6. the 300 IOPS limit of the fio job held, and fio's own figures agree with iostat's on the same disk
    c = cap_report(ws, ids["limited"], None, iops_cap=300).checks[0]
    assert c.held is True
    assert f"Held · worst 10 s window {fmt_value(c.worst_window['average'], 'IOPS')} vs cap 300 IOPS + 5 % = " \
           "315 IOPS." in page1
    # the workload's own rate beside the disk's total (fio's figure for the job; iostat counts every process)
    assert ("The workload's own rate: fio (loop0_randread-direct_fio) reported 300.0 IOPS over its job; the disk's "
            "total above counts every process on it (300.1 IOPS over the same intervals).") in page1
    # page 1 ends with conclusions drawn from the answers, each naming the answer it comes from
    concl = page1[page1.index("Conclusions and recommendations"):]
    assert "Size for 54 disks (RAID 10, the heavy users); 18 carry only the light users." in concl
    assert "The 200 IOPS cap on capped_200iops_iostat-d is not enforced" in concl
    assert len(pages) <= 9  # six questions: page 1, six sections of evidence, the appendix (was 12)
    cc = crosscheck(ws, ids["limited_fio"], ids["limited"])
    assert cc.verdict == "agree"
    text = " ".join(pages)
    assert "Cross-check: fio against iostat" in text
    assert "within 10 %. The two agree." in text
    read = cc.measure("read_iops")
    # one table, one row per pair: each judged figure fio's first, then iostat's, then the ratio
    assert (f"loop0_randread-direct_fio loop0_randread-direct_iostat loop0 30 s, 28 intervals reads "
            f"{fmt_value(read.fio)} against {fmt_value(read.iostat)} IOPS ({read.ratio:.2f}×)") in text
    assert "Cross-check: fio's own figures and iostat's agree within 10 % on 1 of 1 disk." in page1


NUMBER_RULES = [  # (what, pattern of a number with its unit, rule it must follow)
    ("share", re.compile(r"(?<![\d.,])(\d[\d,]*(?:\.\d+)?) %"), lambda s: "." not in s or len(s.split(".")[1]) == 2),
    ("IOPS", re.compile(r"(?<![\d.,])(\d[\d,]*(?:\.\d+)?) IOPS"),
     lambda s: "." not in s or (len(s.split(".")[1]) == 1 and float(s.replace(",", "")) < 1000)),
]


def test_every_number_prints_one_way(engagement):
    _ws, _ids, _content, pages, _anon = engagement
    bad = []
    for i, page in enumerate(pages, 1):
        for what, rx, ok in NUMBER_RULES:
            bad += [f"page {i}: {what} {x.group(0)!r}" for x in rx.finditer(page) if not ok(x.group(1))]
        bad += [f"page {i}: fractional I/O count {x.group(0)!r}" for x in re.finditer(r"\d+\.\d+ I/Os", page)]
    assert not bad, bad


def test_no_page_shows_flags_code_names_internal_references_or_paths(engagement):
    ws, _ids, _content, pages, _anon = engagement
    names = sorted({r.name for r in ws.runs()} | {ws.run(r.run_id).source_path.rsplit("/", 1)[-1]
                                                      for r in ws.runs()}, key=len, reverse=True)
    found = []
    for i, page in enumerate(pages, 1):
        for n in names:  # run and file names are the customer's data, not ours
            page = page.replace(n, "«data»")
        found += [f"page {i}: {what}: {x.group(0)!r}" for what, rx in CUSTOMER_FORBIDDEN.items()
                  for x in rx.finditer(page)]
        found += [f"page {i}: path {x.group(0)!r}" for x in re.finditer(r"(?<![\w.])(?:[A-Za-z]:)?[\\/]\w+[\\/]", page)]
        found += [f"page {i}: {w!r}" for w in ("iops_per_user", "backend_iops", "sigma", "over_cap_share", "True",
                                                "False", "None", "nan") if re.search(rf"\b{w}\b", page)]
    assert not found, found


def test_anonymised_report_hides_a_device_name_inside_a_file_name(engagement):
    _ws, _ids, _content, pages, anon = engagement
    assert any("host1_vda_iostat" in p for p in pages)  # the plain report names the run as the file did
    for i, page in enumerate(anon, 1):
        assert not re.search(r"(?<![A-Za-z0-9])vda(?![A-Za-z0-9])", page), f"page {i}: {page[:300]}"
        assert "2099979" not in page, f"page {i}"  # the VM world id of the vscsiStats disk
