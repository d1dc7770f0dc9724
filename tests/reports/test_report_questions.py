"""The report answers the workspace's questions (issue 12): page 1 (no cover: the heading on top) holds "Answers", one
line per question in the stored order with its verdict, the deciding number and the reason, each linking to
the section with its evidence. Checked on the PDF's extracted text (pdftotext) and its link annotations."""

import re
import subprocess

import pytest

from app.analysis import questions as Q
from app.analysis.cap import cap_report
from app.analysis.numbers import fmt_value
from app.analysis.sizing import size_vdi
from app.analysis.storm import storm_report
from app.importer import import_file
from parsers.base import ImportOptions
from reports import ReportOptions, build_report
from tests.conftest import CUSTOMER_FORBIDDEN, SAMPLES


def pdf_pages(path):
    out = subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True, check=True).stdout
    return [" ".join(p.split()) for p in out.split("\f")[:-1]]


def imp(ws, name, **kw):
    r = import_file(ws, str(SAMPLES / name), ImportOptions(**kw))
    assert r.status == "imported", r.error
    return r.run_ids[0]


@pytest.fixture
def qws(ws):
    """The sample storms and the capped run, with a cap, a sizing and a storm-profile question."""
    ws.ids = {"fast": imp(ws, "storm_fast_iostat-xt.txt", first_report="interval"),
              "slow": imp(ws, "storm_slow_iostat-xt.txt", first_report="interval"),
              "capped": imp(ws, "capped_200iops_iostat-d.txt", interval_s=2)}
    Q.add_question(ws, Q.CapQuestion(run_id=ws.ids["capped"], iops_cap=200))
    Q.add_question(ws, Q.SizingQuestion(users=100, iops_per_user=8, iops_per_user_storm=25))
    Q.add_question(ws, Q.StormQuestion(run_id=ws.ids["fast"]))
    return ws


def _answer_block(page, n, nxt):
    start = page.index(f"{n}. ")
    end = page.index(f"{nxt}. ", start) if nxt else len(page)
    return page[start:end]


def test_answers_page_carries_each_verdict_with_the_analyses_numbers(qws, tmp_path):
    out = tmp_path / "q.pdf"
    content = build_report(qws, ReportOptions(date="x"), str(out))
    # the slow storm is in the workspace but no question is about it: the "Not included" box says so
    assert [s.key for s in content.sections] == ["answers", "q1", "q2", "q3", "runs", "not_included", "appendix"]
    pages = pdf_pages(out)
    page = pages[0]  # page 1: the heading, then the answers (no cover page)
    assert page.startswith("Storage performance report x Answers ")
    assert "Executive summary" not in page  # the answers stand on their own page
    ids = qws.ids
    # the numbers the analyses compute, independently of the questions module
    cap = cap_report(qws, ids["capped"], None, iops_cap=200).checks[0]
    worst = round(cap.worst_window["average"])
    assert worst == 65716
    steady, storm = size_vdi(100, 8).disks_layout, size_vdi(100, 25).disks_layout
    assert (steady, storm) == (18, 54)
    m = storm_report(qws, ids["fast"]).run
    answers = [a for _sq, a in Q.answer_all(qws)]
    blocks = [_answer_block(page, n, n + 1 if n < len(answers) else None) for n in range(1, len(answers) + 1)]
    for block, a in zip(blocks, answers):
        assert block.startswith(f"{answers.index(a) + 1}. {a.title}")
        word = Q.VERDICTS[Q.VERDICTS.index(a.verdict)].capitalize()
        # the deciding figure, except where the answer's words give the figures (a storm's profile)
        assert (f"{word} · {a.number}." if a.kind != "storm_profile" else f"{word} · {a.reason}") in block
        assert str(a.reason) in block
    cap_b, sizing_b, storm_b = blocks
    assert cap_b.split(" · ")[0].endswith("Not held")
    assert f"worst 10 s window {worst:,} IOPS vs cap 200 IOPS + 5 % = 210 IOPS" in cap_b
    assert "Evidence: section 1" in cap_b
    assert f"light users (8 IOPS each): {steady} disks; heavy users (25 IOPS each): {storm} disks" in sizing_b
    assert "Evidence: section 2" in sizing_b
    assert f"peaked at {fmt_value(m.peak_iops, 'IOPS')}" in storm_b
    assert f"(plateau) was {fmt_value(m.plateau_iops, 'IOPS')}" in storm_b
    assert "Evidence: section 3" in storm_b
    # one evidence section per question: the cap checked on the capped run only, sizing 18 and 54
    text = " ".join(pages)
    assert f"1. {answers[0].title}" in text
    assert "Windows above the limit" in text
    assert "20 of 25" in text
    assert "cap hold on storm_fast" not in text
    assert "cap was in force on storm" not in text
    assert "Executive summary" not in text  # the answers are the summary
    assert content.values["sizing_cases"][0]["result"]["disks_layout"] == 18
    assert content.values["sizing_cases"][1]["result"]["disks_layout"] == 54
    # customer words: no flags, code identifiers or paths (run and file names are data)
    clean = page
    for rid in ids.values():
        clean = clean.replace(qws.run(rid).name, "«data»")
    found = [f"{what}: {x.group(0)!r}" for what, rx in CUSTOMER_FORBIDDEN.items() for x in rx.finditer(clean)]
    assert not found, found
    # no filesystem path
    assert str(SAMPLES) not in page
    assert not re.search(r"(?<![\w.])/\w+/", page)


