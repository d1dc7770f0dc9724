"""The results table under the overlay, through the user's path: runs selected in the run browser, the chart
zoomed, the cap typed into the overlay's Cap box, Ctrl+C / Copy / Export CSV… — and its figures equal what
`main.py analyze storm|cap --json [--from S --to S]` prints for the same runs and range."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import csv  # noqa: E402
import json  # noqa: E402

import pytest  # noqa: E402
from PySide6.QtCore import QRectF, Qt  # noqa: E402
from PySide6.QtGui import QImage, QPainter  # noqa: E402
from PySide6.QtWidgets import QApplication, QFileDialog  # noqa: E402

from app.cli import main as cli_main  # noqa: E402
from app.importer import import_file  # noqa: E402
from app.ui.results_table import ResultsTable  # noqa: E402
from parsers.base import ImportOptions  # noqa: E402
from tests.analysis.test_range_stats import DEV_A, DEV_B, import_samples, make_ws, two_vm_text  # noqa: E402


@pytest.fixture(scope="module")
def cli_ws(tmp_path_factory):
    """The same imports in a workspace of their own, for the command line."""
    path = tmp_path_factory.mktemp("cli") / "ws.duckdb"
    w, ids = make_ws(path)
    w.close()
    return path, ids


@pytest.fixture
def table(qtbot, window):
    """The results table docked under the window's overlay, as the lead wires it."""
    from PySide6.QtWidgets import QDockWidget

    rt = ResultsTable(window)
    dock = QDockWidget("Results", window)
    dock.setObjectName("dock-results")
    dock.setWidget(rt)
    window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, dock)
    rt.attach(window.plot)
    yield rt
    rt.shutdown()


def import_all(window, tmp_path) -> dict[str, int]:
    ids = import_samples(window.ws)
    f = tmp_path / "two_vms.csv"
    f.write_text(two_vm_text())
    r = import_file(window.ws, str(f), ImportOptions(interval_s=60))
    assert r.status == "imported", r.error
    ids["vscsi"] = r.run_ids[0]
    window.browser.reload()
    return ids


def settled(qtbot, window, rt):
    """Wait until the overlay has drawn and the table has computed for what the chart shows."""
    for _ in range(2):  # the chart's auto-range after a draw changes the range once more
        qtbot.waitUntil(lambda: not window.plot.loading, timeout=30000)
        qtbot.waitUntil(lambda: not rt.busy, timeout=30000)
        qtbot.wait(400)
    qtbot.waitUntil(lambda: not rt.busy, timeout=30000)


def heads_of(t) -> list[str]:
    """The table's headers as one line each (shown on two lines to keep the table narrow)."""
    return [t.horizontalHeaderItem(j).text().replace("\n", " ") for j in range(t.columnCount())]


def cli_json(capsys, *argv: str) -> dict:
    capsys.readouterr()
    assert cli_main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


