"""fio logs through the window (issue 15): dropped like any trace (a submission-latency log refused in the import
panel with what to import instead), a histogram log's latency share per collection in the Histograms tab as the
threshold and op boxes change, a per-I/O latency log drawn in the Overlay with fio's own I/O count."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.conftest import CORPUS, click_tab, drop_paths  # noqa: E402

FIO = CORPUS / "fio"
HIST = FIO / "vm_fio-3.33_randrw-avg500_clat_hist.1.log"
PER_IO = FIO / "vm_fio-3.33_randread-per-io_lat.1.log"
SLAT = FIO / "vm_fio-3.33_randrw-avg500_slat.1.log"


def _fio_bin_lower(i: int) -> int:
    """The smallest latency (ns) fio's bin ``i`` counts (fio stat.h: exact below 128, then 64 bins per power of
    two)."""
    if i < 128:
        return i
    error_bits = (i >> 6) - 1
    return (1 << (error_bits + 6)) + (i % 64) * (1 << error_bits)


def _within(row: list[int], ns: int) -> tuple[int, int]:
    """(I/Os of a histogram log row certainly within ``ns``, all its I/Os): bins whose every latency is <= ns."""
    bins = row[3:]
    under = sum(c for i, c in enumerate(bins) if i + 1 < len(bins) and _fio_bin_lower(i + 1) - 1 <= ns)
    return under, sum(bins)


def test_fio_logs_dropped_on_the_window_give_the_latency_share_per_collection(qtbot, window):
    drop_paths(window, [HIST, PER_IO, SLAT])
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=60000)
    assert "2 imported, 0 duplicate, 1 failed" in window.import_panel.message.text()
    items = [window.import_panel.list.item(i).text() for i in range(window.import_panel.list.count())]
    assert any(f"{SLAT}: a submission-latency log (_slat)" in t and "_lat or _clat log" in t for t in items), items
    runs = {r.name: r for r in window.ws.runs()}
    rid = runs["vm_fio-3.33_randrw-avg500_clat_hist.1"].run_id

    window.browser.select_runs([rid])
    h = click_tab(qtbot, window, "Histograms")
    assert h is window.histos
    assert h.op.currentText() == "read"  # fio keeps reads and writes apart
    assert h.message.text().startswith("1 fio job · 5 collections · heatmap colour = I/Os per collection")
    assert [p.titleLabel.text for p in h.heat_plots] == ["vm_fio-3.33_randrw-avg500"]
    assert h.heat_plots[0].getAxis("bottom").labelText == "seconds since the run's start"  # a 2.5 s job

    rows = [[int(f) for f in ln.split(",")] for ln in HIST.read_text().splitlines()]
    reads = [r for r in rows if r[1] == 0]  # one row per collection and direction
    writes = [r for r in rows if r[1] == 1]
    # within 50 ms: every read (fio's bins end below 50 ms for all of them)
    n_read = sum(sum(r[3:]) for r in reads)
    assert h.share.text() == f"vm_fio-3.33_randrw-avg500_clat_hist.1: 100.0% of {n_read:,} I/Os within 50 ms (exact)"

    # the user picks 1 ms: the share over the run and the collection where it was lowest, counted from the file
    h.threshold.setCurrentIndex(h.threshold.findData(1.0))
    per = [_within(r, 1_000_000) for r in reads]
    under = sum(u for u, _n in per)
    k = min(range(len(per)), key=lambda i: per[i][0] / per[i][1])
    text = h.share.text()
    assert text.startswith(f"vm_fio-3.33_randrw-avg500_clat_hist.1: {under / n_read:.1%} of {n_read:,} I/Os within "
                           "1 ms (exact) · worst: collection ")
    assert f"collection {k + 1} of 5" in text
    assert text.endswith(f"with {per[k][0] / per[k][1]:.1%} of {per[k][1]:,} I/Os within 1 ms (exact)")

    # and the writes
    h.op.setCurrentIndex(h.op.findText("write"))
    per = [_within(r, 1_000_000) for r in writes]
    n_write = sum(n for _u, n in per)
    assert h.share.text().startswith(f"vm_fio-3.33_randrw-avg500_clat_hist.1: "
                                     f"{sum(u for u, _n in per) / n_write:.1%} of {n_write:,} I/Os within 1 ms (exact)")

    # the per-I/O latency log in the Overlay: 200 reads a second, 600 in all as fio's JSON report of the job says
    window.browser.select_runs([runs["vm_fio-3.33_randread-per-io_lat.1"].run_id])
    click_tab(qtbot, window, "Overlay")
    plot = window.plot
    qtbot.waitUntil(lambda: not plot.loading and len(plot.curves) == 1, timeout=30000)
    assert round(float(plot.curves[0].y.max()), 1) == 200.0
    # busy: a computation pending (the debounce after the new curves) or running; the rows of the run shown before
    # stay until it is done
    qtbot.waitUntil(lambda: len(window.results.rows) >= 1 and not window.results.busy, timeout=30000)
    assert window.results.rows[0].label == "vm_fio-3.33_randread-per-io_lat.1"
