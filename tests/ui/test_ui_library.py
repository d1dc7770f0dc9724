"""Report ▸ Add to library… driven as the user drives it: the menu item opens the dialog, Publish writes the
engagement to the library folder (off the GUI thread) and shows where the storm falls among comparable past
engagements, with a small distribution chart; Add comparison to report puts the question into the report's
questions. The past engagements are synthetic (the real run's figures at varied scales, tests/test_library.py)."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

pytest.importorskip("PySide6")

from PySide6.QtCore import QPoint, Qt  # noqa: E402

from app.analysis.library import run_figures  # noqa: E402
from app.analysis.questions import LibraryQuestion, SizingQuestion, add_question, list_questions  # noqa: E402
from app.store.library import read_library  # noqa: E402
from tests.conftest import SAMPLES  # noqa: E402
from tests.test_library import synthetic  # noqa: E402


@pytest.fixture(autouse=True)
def _library_cache(tmp_path, monkeypatch):
    """The reading cache of these tests in their own folder (never the user's)."""
    monkeypatch.setenv("STORMSCOPE_LIBRARY_CACHE", str(tmp_path / "library-cache"))


def _menu_action(w, menu: str, text: str):
    m = next(a.menu() for a in w.menuBar().actions() if a.text().replace("&", "") == menu)
    return next(a for a in m.actions() if a.text().replace("&", "") == text)


def test_add_to_library_publishes_and_shows_the_comparison(qtbot, window, tmp_path):
    from app.importer import import_file
    from parsers.base import ImportOptions

    w = window
    ids = [import_file(w.ws, str(SAMPLES / f), ImportOptions(first_report="interval")).run_ids[0]
           for f in ("storm_fast_iostat-xt.txt", "storm_slow_iostat-xt.txt")]
    add_question(w.ws, SizingQuestion(users=100, measured_run=ids[0], vms=20))
    w.browser.reload()
    lib = tmp_path / "lib"
    synthetic(lib, run_figures(w.ws, ids[0], 20), 12)
    _menu_action(w, "Report", "Add to library…").trigger()
    d = w.library_dialog
    qtbot.waitExposed(d)
    assert d.run.currentText() == "storm_fast_iostat-xt"
    d.location.setText(str(lib))
    d.workload.setCurrentIndex(d.workload.findData("boot_storm"))
    d.hypervisor.setText("vSphere")
    qtbot.mouseClick(d.publish_button, Qt.MouseButton.LeftButton, pos=QPoint(8, d.publish_button.height() // 2))
    qtbot.waitUntil(lambda: d.add_button.isEnabled() or d.status.text().startswith("Not done"), timeout=60000)
    assert d.status.text() == "This engagement is in the library (2 runs, 1 answer)."
    got = read_library(str(lib))
    assert len(got.manifests) == 13
    assert got.refused == []
    res = d.answer.evidence.results[0]
    assert d.answer_text.text().startswith(f"Compared with {res.comparable_engagements} comparable past engagements")
    assert d.chart.isVisible()
    assert len(d.chart.getPlotItem().listDataItems()) == 8
    qtbot.mouseClick(d.add_button, Qt.MouseButton.LeftButton, pos=QPoint(8, d.add_button.height() // 2))
    stored = [sq.question for sq in list_questions(w.ws)]
    assert stored[-1] == LibraryQuestion(ids[0], str(lib), None, "boot_storm", "vSphere")
    assert w.questions.table.rowCount() == 2
    # publishing again: the same engagement replaced (it has one more answer now), then unchanged
    for said in ("This engagement is in the library (2 runs, 2 answers).",
                 "This engagement is in the library (2 runs, 2 answers), unchanged: it was already there with the same "
                 "figures."):
        qtbot.mouseClick(d.publish_button, Qt.MouseButton.LeftButton, pos=QPoint(8, d.publish_button.height() // 2))
        qtbot.waitUntil(lambda: d.add_button.isEnabled(), timeout=60000)
        assert d.status.text() == said
        assert len(read_library(str(lib)).manifests) == 13
    d.close()
