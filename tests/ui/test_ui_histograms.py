"""The Histograms view (vscsiStats / fio json+), driven the way a user drives it: select runs in the run
list, click the Histograms tab, change the combo boxes and the collection slider.

The consultant's question: two VMs share one RAID set -- which VM suffered, when, and what share of its
I/O finished within the threshold?"""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from pathlib import Path  # noqa: E402

import pyqtgraph as pg  # noqa: E402
import pytest  # noqa: E402
from PySide6.QtCore import QPoint, QRect, Qt  # noqa: E402
from PySide6.QtGui import QColor  # noqa: E402

from app.ui.histo_view import MAX_SERIES  # noqa: E402
from parsers.base import ImportOptions  # noqa: E402
from tests.conftest import SAMPLES, click_tab  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
REAL_VSCSI = FIXTURES / "vscsistats" / "vscsiStats-helper_sample_vscsiStats.csv"  # see fixtures/PROVENANCE.md

LIMITS = [1, 10, 100, 500, 1000, 5000, 15000, 30000, 50000, 100000]  # vscsiStats latency buckets (µs)
MID = [1, 5, 55, 300, 750, 3000, 10000, 22500, 40000, 75000, 120000]  # a value inside each bucket (+ overflow)
VM_A = ("2099979", "8194 (scsi0:0)")
VM_B = ("2100345", "8200 (scsi0:1)")
# reads / writes per latency bucket (the last entry: above 100 ms) in six collections of two minutes
A_READ = [[0, 0, 300, 200, 50, 5, 0, 0, 0, 0, 0], [0, 0, 280, 210, 40, 6, 1, 0, 0, 0, 0],
          [0, 0, 900, 700, 200, 40, 5, 0, 0, 0, 0], [0, 0, 950, 650, 210, 50, 6, 1, 0, 0, 0],
          [0, 0, 310, 190, 45, 4, 0, 0, 0, 0, 0], [0, 0, 290, 220, 55, 3, 0, 0, 0, 0, 0]]
B_READ = [[0, 0, 100, 150, 80, 10, 0, 0, 0, 0, 0], [0, 0, 110, 140, 70, 12, 1, 0, 0, 0, 0],
          [0, 0, 10, 20, 30, 40, 60, 90, 80, 60, 10], [0, 0, 15, 25, 25, 45, 55, 85, 90, 50, 10],
          [0, 0, 95, 150, 85, 9, 1, 0, 0, 0, 0], [0, 0, 105, 145, 75, 11, 0, 0, 0, 0, 0]]