def _pages_and_links(path):
    """Page object numbers in order, and each page's link destinations as page indexes (0 = cover)."""
    data = path.read_bytes()
    kids = [int(k) for k in re.findall(rb"(\d+) 0 R", re.search(rb"/Kids \[([^\]]*)\]", data).group(1))]
    links = {}
    for i, obj in enumerate(kids):
        page = re.search(rb"\n%d 0 obj\s*<<(.*?)/Contents" % obj, data, re.S).group(1)
        annots = [int(a) for a in re.findall(rb"(\d+) 0 R", (re.search(rb"/Annots \[([^\]]*)\]", page)
                                                               or re.match(rb"()", b"")).group(1))]
        dests = []
        for a in annots:
            ann = re.search(rb"\n%d 0 obj\s*<<(.*?)>>" % a, data, re.S).group(1)
            d = re.search(rb"/Dest \[ (\d+) 0 R", ann)
            if d:
                dests.append(kids.index(int(d.group(1))))
        links[i] = dests
    return kids, links


def test_each_answer_links_to_the_page_of_its_evidence_and_contents_links_work(qws, tmp_path):
    out = tmp_path / "l.pdf"
    content = build_report(qws, ReportOptions(date="x"), str(out))
    pages = pdf_pages(out)
    _kids, links = _pages_and_links(out)
    want = [a["section_title"] for a in content.values["answers"]]
    assert want == ["section 1", "section 2", "section 3"]
    assert len(links[0]) == len(want)  # one link per answer on page 1
    for a, target in zip(content.values["answers"], links[0]):
        assert pages[target].find(f"{a['n']}. {a['title']}") != -1, (a, target)
    # no contents page: each section is a bookmark of the PDF's outline
    titles = [s.title for s in content.sections]
    data = out.read_bytes()
    assert data.count(b"/Title") >= len(titles) + 1  # one outline entry per section, and the document's title
    for title in titles[1:]:  # each section's heading is on a page after page 1
        assert any(title in p for p in pages[1:]), title


def test_with_questions_the_report_answers_them_and_without_it_tours_the_runs(qws, tmp_path):
    with_q = build_report(qws, ReportOptions(date="x"), str(tmp_path / "a.pdf"))
    assert [s.key for s in with_q.sections] == ["answers", "q1", "q2", "q3", "runs", "not_included", "appendix"]
    box = next(s for s in with_q.sections if s.key == "not_included")
    assert box.paragraphs == ["1 imported run is not analysed here (no question of this report is about it): "
                              "iostat: storm_slow_iostat-xt."]
    assert with_q.values["runs"] == sorted([qws.ids["capped"], qws.ids["fast"]])  # the runs the questions use
    for sq in Q.list_questions(qws):
        Q.delete_question(qws, sq.question_id)
    without = build_report(qws, ReportOptions(date="x", iops_cap=None, sizing={}), str(tmp_path / "b.pdf"))
    assert [s.key for s in without.sections] == ["summary", "runs", "overlay", "storm", "compare", "appendix"]


