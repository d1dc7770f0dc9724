"""perfmon and esxtop files dropped on the window: imported, listed under their kinds, drawn on the overlay (the
physical disks), and a binary perfmon log refused in the import panel with the command that converts it."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.conftest import CORPUS, CUSTOMER_FORBIDDEN, ROOT, drop_paths  # noqa: E402

TYPEPERF = CORPUS / "perfmon" / "snippet_typeperf-si10_PhysicalDisk-star_GORANS2.csv"
ESXTOP = ROOT / "tests" / "fixtures" / "esxtop" / "esxtop_gen_3vms.csv"


def test_drop_perfmon_esxtop_and_a_blg(qtbot, window, tmp_path):
    blg = tmp_path / "DataCollector01.blg"
    blg.write_bytes(b'"(PDH-BIN 4.0)"\n' + bytes([0x42, 0x4C, 0x01, 0x00]) + b"\x00" * 64)
    drop_paths(window, [TYPEPERF, ESXTOP, blg])
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=60000)
    runs = {r.name: r for r in window.ws.runs()}
    assert {r.kind for r in runs.values()} == {"perfmon", "esxtop"}
    items = [window.import_panel.list.item(i).text() for i in range(window.import_panel.list.count())]
    refused = [t for t in items if "DataCollector01.blg" in t]
    assert len(refused) == 1
    assert "convert it with: relog file.blg -f csv -o file.csv" in refused[0]
    words = refused[0].replace(str(blg), "")  # the file's own path is the user's (a temporary folder may hold a_b)
    for word, pattern in CUSTOMER_FORBIDDEN.items():
        assert not pattern.search(words), word
    # the new runs are selected: one curve each, over their physical disks
    qtbot.waitUntil(lambda: not window.plot.loading and len(window.plot.curves) == 2, timeout=30000)
