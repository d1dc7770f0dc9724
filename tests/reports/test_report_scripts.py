"""Every script on the page (issue 26): Chinese and Japanese names print in the shipped CJK font (they printed as
empty boxes), Hebrew and Arabic ones right to left with Arabic letters joined (Hebrew read backwards), in the text,
the tables, the chart labels and the footer. Checked on a rasterised page against a reviewed reference image
(tests/fixtures/report_scripts/page1.png, written by STORMSCOPE_REGEN_GOLDEN=1; look at it before committing),
on the fonts the PDF embeds, and on the glyphs each name needs."""

import subprocess

from PIL import Image, ImageChops

from app.importer import import_file
from parsers.base import ImportOptions
from reports import ReportOptions, build_report
from reports.scripts import cjk_runs, shape, visual
from tests.analysis_util import iops_log
from tests.conftest import REGEN, ROOT

NAMES = ["存储风暴", "起動ストーム", "סערת אתחול", "عاصفة الإقلاع"]
REFERENCE = ROOT / "tests" / "fixtures" / "report_scripts" / "page1.png"


def test_hebrew_is_drawn_right_to_left_numbers_kept_and_arabic_joined():
    assert visual("run שלום עולם end") == "run םלוע םולש end"
    assert visual("ריצה 120 שנייה") == "היינש 120 הציר"  # a number keeps its own order inside the run
    assert visual("plain text (no RTL) 1,234") == "plain text (no RTL) 1,234"
    # sin + lam + alef + mim: initial sin, the lam-alef ligature in its final form, isolated mim
    assert shape("سلام") == "\ufeb3\ufefc\ufee1"
    # beh + teh + beh: initial, medial, final; an alef never joins to the letter after it
    assert shape("ببب") == "\ufe91\ufe92\ufe90"
    assert shape("اب") == "\ufe8d\ufe8f"
    assert [c for run, c in cjk_runs("run 存储 and 起動")] == [False, True, False, True]


def test_cjk_hebrew_and_arabic_names_render_on_a_page_as_the_reference(ws, write, tmp_path):
    for i, n in enumerate(NAMES):
        r = import_file(ws, write(f"r{i}.txt", iops_log([10 + i, 200 + 50 * i, 900, 1200 - 100 * i, 800, 300, 50, 10],
                                                          host=f"h{i}")), ImportOptions())
        assert r.status == "imported", r.error
        ws.rename_run(r.run_ids[0], n)
    out = tmp_path / "s.pdf"
    build_report(ws, ReportOptions(title="Boot storms 起動 · סערה · عاصفة", customer="北京 数据中心", date="x",
                                   sections=["overlay", "runs"]), str(out))
    fonts = subprocess.run(["pdffonts", str(out)], capture_output=True, text=True, check=True).stdout
    assert "DroidSansFallback" in fonts  # the CJK runs in the shipped CJK font, embedded
    text = subprocess.run(["pdftotext", str(out), "-"], capture_output=True, text=True, check=True).stdout
    for name in NAMES[:2]:
        assert name in text  # CJK drawn as characters (ToUnicode), not as boxes
    # the glyphs: every character of every name is in the font it is drawn with
    from reportlab.pdfbase import pdfmetrics

    for name in NAMES:
        for run, cjk in cjk_runs(visual(name)):
            face = pdfmetrics.getFont("SS-CJK" if cjk else "SS-Regular").face  # SS-CJK: registered by this report
            missing = [c for c in run if c != " " and ord(c) not in face.charToGlyph]
            assert not missing, (name, missing)
    # the page as a reader sees it, against the reviewed reference
    subprocess.run(["pdftoppm", "-png", "-gray", "-r", "50", "-f", "1", "-l", "1", "-singlefile", str(out),
                    str(tmp_path / "p")], check=True)
    page = Image.open(tmp_path / "p.png").convert("L")
    if REGEN:
        page.save(REFERENCE)
    ref = Image.open(REFERENCE).convert("L")
    assert page.size == ref.size
    diff = ImageChops.difference(page, ref)
    far = sum(n for level, n in enumerate(diff.histogram()) if level > 64)
    assert far <= 0.002 * page.size[0] * page.size[1], f"{far} pixels differ from the reference"


def test_chart_labels_are_never_struck_through_and_a_level_at_the_cap_shows():
    """"cap 200 IOPS" was struck through by the cap + 5 % line 4 pt above it, and a workload running at 200 IOPS
    hid under the cap's line: labels go where no line crosses them (on a light box), lines under the curves."""
    from reportlab.graphics.shapes import Line, PolyLine

    from reports.content import Chart
    from reports.pdf import LABEL_H, line_chart, ref_label_ys

    ys = ref_label_ys([100.0, 104.0], 200.0, 0.0)
    for ty in ys:  # no line passes through a label's box
        assert not any(ty - 1 < y < ty + LABEL_H + 1 for y in (100.0, 104.0)), ys
    assert abs(ys[0] - ys[1]) >= LABEL_H + 1.5
    chart = Chart("lines", "t", {"lines": [{"label": "fio", "t0": [0, 10, 20], "t": [10, 20, 30],
                                            "y": [200, 200, 200]}],
                                 "refs": [{"value": 200, "label": "cap 200 IOPS", "style": "cap"},
                                          {"value": 210, "label": "cap + 5 %", "style": "limit"}]})
    d, _gaps = line_chart(chart, 400, "Helvetica")
    kinds = [type(n).__name__ for n in d.contents]
    first_curve = next(i for i, n in enumerate(d.contents) if isinstance(n, PolyLine))
    dashed = [i for i, n in enumerate(d.contents) if isinstance(n, Line) and n.strokeDashArray]
    assert dashed
    assert max(dashed) < first_curve, kinds  # the cap lines first, the workload's line over them