def test_without_questions_the_report_is_unchanged(qws, tmp_path):
    """Questions added and deleted again leave no trace: the same bytes as a workspace that never had any."""
    for sq in Q.list_questions(qws):
        Q.delete_question(qws, sq.question_id)
    a, b = tmp_path / "a.pdf", tmp_path / "b.pdf"
    build_report(qws, ReportOptions(date="x"), str(a))
    Q.add_question(qws, Q.StormQuestion(run_id=qws.ids["slow"]))
    build_report(qws, ReportOptions(date="x"), str(tmp_path / "with.pdf"))
    assert (tmp_path / "with.pdf").read_bytes() != a.read_bytes()
    for sq in Q.list_questions(qws):
        Q.delete_question(qws, sq.question_id)
    build_report(qws, ReportOptions(date="x"), str(b))
    assert a.read_bytes() == b.read_bytes()


def test_anonymised_answers_hide_device_and_host_names(qws, tmp_path):
    Q.add_question(qws, Q.CapQuestion(run_id=qws.ids["capped"], iops_cap=200, device="vda"), position=1)
    out = tmp_path / "anon.pdf"
    content = build_report(qws, ReportOptions(date="x", anonymise=True), str(out))
    page = pdf_pages(out)[0]
    first = content.values["answers"][0]
    assert re.search(r"\(device \d+\)\?", first["title"]), first["title"]
    assert "vda" not in page
    plain = build_report(qws, ReportOptions(date="x"), str(tmp_path / "plain.pdf"))
    assert "(vda)" in plain.values["answers"][0]["title"]


def test_a_question_the_data_cannot_answer_says_why_and_has_no_link(qws, tmp_path):
    # plain iostat reports (-d) carry no await: no response times to judge
    Q.add_question(qws, Q.ResponseTimeQuestion(run_ids=[qws.ids["capped"]], threshold_ms=10, goal_pct=99))
    out = tmp_path / "r.pdf"
    content = build_report(qws, ReportOptions(date="x"), str(out))
    last = content.values["answers"][-1]
    assert last["verdict"] == "information"
    assert "cannot be answered from the data" in last["reason"]
    assert last["section"] is None  # nothing to chart: no link
    page = pdf_pages(out)[0]
    assert f"{last['n']}. " in page
    assert last["verdict_words"] in page


def test_sections_named_with_questions_follow_the_answers(qws, tmp_path):
    """Review finding: with questions, sections the options named were silently left out of the PDF."""
    from reports.builders import answer_section_keys

    rep = build_report(qws, ReportOptions(date="x", sections=[*answer_section_keys(), "storm"]),
                       str(tmp_path / "a.pdf"))
    assert [s.key for s in rep.sections] == ["answers", "q1", "q2", "q3", "runs", "storm", "not_included",
                                             "appendix"]
    only = build_report(qws, ReportOptions(date="x", sections=["overlay"]), str(tmp_path / "b.pdf"))
    assert [s.key for s in only.sections] == ["answers", "q1", "q2", "q3", "overlay", "not_included"]


def test_a_corrected_clock_is_stated_in_the_runs_table_and_under_a_chart_on_the_clock(ws, tmp_path):
    """A sar capture whose host clock ran 37 s ahead, put back on its iostat twin's clock (estimated, accepted): the
    runs table prints its period on the corrected clock and says by how much; a comparison on clock time says the
    runs are on one clock and names the correction (it said 'aligned on their start' before, which was not true of a
    chart on the clock)."""
    from app.analysis.clock import accept, estimate_offset
    from tests.analysis.test_clock_offset import IOSTAT_A, SAR_A
    from tests.clock_util import shifted_copy
    from tests.reports.test_report import pdf_text

    iostat, sar = (import_file(ws, str(p), ImportOptions(first_report="interval")).run_ids[0]
                   for p in (IOSTAT_A, shifted_copy(SAR_A, tmp_path, 37)))
    o = accept(ws, estimate_offset(ws, sar, iostat))
    Q.add_question(ws, Q.CompareQuestion([iostat, sar], align="clock"))
    build_report(ws, ReportOptions(date="x"), str(tmp_path / "r.pdf"))
    text = " ".join(pdf_text(tmp_path / "r.pdf").split())
    # as filed, the copy's first interval starts at 06:32:10 (iostat's at 06:31:33); corrected by -36.9 s: 06:31:33
    assert f"{o.offset_s:.1f}" == "-36.9"
    assert "2026-11-29 06:31:33 – 06:41:34 (clock corrected)" in text
    assert f"run {sar}'s clock is corrected by −36.9 s (estimated against run {iostat}, match 0.98)." in text
    assert ("The runs are on one clock (time 0 is the earliest start among them), so one moment is at one place on "
            f"every line: run {sar}'s clock is corrected by −36.9 s (estimated against run {iostat}, match 0.98).") \
        in text
    assert "aligned on their start" not in text
