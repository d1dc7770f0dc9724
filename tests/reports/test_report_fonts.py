"""The report's fonts ship with StormScope (reports/fonts/, DejaVu Sans) and are read through importlib.resources:
a Cyrillic or Greek customer name prints as itself on a machine without system DejaVu fonts, where it printed as
boxes before. Checked in a fresh interpreter that records every file it opens (an audit hook), with reportlab's
own font search path emptied, on the PDF as a reader sees it (pdffonts, pdftotext)."""

import json
import subprocess
import sys

from app.importer import import_file
from parsers.base import ImportOptions
from reports import build_report
from reports.builders import section_keys
from reports.options import ReportOptions
from tests.conftest import ROOT, SAMPLES
from tests.reports.test_report import poppler

NAMES = ("ООО «Ромашка» Санкт-Петербург", "Αθηναϊκή Τράπεζα Ελλάδος")

SCRIPT = r"""
import json, sys
opened = []
def hook(event, args):
    if event == "open" and isinstance(args[0], str) and args[0].lower().endswith((".ttf", ".otf", ".ttc", ".pfb")):
        opened.append(args[0])
sys.addaudithook(hook)
from reportlab import rl_config
rl_config.TTFSearchPath = []  # reportlab's own font lookup points nowhere
rl_config.T1SearchPath = []
import main
ws, out, names = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
assert main.main(["import", sys.argv[4], "--first-report", "interval", "-w", ws]) == 0
for i, name in enumerate(names):
    assert main.main(["report", "-w", ws, "--customer", name, "-o", f"{out}{i}.pdf"]) == 0
print(json.dumps(opened))
"""


def test_cyrillic_and_greek_customer_names_print_with_the_shipped_font(tmp_path):
    poppler("pdffonts")
    poppler("pdftotext")
    out = tmp_path / "r"
    p = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "ws.duckdb"), str(out), json.dumps(NAMES),
                        str(SAMPLES / "storm_fast_iostat-xt.txt")], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-3000:]
    opened = json.loads(p.stdout.strip().splitlines()[-1])
    shipped = ROOT / "reports" / "fonts"
    # the CJK font is read only by a report that prints CJK characters (these names are Cyrillic and Greek)
    assert sorted({str(f) for f in opened}) == [str(shipped / "DejaVuSans-Bold.ttf"), str(shipped / "DejaVuSans.ttf")]
    for i, name in enumerate(NAMES):
        pdf = f"{out}{i}.pdf"
        fonts = subprocess.run(["pdffonts", pdf], capture_output=True, text=True, check=True).stdout.splitlines()[2:]
        embedded = {line.split()[0].split("+")[-1] for line in fonts if line.split()[-5:-2] == ["yes", "yes", "yes"]}
        assert {"DejaVuSans", "DejaVuSans-Bold"} <= embedded, fonts  # embedded subsets, Unicode maps
        text = subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout
        assert name in " ".join(text.split())


def test_the_font_licence_ships_beside_the_fonts():
    fonts = ROOT / "reports" / "fonts"
    assert "Bitstream Vera" in (fonts / "LICENSE-DejaVu.txt").read_text()
    droid = (fonts / "LICENSE-DroidSansFallback.txt").read_text()
    assert "Apache License" in droid
    assert "Version 2.0" in droid
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert ('"stormscope.reports" = ["fonts/*.ttf", "fonts/LICENSE-DejaVu.txt", "fonts/LICENSE-DroidSansFallback.txt"]'
            in pyproject)


def test_every_font_the_report_uses_is_embedded(ws, tmp_path):
    """A font the PDF names but does not carry is drawn by the reader's substitute, with other widths: the summary's
    bullets, the contents' and the tables' cells and the charts named Helvetica (not embedded) before."""
    for name, opts in (("storm_fast_iostat-xt.txt", ImportOptions(first_report="interval")),
                       ("storm_slow_iostat-xt.txt", ImportOptions(first_report="interval")),
                       ("capped_200iops_iostat-d.txt", ImportOptions(interval_s=2, tags={"cap_iops": "200"})),
                       ("fio_randrw_jsonplus.json", ImportOptions())):
        assert import_file(ws, str(SAMPLES / name), opts).status == "imported"
    vscsi = ROOT / "tests" / "fixtures" / "vscsistats" / "vscsiStats-helper_sample_vscsiStats.csv"
    assert import_file(ws, str(vscsi), ImportOptions(interval_s=60)).status == "imported"
    out = tmp_path / "r.pdf"
    sizing = {"users": 100, "iops_per_user": 25, "read_pct": 40, "raid": "10", "disk_iops": 75}
    build_report(ws, ReportOptions(date="x", customer="ACME", confidential="Confidential: ACME only", sizing=sizing,
                                   sections=section_keys()), str(out))
    poppler("pdffonts")
    rows = subprocess.run(["pdffonts", str(out)], capture_output=True, text=True, check=True).stdout.splitlines()[2:]
    assert len(rows) >= 2  # DejaVu Sans and its bold at least
    not_embedded = [r for r in rows if r.split()[-5] != "yes"]  # columns: name type encoding emb sub uni obj gen
    assert not_embedded == []
