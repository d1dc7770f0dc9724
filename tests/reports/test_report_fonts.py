"""The report's fonts ship with StormScope (reports/fonts/, DejaVu Sans) and are read through importlib.resources:
a Cyrillic or Greek customer name prints as itself on a machine without system DejaVu fonts, where it printed as
boxes before. Checked in a fresh interpreter that records every file it opens (an audit hook), with reportlab's
own font search path emptied, on the PDF as a reader sees it (pdffonts, pdftotext)."""

import json
import subprocess
import sys

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
    assert ('"reports" = ["fonts/*.ttf", "fonts/LICENSE-DejaVu.txt", "fonts/LICENSE-DroidSansFallback.txt"]'
            in pyproject)