def copied(qtbot, rt) -> list[dict[str, str]]:
    """Ctrl+C on the table, as the user presses it: the clipboard's TSV as dicts by header."""
    QApplication.clipboard().clear()
    rt.table.setFocus()
    qtbot.keyClick(rt.table, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    text = QApplication.clipboard().text()
    assert text
    rows = [ln.split("\t") for ln in text.splitlines()]
    return [dict(zip(rows[0], r)) for r in rows[1:]]


def check_storm(row: dict[str, str], cli: dict) -> None:
    pairs = {"From (s of the run)": "t_start_s", "To (s of the run)": "t_end_s", "Peak (IOPS)": "peak_iops",
             "Peak at (s of the run)": "peak_t_end_s",
             "Time to peak (s)": "time_to_peak_s", "Mean (IOPS)": "mean_iops", "Plateau (IOPS)": "plateau_iops",
             "Total I/Os": "total_ios"}
    for head, key in pairs.items():
        assert float(row[head]) == pytest.approx(cli[key], rel=1e-9, abs=1e-9), head
    assert float(row["p95 (IOPS)"]) == pytest.approx(cli["iops_percentiles"]["p95"], rel=1e-9)
    assert float(row["Read share (%)"]) == pytest.approx(cli["read_share"] * 100, rel=1e-9)


def storm_cli(capsys, cli_ws, rid: int, rng: tuple[float, float] | None = None) -> dict:
    argv = ["analyze", "storm", "-w", str(cli_ws[0]), "--run", str(rid), "--phases", "none", "--json"]
    if rng:
        argv += ["--from", repr(rng[0]), "--to", repr(rng[1])]
    return cli_json(capsys, *argv)["run"]


def test_table_follows_selection_and_zoom_and_equals_the_command_line(qtbot, window, table, cli_ws, capsys,
                                                                      tmp_path):
    ids = import_all(window, tmp_path)
    assert ids == cli_ws[1]
    fast, slow = ids["storm_fast_iostat-xt"], ids["storm_slow_iostat-xt"]
    window.browser.select_runs([fast, slow])
    settled(qtbot, window, table)
    assert [ln.kind for ln in table.lines] == ["curve", "curve", "delta", "ratio"]
    # the whole runs
    got = copied(qtbot, table)
    assert [r["Curve"] for r in got] == ["storm_fast_iostat-xt", "storm_slow_iostat-xt", "B − A", "B / A"]
    a, b = storm_cli(capsys, cli_ws, fast), storm_cli(capsys, cli_ws, slow)
    check_storm(got[0], a)
    check_storm(got[1], b)
    assert float(got[2]["Peak (IOPS)"]) == b["peak_iops"] - a["peak_iops"]
    assert float(got[3]["Total I/Os"]) == pytest.approx(b["total_ios"] / a["total_ios"], rel=1e-9)
    assert table.table.item(0, 2).text() == "1,212.0"  # shown with separators, copied unformatted
    assert table.table.item(0, 1).text() == "0.0–60.0 (all)"  # the whole run

    # zoom in as the mouse wheel does: the ViewBox's x range; the table shows the statistics of that range
    vb = window.plot.plot.getPlotItem().vb
    vb.setXRange(10.0, 40.0, padding=0)
    settled(qtbot, window, table)
    lo, hi = vb.viewRange()[0]
    got = copied(qtbot, table)
    check_storm(got[0], storm_cli(capsys, cli_ws, fast, (lo, hi)))
    check_storm(got[1], storm_cli(capsys, cli_ws, slow, (lo, hi)))
    assert float(got[0]["From (s of the run)"]) >= 9.5
    assert float(got[0]["To (s of the run)"]) <= 40.5
    assert "visible range" in table.scope.text()

    # Ctrl+C with a line selected copies that line (with the header)
    table.table.selectRow(1)
    got = copied(qtbot, table)
    assert [r["Curve"] for r in got] == ["storm_slow_iostat-xt"]


def test_cap_verdict_copy_button_and_csv(qtbot, window, table, cli_ws, capsys, tmp_path, monkeypatch):
    ids = import_all(window, tmp_path)
    rid = ids["capped"]
    window.browser.select_runs([rid])
    settled(qtbot, window, table)
    assert "Cap verdict" not in heads_of(table.table)
    window.plot.cap.setValue(200)  # the Cap box of the overlay, as the user types it
    settled(qtbot, window, table)
    heads = heads_of(table.table)
    k = heads.index("Cap verdict")
    cli = cli_json(capsys, "analyze", "cap", "-w", str(cli_ws[0]), "--run", str(rid), "--iops-cap", "200",
                   "--json")["checks"][0]
    ww = cli["worst_window"]["average"]
    assert cli["verdict"] == "NOT held"
    assert table.table.item(0, k).text().startswith(f"NOT held: worst 10 s window {ww:,.1f} IOPS > 210.0")
    assert cli["explanation"] == table.table.item(0, k).toolTip()
    # the read share of a plain -d report is by kB, and says so
    assert table.table.item(0, heads.index("Read share (%)")).text().endswith("by kB")

    # zoom on the first 12 s: the cap held there
    vb = window.plot.plot.getPlotItem().vb
    vb.setXRange(0.0, 12.0, padding=0)
    settled(qtbot, window, table)
    lo, hi = vb.viewRange()[0]
    cli = cli_json(capsys, "analyze", "cap", "-w", str(cli_ws[0]), "--run", str(rid), "--iops-cap", "200",
                   "--from", repr(lo), "--to", repr(hi), "--json")["checks"][0]
    assert cli["verdict"] == "held"
    assert table.table.item(0, k).text() == (f"held: worst 10 s window {cli['worst_window']['average']:,.1f} IOPS "
                                             f"≤ {cli['limit']:,.1f}")

    # the Copy button copies the whole table
    QApplication.clipboard().clear()
    qtbot.mouseClick(table.copy_button, Qt.MouseButton.LeftButton)
    lines = QApplication.clipboard().text().splitlines()
    assert lines[0].startswith("Curve\tRun\t")
    assert "Cap verdict" in lines[0].split("\t")
    assert lines[1].split("\t")[0] == "capped_200iops_iostat-d"
    assert "held: worst 10 s window" in lines[1]

    # Export CSV… writes the same table
    out = tmp_path / "results.csv"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), "CSV (*.csv)"))
    qtbot.mouseClick(table.export_button, Qt.MouseButton.LeftButton)
    with open(out, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows == [ln.split("\t") for ln in lines]


def test_vscsistats_rows_per_vm_disk_with_collections(qtbot, window, table, tmp_path):
    ids = import_all(window, tmp_path)
    window.browser.select_runs([ids["vscsi"]])
    settled(qtbot, window, table)
    t = table.table
    heads = heads_of(t)
    assert "Within ≤ 50 ms (%)" in heads
    names = [t.item(i, 0).text() for i in range(t.rowCount())]
    # two curves: named A and B, as the B − A and B / A lines under them read
    assert names[:2] == [f"A: two_vms · {DEV_A}", f"B: two_vms · {DEV_B}"]
    # the latency threshold box: 20 ms lies in the (15, 30] ms bucket where VM disk B's slow I/Os are
    table.threshold.setValue(20.0)
    settled(qtbot, window, table)
    heads = heads_of(t)
    k = heads.index("Within ≤ 20 ms (%)")
    assert t.item(0, k).text() == f"{789 / 793 * 100:.1f} % (exact)"
    assert "estimate" in t.item(1, k).text()
    assert "60.0–120.0 s" in t.item(1, k).toolTip()  # per collection, in the tooltip: when it suffered
    # the Per collection box: a line per collection under each VM disk
    qtbot.mouseClick(table.per_collection, Qt.MouseButton.LeftButton)
    assert table.per_collection.isChecked()
    kinds = [ln.kind for ln in table.lines]
    assert kinds == ["curve", "collection", "collection", "collection"] * 2 + ["delta", "ratio"]
    slow = [ln for ln in table.lines if ln.kind == "collection" and ln.row.spec.device == DEV_B]
    assert [("estimate" in ln.display[k]) for ln in slow] == [False, True, False]


def test_render_table_and_grab(qtbot, window, table, tmp_path):
    ids = import_all(window, tmp_path)
    window.browser.select_runs([ids["storm_fast_iostat-xt"], ids["storm_slow_iostat-xt"]])
    settled(qtbot, window, table)
    img = QImage(1200, 200, QImage.Format.Format_ARGB32)
    img.fill(0xFFFFFFFF)
    p = QPainter(img)
    try:
        table.render_table(p, QRectF(0, 0, 1200, table.table_height(1200)))
    finally:
        p.end()
    colours = {img.pixel(x, y) for x in range(0, 1200, 7) for y in range(0, int(table.table_height(1200)), 3)}
    assert len(colours) > 5  # text, swatches and lines were drawn
    assert not table.grab().isNull()
    # the chart with the table beneath: PNG at twice the size, SVG with the table's text
    from app.ui.results_table import export_chart_with_table

    chart = window.plot.plot
    export_chart_with_table(chart, table, str(tmp_path / "c.png"))
    png = QImage(str(tmp_path / "c.png"))
    assert png.width() == 2 * chart.width()
    assert png.height() > 2 * chart.height()
    export_chart_with_table(chart, table, str(tmp_path / "c.svg"))
    svg = (tmp_path / "c.svg").read_text()
    assert "Plateau (IOPS)" in svg
    assert "storm_slow_iostat-xt" in svg


def test_aligned_curves_map_the_chart_range_to_run_time(qtbot, window, table, cli_ws, capsys, tmp_path):
    ids = import_all(window, tmp_path)
    fast, slow = ids["storm_fast_iostat-xt"], ids["storm_slow_iostat-xt"]
    window.browser.select_runs([fast, slow])
    settled(qtbot, window, table)
    window.plot.align.setCurrentIndex(1)  # Align: first activity, as the user picks it
    settled(qtbot, window, table)
    offsets = {c.run_id: c.align_offset_s for c in window.plot.curves}
    assert offsets[slow] != 0  # the slow storm starts later than its first report
    vb = window.plot.plot.getPlotItem().vb
    vb.setXRange(0.0, 20.0, padding=0)
    settled(qtbot, window, table)
    lo, hi = vb.viewRange()[0]
    got = copied(qtbot, table)
    for row, rid in zip(got, (fast, slow)):
        off = offsets[rid]
        check_storm(row, storm_cli(capsys, cli_ws, rid, (lo + off, hi + off)))
    # the peak is shown where the chart draws it (run time - alignment); its time of the run is in the tooltip
    line = table.lines[1]
    cell = table.table.item(1, 3)
    assert cell.text() == f"{line.row.storm.peak_t_end_s - offsets[slow]:,.1f}"
    assert f"it is {line.row.storm.peak_t_start_s:,.1f}–{line.row.storm.peak_t_end_s:,.1f} s of the run" in \
        cell.toolTip()


def test_storm_text_prints_the_plateau(cli_ws, capsys):
    path, ids = cli_ws
    capsys.readouterr()
    assert cli_main(["analyze", "storm", "-w", str(path), "--run", str(ids["storm_fast_iostat-xt"]),
                     "--phases", "none"]) == 0
    out = capsys.readouterr().out
    assert "plateau 1,200.0 IOPS (median of the intervals above 606.0 IOPS, half the peak)" in out


def test_words_for_customers(qtbot, window, table, tmp_path):
    """Every text the table shows (cells, headers, tooltips, labels, buttons) is free of flags, commands and code
    names -- with a run the table cannot compute (no timestamps, no interval) and vscsiStats rows."""
    import re

    from PySide6.QtWidgets import QAbstractButton, QLabel

    from tests.conftest import ROOT

    ids = import_all(window, tmp_path)
    r = import_file(window.ws, str(ROOT / "tests" / "fixtures" / "iostat" / "jc_centos-7.7_iostat-1.txt"),
                    ImportOptions())
    assert r.status == "imported", r.error
    window.browser.reload()
    window.browser.select_runs([ids["capped"], r.run_ids[0], ids["vscsi"]])
    window.plot.cap.setValue(200)
    settled(qtbot, window, table)
    qtbot.mouseClick(table.per_collection, Qt.MouseButton.LeftButton)
    t = table.table
    texts = [table.scope.text(), table.threshold_label.text(), table.threshold.toolTip(), table.scope.toolTip()]
    texts += [w.text() + " " + w.toolTip() for w in table.findChildren(QAbstractButton)]
    texts += [w.text() for w in table.findChildren(QLabel)]
    for j in range(t.columnCount()):
        texts += [t.horizontalHeaderItem(j).text(), t.horizontalHeaderItem(j).toolTip()]
        texts += [t.item(i, j).text() + " " + t.item(i, j).toolTip() for i in range(t.rowCount())]
    assert any("–" in x for x in texts)
    forbidden = {"flag": re.compile(r"(?<![\w-])--[a-z]"), "main.py": re.compile(r"main\.py"),
                 "seed": re.compile(r"\bseed \d", re.I), "file": re.compile(r"domain\.md|shared/"),
                 "identifier": re.compile(r"\b[a-z]+_[a-z_]+\b")}
    names = sorted((run.name for run in window.ws.runs()), key=len, reverse=True)
    for text in texts:
        for n in names:  # the user's file names are theirs
            text = text.replace(n, "")
        for what, rx in forbidden.items():
            assert not rx.search(text), (what, text)


def test_a_computation_the_closing_window_interrupted_is_not_raised_as_a_crash(qtbot, window):
    """Closing the window stops the figures' computation by interrupting its query (shutdown); the job then ends
    with DuckDB's InterruptException, delivered while the table still exists. It was raised as a crash (about one
    run in three of tests/ui/test_ui_overlay.py failed at teardown with 'Exceptions caught in Qt event loop:
    InterruptException', on the integrated code too). A result that arrives after shutdown is dropped; a failure
    of a computation still running is still raised."""
    import duckdb

    rt = window.results
    rt.shutdown()
    rt._done(duckdb.InterruptException("INTERRUPT Error: Interrupted!"), rt._generation, None)  # no exception
    fresh = ResultsTable(window)
    with pytest.raises(duckdb.InterruptException):
        fresh._done(duckdb.InterruptException("INTERRUPT Error: Interrupted!"), fresh._generation, None)