def _half(counts):
    return [c // 3 for c in counts]  # writes: a third of the reads, bucket by bucket


def _block(title: str, vm: tuple[str, str], counts: list[int]) -> str:
    n = sum(counts)
    used = [i for i, c in enumerate(counts) if c]
    lo = 0 if not used else ([0, *LIMITS][used[0]] + 1)
    hi = 0 if not used else (LIMITS[used[-1]] if used[-1] < len(LIMITS) else 150000)
    mean = round(sum(c * m for c, m in zip(counts, MID)) / n) if n else 0
    mean = min(max(mean, lo), hi)
    rows = [f"{c},{lim}" for c, lim in zip(counts, [*LIMITS, LIMITS[-1]])]
    return "\n".join([f"Histogram: {title},virtual machine worldGroupID,{vm[0]},virtual disk handleID,{vm[1]}",
                      f"min,{lo}", f"max,{hi}", f"mean,{mean}", f"count,{n}", "Frequency,Histogram Bucket Limit",
                      *rows, ""])


def two_vm_file(path: Path, stamps: bool = True, minutes: tuple[int, ...] = (0, 2, 4, 6, 8, 10)) -> Path:
    """Six collections two minutes apart (``date`` lines between them) of two VM disks on one RAID set:
    VM B's latency climbs while VM A's I/O triples in collections 3 and 4."""
    out = []
    for k in range(6):
        if stamps:
            out.append(f"Mon Nov 23 12:{minutes[k]:02d}:00 UTC 2026")
        for vm, reads in ((VM_A, A_READ[k]), (VM_B, B_READ[k])):
            writes = _half(reads)
            both = [r + w for r, w in zip(reads, writes)]
            out.append(_block("latency of IOs in Microseconds (us)", vm, both))
            out.append(_block("latency of Read IOs in Microseconds (us)", vm, reads))
            out.append(_block("latency of Write IOs in Microseconds (us)", vm, writes))
    path.write_text("\n".join(out) + "\n")
    return path


def many_vm_file(path: Path, n: int) -> Path:
    out = []
    for v in range(n):
        vm = (str(3000000 + v), f"{8000 + v} (scsi0:{v})")
        for title, f in (("latency of IOs in Microseconds (us)", 1), ("latency of Read IOs in Microseconds (us)", 1),
                         ("latency of Write IOs in Microseconds (us)", 0)):
            out.append(_block(title, vm, [c * f for c in A_READ[0]]))
    path.write_text("\n".join(out) + "\n")
    return path


def share(rows: list[list[int]], upto: int) -> tuple[int, int]:
    """(I/Os in buckets up to index ``upto``, all I/Os) over collections, reads + writes."""
    both = [[r + w for r, w in zip(c, _half(c))] for c in rows]
    return sum(sum(c[: upto + 1]) for c in both), sum(sum(c) for c in both)


def imported(window, path: Path, **opts) -> list[int]:
    from app.importer import import_file

    r = import_file(window.ws, str(path), ImportOptions(**opts))
    assert r.status == "imported", r.error
    window.browser.reload()
    return r.run_ids


def open_histograms(qtbot, window, run_ids):
    """Select the runs in the run list and click the Histograms tab."""
    window.browser.select_runs(run_ids)
    assert click_tab(qtbot, window, "Histograms") is window.histos
    return window.histos


def visible_rect(h, plot) -> QRect:
    """Where a heatmap's image area lies, in the coordinates of the view's visible scroll viewport."""
    vb = plot.getViewBox()
    r = vb.mapRectToScene(vb.boundingRect())
    top_left = h.heat.mapFromScene(r.topLeft())
    bottom_right = h.heat.mapFromScene(r.bottomRight())
    vp = h.heat_area.viewport()
    a = h.heat.viewport().mapTo(vp, top_left)
    b = h.heat.viewport().mapTo(vp, bottom_right)
    return QRect(a, b)


def test_two_vm_disks_stack_with_colour_bars_minutes_and_a_legend(qtbot, window, tmp_path):
    rid = imported(window, two_vm_file(tmp_path / "raid_set.csv"))[0]
    h = open_histograms(qtbot, window, [rid])
    assert h.metric_box.currentText() == "Latency (ms)"  # in ms, as the report gives them
    assert "2 VM disks · 6 collections" in h.message.text()
    # every VM disk has its heatmap, fully inside what the view shows at 1366 x 768 (no scrolling needed)
    assert [p.titleLabel.text for p in h.heat_plots] == ["VM disk 2099979:8194 (scsi0:0)",
                                                         "VM disk 2100345:8200 (scsi0:1)"]
    viewport = h.heat_area.viewport().rect()
    assert viewport.height() > 250, viewport
    for p in h.heat_plots:
        r = visible_rect(h, p)
        assert viewport.contains(r), (r, viewport)
        assert r.height() >= 60, (r, viewport)
        assert r.width() >= 200, (r, viewport)
        assert h.heat_area.viewport().mapTo(window, r.bottomRight()).y() < window.height()
        assert "minutes" in p.getAxis("bottom").labelText
        # 6 collections of 2 minutes: the image spans 0-12 min
        img = next(i for i in p.items if isinstance(i, pg.ImageItem))
        assert img.mapRectToView(img.boundingRect()).left() == pytest.approx(0.0)
        assert img.mapRectToView(img.boundingRect()).right() == pytest.approx(12.0)
        x0, x1 = p.getViewBox().viewRange()[0]
        # the whole run is in view
        assert -0.5 < x0 <= 0.0
        assert 12.0 <= x1 < 12.5
    # one colour bar per heatmap, saying what the colour counts
    assert len(h.colour_bars) == 2
    assert all(b.axis.labelText == "I/Os per collection (log scale)" for b in h.colour_bars)
    assert h.colour_bars[1].top_count == max(r + w for c in B_READ for r, w in zip(c, _half(c)))
    # the bars' legend names both VM disks
    names = [label.text for _sample, label in h.legend.items]
    assert names == ["VM disk 2099979:8194 (scsi0:0)", "VM disk 2100345:8200 (scsi0:1)"]
    assert h.sample_label.text() == "collection 1 of 6 · 12:00–12:02 / 0.0–2.0 min"


def test_which_vm_suffered_and_when_exact_share_per_vm_disk(qtbot, window, tmp_path):
    rid = imported(window, two_vm_file(tmp_path / "raid_set.csv"))[0]
    h = open_histograms(qtbot, window, [rid])
    lines = h.share.text().splitlines()
    ua, na = share(A_READ, 8)  # buckets up to 50 ms (index 8: (30 000, 50 000] µs)
    ub, nb = share(B_READ, 8)
    assert lines[0] == f"raid_set: {(ua + ub) / (na + nb):.1%} of {na + nb:,} I/Os within 50 ms (exact)"
    assert lines[1].strip().startswith(f"VM disk 2099979:8194 (scsi0:0): {ua / na:.1%} of {na:,} I/Os within "
                                       "50 ms (exact)")
    assert lines[2].strip().startswith(f"VM disk 2100345:8200 (scsi0:1): {ub / nb:.1%} of {nb:,} I/Os within "
                                       "50 ms (exact)")
    # VM B suffered in collection 3 (12:04-12:06): the lowest share of its I/O within 50 ms
    u3, n3 = share([B_READ[2]], 8)
    assert lines[2].endswith(f" · worst: collection 3 of 6 (12:04–12:06 / 4.0–6.0 min) with {u3 / n3:.1%} of "
                             f"{n3:,} I/Os within 50 ms (exact)")
    assert " · worst" not in lines[1]  # every collection of VM A finished within 50 ms
    # a threshold inside a bucket: bounds, never a made-up exact figure
    h.threshold.setCurrentIndex(h.threshold.findData(20.0))
    lines = h.share.text().splitlines()
    assert "between" in lines[2]
    assert "(bounds" in lines[2]
    assert "(exact)" not in lines[2].split(" · ")[0]


def test_the_collection_slider_shows_the_collection_time(qtbot, window, tmp_path):
    rid = imported(window, two_vm_file(tmp_path / "raid_set.csv"))[0]
    h = open_histograms(qtbot, window, [rid])
    h.sample.setFocus()
    qtbot.keyClick(h.sample, Qt.Key.Key_Right)
    qtbot.keyClick(h.sample, Qt.Key.Key_Right)
    assert h.sample_label.text() == "collection 3 of 6 · 12:04–12:06 / 4.0–6.0 min"
    bars = [i for i in h.bars.getPlotItem().items if isinstance(i, pg.BarGraphItem)]
    assert len(bars) == 2
    both = [r + w for r, w in zip(B_READ[2], _half(B_READ[2]))]
    assert list(bars[1].opts["width"]) == both  # VM B's own I/Os of collection 3, bucket by bucket


def test_without_time_the_axis_counts_collections_and_says_how_to_set_the_interval(qtbot, window, tmp_path):
    rid = imported(window, two_vm_file(tmp_path / "no_stamps.csv", stamps=False))[0]
    h = open_histograms(qtbot, window, [rid])
    bottom = h.heat_plots[0].getAxis("bottom").labelText
    assert bottom.startswith("collection")
    assert "right-click the run ▸ Set interval…" in bottom
    assert "right-click the run ▸ Set interval…" in h.message.text()
    assert h.sample_label.text() == "collection 1 of 6 · no time: right-click the run ▸ Set interval…"
    for word in ("--interval", "main.py", "run_id", "interval_s"):
        assert word not in h.message.text() + h.share.text() + bottom
    window.browser.set_interval([rid], 120.0)  # what right-click ▸ Set interval… does with 120 s
    qtbot.waitUntil(lambda: bool(h.heat_plots) and "minutes" in h.heat_plots[0].getAxis("bottom").labelText,
                    timeout=5000)
    assert h.sample_label.text() == "collection 1 of 6 · 0.0–2.0 min"


def test_real_vscsistats_file_one_vm_disk(qtbot, window):
    rid = imported(window, REAL_VSCSI, interval_s=60)[0]
    h = open_histograms(qtbot, window, [rid])
    assert "1 VM disk · 1 collection" in h.message.text()
    assert [p.titleLabel.text for p in h.heat_plots] == ["VM disk 2099979:8194 (scsi0:0)"]
    assert "seconds" in h.heat_plots[0].getAxis("bottom").labelText  # one 60 s collection: under two minutes
    assert "vscsiStats-helper_sample_vscsiStats: 99.9% of 793 I/Os within 50 ms (exact)" in h.share.text()
    h.threshold.setCurrentIndex(h.threshold.findData(20.0))  # inside the empty 15-30 ms bucket: still exact
    assert "99.5% of 793 I/Os within 20 ms (exact)" in h.share.text()
    # change the histogram the user sees: IO length has its own buckets
    h.metric_box.setCurrentIndex(h.metric_box.findData("io_length_bytes"))
    assert h.heat_plots[0].getAxis("left").labelText == "IO length (bytes)"
    assert h.colour_bars[0].top_count == 608  # the 4 KiB bucket of the file


def test_fio_jobs_get_a_legend_and_no_empty_heatmap(qtbot, window):
    rid = imported(window, SAMPLES / "fio_randrw_jsonplus.json")[0]
    h = open_histograms(qtbot, window, [rid])
    assert h.op.currentText() == "read"  # fio keeps no all-I/O histogram
    assert h.message.text().startswith("2 fio jobs · 1 collection")
    assert h.bars.getPlotItem().getAxis("bottom").labelText == "I/Os in the job"
    assert [label.text for _s, label in h.legend.items] == ["fio job randrw #0", "fio job randrw #1"]
    assert "one histogram per job" in h.message.text()
    assert not h.heat_area.isVisible()
    assert h.sample_label.text() == "the whole job (fio prints one histogram per job)"
    assert h.bars.isVisible()
    assert h.bars.width() > 400
    h.op.setCurrentIndex(h.op.findText("write"))
    assert [label.text for _s, label in h.legend.items] == ["fio job randrw #0", "fio job randrw #1"]
    # fio lists only the bins it filled, a different set per job: the bars share one axis of every bin listed
    rows = window.ws.con.execute("SELECT device, bucket_lo, bucket_hi, count FROM histograms WHERE run_id = ? AND "
                                 "metric = 'latency_us' AND op = 'write'", [rid]).fetchall()
    grid = sorted({(lo, hi) for _d, lo, hi, _n in rows}, key=lambda b: b[1])
    bars = [i for i in h.bars.getPlotItem().items if isinstance(i, pg.BarGraphItem)]
    assert len(bars) == 2  # one bar series per job
    for item, job in zip(bars, ("randrw #0", "randrw #1"), strict=True):
        by = {(lo, hi): n for d, lo, hi, n in rows if d == job}
        assert list(item.opts["width"]) == [by.get(b, 0) for b in grid]
    lines = h.share.text().splitlines()
    assert lines[0].startswith("fio_randrw_jsonplus: ")
    assert len(lines) == 3
    assert lines[1].strip().startswith("fio job randrw #0: ")


def test_more_series_than_drawn_are_counted_and_scroll(qtbot, window, tmp_path):
    rid = imported(window, many_vm_file(tmp_path / "ten.csv", MAX_SERIES + 2), interval_s=60)[0]
    h = open_histograms(qtbot, window, [rid])
    assert h.message.text().startswith(f"{MAX_SERIES + 2} VM disks, the first {MAX_SERIES} drawn (type in the "
                                       "filter box to pick others)")
    assert len(h.heat_plots) == MAX_SERIES
    assert len(h.legend.items) == MAX_SERIES
    # they do not fit: the heatmaps scroll, each keeping its height
    assert h.heat_area.verticalScrollBar().maximum() > 0
    assert all(visible_rect(h, p).height() >= 60 for p in h.heat_plots)
    # ten share lines scroll too, instead of pushing the charts off the window
    assert len(h.share.text().splitlines()) == 1 + MAX_SERIES + 2
    assert h.share_area.height() <= h.fontMetrics().lineSpacing() * 5 + 6
    # the two left out are reached by typing in the filter box
    qtbot.keyClicks(h.filter, "scsi0:9")
    assert h.message.text().startswith(f"1 of {MAX_SERIES + 2} VM disks match 'scsi0:9'")
    assert [p.titleLabel.text for p in h.heat_plots] == ["VM disk 3000009:8009 (scsi0:9)"]
    assert [label.text for _s, label in h.legend.items] == ["VM disk 3000009:8009 (scsi0:9)"]
    assert len(h.share.text().splitlines()) == 2
    h.filter.clear()
    assert len(h.heat_plots) == MAX_SERIES


def _theme_action(window, name: str):
    """The View menu's theme item (a submenu item or a plain one, whatever the menu has)."""
    stack = list(window.menuBar().actions())
    while stack:
        a = stack.pop()
        if a.menu():
            stack.extend(a.menu().actions())
        elif a.text().replace("&", "").lower() in (name, f"{name} theme"):
            return a
    raise AssertionError(f"no {name} theme in the View menu")


def test_dark_theme_text_follows_the_foreground(qtbot, window, tmp_path):
    rid = imported(window, two_vm_file(tmp_path / "raid_set.csv"))[0]
    h = open_histograms(qtbot, window, [rid])
    try:
        _theme_action(window, "dark").trigger()
        fg = QColor(pg.getConfigOption("foreground"))
        assert fg.lightness() > 200
        qtbot.waitUntil(lambda: all(QColor(p.getAxis("left").textPen().color()) == fg for p in h.heat_plots),
                        timeout=3000)
        assert QColor(h.colour_bars[0].axis.textPen().color()) == fg
        assert QColor(h.bars.getPlotItem().getAxis("bottom").textPen().color()) == fg
        assert all(QColor(label.opts["color"]) == fg for _s, label in h.legend.items)
    finally:
        _theme_action(window, "light").trigger()
    qtbot.waitUntil(lambda: QColor(h.heat_plots[0].getAxis("left").textPen().color()).lightness() < 100,
                    timeout=3000)


def test_heatmap_rows_are_inside_the_window_at_1366x768(qtbot, window, tmp_path):
    """The whole view, not only the scroll area, fits the window: nothing is clipped off its right edge."""
    rid = imported(window, two_vm_file(tmp_path / "raid_set.csv"))[0]
    h = open_histograms(qtbot, window, [rid])
    right = h.mapTo(window, QPoint(h.width(), h.height()))
    assert right.x() <= window.width()
    assert right.y() <= window.height()
    assert len(h.colour_bars) == len(h.heat_plots) == 2  # one colour scale beside each VM disk's heatmap
    for bar in h.colour_bars:
        r = bar.mapRectToScene(bar.boundingRect())
        assert h.heat.mapFromScene(r.topRight()).x() <= h.heat_area.viewport().width()
    # the bars' plot and its legend (under the axis) fit the bars' widget: no clipped axis or names
    plot = h.bars.getPlotItem()
    assert plot.geometry().width() <= h.bars.width()
    legend = h.legend.mapRectToScene(h.legend.boundingRect())
    assert legend.right() <= h.bars.width()
    assert legend.bottom() <= h.bars.height()


def test_vscsistats_and_fio_together_read_plus_write_for_fio(qtbot, window, tmp_path):
    """With 'all', a fio job shows its reads and writes added up bucket by bucket, and says so."""
    vm = imported(window, two_vm_file(tmp_path / "raid_set.csv"))[0]
    fio = imported(window, SAMPLES / "fio_randrw_jsonplus.json")[0]
    h = open_histograms(qtbot, window, [vm, fio])
    assert h.op.currentText() == "all"
    assert "fio_randrw_jsonplus: reads and writes added up (fio keeps them apart)" in h.message.text()
    assert list(h.data) == ["raid_set · VM disk 2099979:8194 (scsi0:0)", "raid_set · VM disk 2100345:8200 (scsi0:1)",
                            "fio_randrw_jsonplus · fio job randrw #0", "fio_randrw_jsonplus · fio job randrw #1"]
    job = h.data["fio_randrw_jsonplus · fio job randrw #0"]
    total = sum(c for _lo, _hi, c in job[0])
    rw = window.ws.con.execute("SELECT sum(count) FROM histograms WHERE run_id = ? AND metric = 'latency_us' "
                               "AND device = 'randrw #0'", [fio]).fetchall()[0][0]
    assert total == rw
    lines = h.share.text().splitlines()
    assert any(x.startswith(f"fio_randrw_jsonplus: 100.0% of {1_707_113:,} I/Os within 50 ms (exact)") for x in lines)
    # every series is on screen: the VM disks as heatmaps (over time), the fio jobs as bars (one histogram each);
    # one bucket axis never mixes vscsiStats buckets with fio bins
    assert [p.titleLabel.text for p in h.heat_plots] == ["raid_set · VM disk 2099979:8194 (scsi0:0)",
                                                         "raid_set · VM disk 2100345:8200 (scsi0:1)"]
    assert [label.text for _s, label in h.legend.items] == ["fio_randrw_jsonplus · fio job randrw #0",
                                                            "fio_randrw_jsonplus · fio job randrw #1"]
    assert h.bars.getPlotItem().titleLabel.text == "I/Os per bucket · fio jobs only"
    assert "fio jobs are in the bars (one histogram per job: no heatmap)" in h.message.text()


def test_collections_with_a_gap_are_drawn_at_their_own_times(qtbot, window, tmp_path):
    """Time stamps 0, 2, 4, 7, 9, 11 min (one loop late): each collection's column starts at its own time,
    with a gap, instead of being spread evenly."""
    rid = imported(window, two_vm_file(tmp_path / "late.csv", minutes=(0, 2, 4, 7, 9, 11)))[0]
    h = open_histograms(qtbot, window, [rid])
    p = h.heat_plots[1]
    mesh = next(i for i in p.items if isinstance(i, pg.PColorMeshItem))
    r = mesh.mapRectToView(mesh.boundingRect())
    # last start 11 + interval 2
    assert r.left() == pytest.approx(0.0)
    assert r.right() == pytest.approx(13.0)
    assert h.colour_bars[1].top_count == max(r + w for c in B_READ for r, w in zip(c, _half(c)))
    for _ in range(3):
        qtbot.keyClick(h.sample, Qt.Key.Key_Right)
    assert h.sample_label.text() == "collection 4 of 6 · 12:07–12:09 / 7.0–9.0 min"
    assert h.markers[1][1].getRegion() == pytest.approx((7.0, 9.0))


# moved from tests/test_ui.py (the real corpus file is now a fixture: these never skip)
def test_histogram_view_shows_exact_and_bounded_shares(qtbot, window):
    rid = imported(window, REAL_VSCSI, interval_s=60)[0]
    h = open_histograms(qtbot, window, [rid])
    assert h.metric_box.currentData() == "latency_us"
    assert "(exact)" in h.share.text()
    assert "within 50 ms" in h.share.text()
    # 20 ms lies inside the 15-30 ms bucket, which is empty in this file: still exact
    h.threshold.setCurrentIndex(h.threshold.findData(20.0))
    assert "99.5% of 793 I/Os within 20 ms (exact)" in h.share.text()
    assert len(h.data) == 1


def test_histogram_view_switches_to_the_ops_fio_has(qtbot, window):
    rid = imported(window, SAMPLES / "fio_randrw_jsonplus.json")[0]
    h = open_histograms(qtbot, window, [rid])
    assert h.op.currentText() in ("read", "write")
    assert len(h.data) == 2
    assert h.op.currentText() == "read"
    assert "fio_randrw_jsonplus: 100.0% of 1,193,647 I/Os within 50 ms (exact)" in h.share.text()


def test_hovering_a_heatmap_cell_reads_its_exact_count_and_a_click_picks_the_collection(qtbot, window, tmp_path):
    from PySide6.QtCore import QPointF

    rid = imported(window, two_vm_file(tmp_path / "raid_set.csv"))[0]
    h = open_histograms(qtbot, window, [rid])
    vb = h.heat_plots[1].getViewBox()
    # VM B, 5 minutes in (collection 3), the (30 000, 50 000] µs bucket (index 8)
    at = h.heat.mapFromScene(vb.mapViewToScene(QPointF(5.0, 8.5)))
    qtbot.mouseMove(h.heat.viewport(), at)
    qtbot.waitUntil(lambda: bool(h.hover_text), timeout=3000)
    n = B_READ[2][8] + _half(B_READ[2])[8]
    assert h.hover_text == ("VM disk 2100345:8200 (scsi0:1) · collection 3 of 6 (12:04–12:06 / 4.0–6.0 min) · "
                            f"Latency (ms) above 30 up to 50: {n:,} I/Os · click to show this collection "
                            "in the bars")
    qtbot.mouseClick(h.heat.viewport(), Qt.MouseButton.LeftButton, pos=at)
    assert h.sample.value() == 2
    assert h.sample_label.text() == "collection 3 of 6 · 12:04–12:06 / 4.0–6.0 min"
