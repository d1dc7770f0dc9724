"""What a received file controls is bounded (issue 36): a template's logo, its fields, a saved mapping, the size of
a field in a trace. Each case was a hang, all the machine's memory or a traceback before."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import app.cli as cli
from app.workspace import Workspace
from reports.logo import MAX_BYTES, MAX_PIXELS, LogoUnusable, read_logo
from reports.options import ReportOptions, TemplateInvalid, load_template
from tests.conftest import ROOT, SAMPLES

FAST = SAMPLES / "storm_fast_iostat-xt.txt"
PY = sys.executable


def _png(path: Path, size: tuple[int, int] = (40, 20)) -> Path:
    from PIL import Image

    Image.new("RGB", size, (31, 78, 121)).save(path)
    return path


@pytest.fixture
def received(tmp_path):
    """A workspace with a run, as received: templates are added by whoever sent it."""
    path = tmp_path / "ws.duckdb"
    assert cli.main(["import", str(FAST), "-w", str(path)]) == 0
    return path


def _template(ws_path: Path, name: str, **fields) -> None:
    data = json.loads(ReportOptions().to_json())
    data.update(fields)
    with Workspace(ws_path) as ws:
        ws.con.execute("INSERT OR REPLACE INTO report_templates VALUES (?, ?)", [name, json.dumps(data)])


def _report(ws_path: Path, out: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([PY, str(ROOT / "main.py"), "report", "-w", str(ws_path), "-o", str(out), *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=180)


# ---- the logo --------------------------------------------------------------------------------------------------
def _hostile_logos(tmp_path: Path) -> dict[str, Path]:
    from PIL import Image

    fifo = tmp_path / "fifo.png"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.png"
    folder.mkdir()
    big = tmp_path / "big.png"
    with open(big, "wb") as f:
        f.truncate(MAX_BYTES + 1)  # sparse: no disk used
    bomb = tmp_path / "bomb.png"
    Image.new("1", (6000, 6000)).save(bomb)  # 36 M pixels, a few kB on disk
    text = tmp_path / "passwd.png"
    text.write_text("root:x:0:0:root:/root:/bin/bash\n")
    cut = tmp_path / "cut.png"
    cut.write_bytes(_png(tmp_path / "whole.png", (300, 300)).read_bytes()[:200])
    return {"/dev/zero": Path("/dev/zero"), "a FIFO": fifo, "a folder": folder, "a file over the limit": big,
            "a PNG bomb": bomb, "a text file": text, "a cut PNG": cut}


def test_read_logo_takes_a_plain_image_and_refuses_the_rest(tmp_path):
    ok = _png(tmp_path / "logo.png")
    assert read_logo(ok) == ok.read_bytes()
    for what, path in _hostile_logos(tmp_path).items():
        with pytest.raises(LogoUnusable) as e:
            read_logo(path)
        assert path.name in str(e.value), (what, e.value)
    assert MAX_PIXELS < 6000 * 6000


def test_a_received_templates_logo_never_hangs_or_fills_memory(received, tmp_path):
    """/dev/zero read until 22.8 GB, a FIFO hung for ever, a directory or /etc/passwd was a traceback: now the
    report is written without the logo, and a note says why."""
    for what, logo in _hostile_logos(tmp_path).items():
        _template(received, "t", logo=str(logo))
        out = tmp_path / "r.pdf"
        r = _report(received, out, "--template", "t")
        assert r.returncode == 0, (what, r.stderr)
        assert "Traceback" not in r.stderr
        assert r.stderr.startswith("note: The report was written without its logo: the logo "), (what, r.stderr)
        assert out.stat().st_size > 0


def test_a_logo_given_on_the_command_line_that_cannot_be_used_stops_the_report(received, tmp_path):
    bomb = _hostile_logos(tmp_path)["a PNG bomb"]
    r = _report(received, tmp_path / "r.pdf", "--logo", str(bomb))
    assert r.returncode == 2
    assert r.stderr.startswith("error: the logo bomb.png is 6,000 x 6,000 pixels"), r.stderr
    assert not (tmp_path / "r.pdf").exists()


# ---- template and mapping fields --------------------------------------------------------------------------------
@pytest.mark.parametrize(("fields", "said"), [
    ({"page_size": 5}, "its page size is not A4 or Letter"),
    ({"accent": "<font color=red>x"}, "its accent is not a colour such as #1f4e79"),
    ({"iops_cap": "200"}, "its iops cap is not a number of IOPS"),
    ({"title": "x" * 20_000_000}, "its title is not text of at most 1,000 characters"),
    ({"sections": ["summary", "rm -rf"]}, "its sections is not a list of the report's sections"),
    ({"runs": ["7"]}, "its runs is not a list of run numbers"),
    ({"sizing": {"users": [1]}}, "its sizing is not a set of sizing figures"),
    ({"anonymise": "yes"}, "its anonymise is not yes or no"),
])
def test_a_received_template_field_is_checked_on_read(received, tmp_path, fields, said):
    _template(received, "t", **fields)
    with Workspace(received, read_only=True) as ws, pytest.raises(TemplateInvalid) as e:
        load_template(ws.con, "t")
    assert str(e.value) == f"the report template 't' cannot be used: {said}"
    r = _report(received, tmp_path / "r.pdf", "--template", "t")
    assert r.returncode == 2
    assert r.stderr == f"error: the report template 't' cannot be used: {said}\n"


def test_a_received_mapping_is_checked_on_read(received, capsys):
    with Workspace(received) as ws:
        ws.con.execute("INSERT INTO mappings VALUES ('m', 'iomark', ?, now(), now())", [json.dumps({"columns": 5})])
        ws.con.execute("INSERT INTO mappings VALUES ('n', 'iomark', '[1, 2]', now(), now())")
    capsys.readouterr()
    assert cli.main(["mapping", "show", "m", "-w", str(received)]) == 1
    err = capsys.readouterr().err
    assert "the saved mapping 'm' is damaged: columns must be pairs of names" in err, err
    assert cli.main(["mapping", "list", "-w", str(received)]) == 0
    out = capsys.readouterr().out
    assert "(damaged)" in out
    assert cli.main(["import", str(FAST), "--mapping", "n", "-w", str(received)]) == 2
    assert "the saved mapping 'n' is damaged" in capsys.readouterr().err


# ---- a field in a trace ---------------------------------------------------------------------------------------
def test_a_huge_json_field_is_refused_before_it_is_decoded(tmp_path, capsys):
    """A fio JSON with a 1 GB job name took 8.5 GB of memory; now a string past the limit is refused with its line
    before decoding (here 1 MB, the mechanism is the same), and a file past the whole-file limit before reading."""
    import parsers.base as base

    f = tmp_path / "fio.json"
    f.write_text('{\n  "fio version" : "fio-3.33",\n  "jobs" : [\n    {\n      "jobname" : "'
                 + "x" * (1024 * 1024) + '"\n    }\n  ]\n}\n')
    ws = tmp_path / "ws.duckdb"
    assert cli.main(["import", str(f), "-w", str(ws)]) == 1
    err = capsys.readouterr().out
    assert "fio.json:5: a JSON string of 1,048,576 characters: longer than the 65,536 StormScope reads" in err, err
    old = base.MAX_TEXT_BYTES
    base.MAX_TEXT_BYTES = 1000
    try:
        assert cli.main(["import", str(f), "-w", str(ws)]) == 1
    finally:
        base.MAX_TEXT_BYTES = old
    assert "MB StormScope reads of fio JSON output (no tool writes one that large" in capsys.readouterr().out
