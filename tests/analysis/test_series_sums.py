"""The per-report sums stored at import (app/series_sums.py, issue 18): the series made from them is the series the
rows give, to the bit, for every iostat-like run of the corpus and the sample traces -- after import, after the
interval or the first-report answer is given (through the command line and the window's run menu), and after a
migration; sums made by other rules (another version, another device list) are not used."""

from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from app import series_sums  # noqa: E402
from app.analysis import series  # noqa: E402
from app.analysis.histograms import AnalysisError  # noqa: E402
from app.importer import import_paths  # noqa: E402
from app.workspace import Workspace  # noqa: E402
from parsers.base import ImportOptions  # noqa: E402
from parsers.kinds import DEVICE_RATES, has  # noqa: E402
from tests.conftest import CORPUS, SAMPLES, run_menu  # noqa: E402

FIXTURES = Path(__file__).parents[1] / "fixtures"
FIGURE_SETS = (None, {"iops"}, {"iops", "await"}, {"read_write", "throughput"})


def _outcome(ws: Workspace, rid: int, figures: set[str] | None, stored: bool, device: str | None = None):
    """The series (as everything a caller reads of it) or the error, through the stored sums or the rows."""
    with pytest.MonkeyPatch.context() as m:
        if not stored:
            m.setattr(series, "_stored_sums", lambda *a: None)
        try:
            s = series.load_series(ws, rid, device, figures=figures)
        except AnalysisError as e:
            return ("error", str(e))
    return (s.frame, s.frame.schema, s.as_dict(points=False), s.clock0_utc, s.zone_known, s.since_boot_excluded,
            s.interval_s, s.figures)


def _same(a, b) -> bool:
    if isinstance(a[0], str) or isinstance(b[0], str):  # an error
        return a == b
    return a[0].equals(b[0]) and a[1:] == b[1:]


def _device_runs(ws: Workspace) -> list[int]:
    return [r.run_id for r in ws.runs() if has(r.kind, DEVICE_RATES)]


def assert_stored_equals_live(ws: Workspace, rids: list[int] | None = None,
                              figure_sets: tuple[set[str] | None, ...] = FIGURE_SETS) -> int:
    """Every figure set (of ``figure_sets``) of every run: the stored path is taken, and gives what the rows give.
    The runs checked."""
    rids = _device_runs(ws) if rids is None else rids
    checked = 0
    for rid in rids:
        if not ws.con.execute("SELECT count(*) FROM iostat_samples WHERE run_id = ?", [rid]).fetchall()[0][0]:
            assert series_sums.stored_devices(ws.con, rid) is None  # a CPU-only log: nothing to sum, the same error
            assert _same(_outcome(ws, rid, None, True), _outcome(ws, rid, None, False)), rid
            continue
        checked += 1
        assert series_sums.current(ws.con, rid), rid  # the sums exist, of this version
        used = series._stored_sums(ws, rid, None, series_sums.DEFAULT_OPS, series.ALL_FIGURES)
        live = series._live_sums(ws, rid, None, series_sums.DEFAULT_OPS, series.ALL_FIGURES)
        assert used is not None, rid  # the stored path is what load_series takes
        assert used.g.schema == live.g.schema, rid
        assert used.g.equals(live.g), rid  # the per-report sums themselves, every column, to the bit
        assert used.boot == live.boot, rid
        assert used.choice.as_dict() == live.choice.as_dict(), rid
        for figures in figure_sets:
            assert _same(_outcome(ws, rid, figures, True), _outcome(ws, rid, figures, False)), (rid, figures)
    return checked


@pytest.fixture(scope="module")
def corpus_ws(tmp_path_factory) -> Workspace:
    """Every file of the corpus and the sample traces, each imported with the defaults."""
    ws = Workspace(tmp_path_factory.mktemp("sums") / "ws.duckdb")
    folders = [SAMPLES, *sorted(p for p in CORPUS.iterdir() if p.is_dir()), FIXTURES / "esxtop", FIXTURES / "iostat"]
    import_paths(ws, folders, ImportOptions())
    yield ws
    ws.close()


def test_the_stored_sums_give_the_series_the_rows_give_for_every_corpus_run(corpus_ws):
    kinds = {r.kind for r in corpus_ws.runs() if has(r.kind, DEVICE_RATES)}
    assert {"iostat", "sar", "nmon", "esxtop", "perfmon"} <= kinds, kinds
    assert assert_stored_equals_live(corpus_ws) >= 60
    # a device choice other than the default, or other ops, is summed from the rows as before
    rid = next(r.run_id for r in corpus_ws.runs() if r.name == "storm_fast_iostat-xt")
    assert series._stored_sums(corpus_ws, rid, None, ("r", "w"), series.ALL_FIGURES) is None
    one = series.list_devices(corpus_ws, rid).used[0]
    assert series._stored_sums(corpus_ws, rid, one, series_sums.DEFAULT_OPS, series.ALL_FIGURES) is None \
        or series.list_devices(corpus_ws, rid).used == [one]


def test_answers_given_after_import_recompute_the_sums(corpus_ws):
    """A run without time stamps gets an interval, an iostat run the other first-report answer: the sums follow,
    and still equal the rows'. Two runs of each kind, interval source and first-report answer (the corpus has 124
    such runs; the answers take the same path for each of a group, and checking all took 40 s)."""
    picked: dict[tuple, list[int]] = {}
    for r in corpus_ws.runs():
        if has(r.kind, DEVICE_RATES):
            first = corpus_ws.con.execute("SELECT bool_or(since_boot) FROM iostat_samples WHERE run_id = ? AND "
                                          "sample_idx = 0", [r.run_id]).fetchall()[0][0]
            group = picked.setdefault((r.kind, r.interval_source, first), [])
            if len(group) < 2:
                group.append(r.run_id)
                if r.interval_source != "timestamps":
                    corpus_ws.set_interval(r.run_id, 3.0)
                corpus_ws.set_first_report(r.run_id, not first)
    assert {k[0] for k in picked} >= {"iostat", "sar", "nmon", "esxtop", "perfmon"}, picked
    assert len({k[1] for k in picked}) >= 2, picked
    assert {True, False} <= {k[2] for k in picked}, picked
    # the sums themselves, every column, and the series of all figures (the other figure sets read the same sums)
    assert assert_stored_equals_live(corpus_ws, [rid for g in picked.values() for rid in g], figure_sets=(None,)) \
        >= len(picked)


def _cli(*args: str) -> int:
    from app.cli import main as cli_main

    return cli_main(list(args))


def test_the_command_line_answers_keep_the_sums_right(tmp_path, capsys):
    wsp = str(tmp_path / "ws.duckdb")
    assert _cli("import", str(SAMPLES / "capped_200iops_iostat-d.txt"), str(SAMPLES / "storm_fast_iostat-xt.txt"),
                "-w", wsp) == 0
    with Workspace(wsp, read_only=True) as ws:
        capped, storm = (next(r.run_id for r in ws.runs() if r.name == n)
                         for n in ("capped_200iops_iostat-d", "storm_fast_iostat-xt"))
        assert isinstance(_outcome(ws, capped, None, True)[0], str)  # no time stamps yet: the same error both ways
        assert_stored_equals_live(ws)
        boot = series.load_series(ws, storm).since_boot_excluded
    assert boot == [0]
    assert _cli("run", str(capped), "-w", wsp, "--interval", "2") == 0
    assert _cli("run", str(storm), "-w", wsp, "--first-report", "interval") == 0
    with Workspace(wsp, read_only=True) as ws:
        assert series.load_series(ws, capped).frame.height > 0
        assert series.load_series(ws, storm).since_boot_excluded == []
        assert_stored_equals_live(ws)


def test_the_run_menu_answers_keep_the_sums_right(qtbot, window, monkeypatch):
    from PySide6.QtWidgets import QInputDialog

    from app.importer import import_file

    capped, storm = (import_file(window.ws, str(SAMPLES / n), ImportOptions()).run_ids[0]
                     for n in ("capped_200iops_iostat-d.txt", "storm_fast_iostat-xt.txt"))
    window.browser.reload()
    monkeypatch.setattr(QInputDialog, "getDouble", lambda *a, **k: (2.0, True))  # the user types 2
    run_menu(qtbot, window, capped, click="Set interval…")
    run_menu(qtbot, window, storm, click="First report is an interval (iostat -y)")
    assert window.ws.run(capped).interval_s == 2.0
    assert series.load_series(window.ws, storm).since_boot_excluded == []
    assert_stored_equals_live(window.ws, [capped, storm])
    run_menu(qtbot, window, storm, click="First report is since boot")
    assert series.load_series(window.ws, storm).since_boot_excluded == [0]
    assert_stored_equals_live(window.ws, [capped, storm])


def test_sums_made_by_other_rules_are_not_used(tmp_path):
    """A later release may change the SQL or the device rules: sums of another version, for other ops or for
    another device list are passed over (the rows are summed), and the next import or migration redoes them."""
    with Workspace(tmp_path / "ws.duckdb") as ws:
        [rid] = import_paths(ws, [SAMPLES / "storm_fast_iostat-xt.txt"], ImportOptions())[0].run_ids
        live = _outcome(ws, rid, None, False)
        args = (ws, rid, None, series_sums.DEFAULT_OPS, series.ALL_FIGURES)
        assert series._stored_sums(*args) is not None
        for change, undo in (
                ("UPDATE series_sums SET sums_version = sums_version + 1 WHERE run_id = ? AND sample_idx = 3",
                 "UPDATE series_sums SET sums_version = sums_version - 1 WHERE run_id = ? AND sample_idx = 3"),
                ("UPDATE series_sums SET ops = 'r,w' WHERE run_id = ?", "UPDATE series_sums SET ops = 'r,w,d,f' "
                 "WHERE run_id = ?"),
                ("UPDATE series_devices SET summed = false WHERE run_id = ? AND device = 'vda'",
                 "UPDATE series_devices SET summed = true WHERE run_id = ? AND device = 'vda'"),
                ("DELETE FROM series_sums WHERE run_id = ?", None)):
            ws.con.execute(change, [rid])
            assert series._stored_sums(*args) is None, change
            assert _same(_outcome(ws, rid, None, True), live), change  # the rows' series, as before
            if undo:
                ws.con.execute(undo, [rid])
                assert series._stored_sums(*args) is not None, undo
        # recomputed: a whole run again
        with ws.transaction():
            series_sums.store_sums(ws.con, rid)
        assert series._stored_sums(*args) is not None
        assert_stored_equals_live(ws)


def test_a_stale_version_is_recomputed_by_a_partial_refresh_as_a_whole(tmp_path):
    """The first-report answer redoes only report 0 when the run's sums are of this version; otherwise every
    report, so that a run never holds sums of two versions."""
    with Workspace(tmp_path / "ws.duckdb") as ws:
        [rid] = import_paths(ws, [SAMPLES / "storm_fast_iostat-xt.txt"], ImportOptions())[0].run_ids
        ws.con.execute("UPDATE series_sums SET sums_version = 0 WHERE run_id = ?", [rid])
        ws.set_first_report(rid, False)
        assert ws.con.execute("SELECT list(DISTINCT sums_version) FROM series_sums WHERE run_id = ?",
                              [rid]).fetchall()[0][0] == [series_sums.SUMS_VERSION]
        assert_stored_equals_live(ws)


def test_deleting_a_run_deletes_its_sums_and_a_failed_import_leaves_none(tmp_path, monkeypatch):
    import app.workspace as workspace_module
    from parsers.base import ParseError

    with Workspace(tmp_path / "ws.duckdb") as ws:
        rids = [r.run_ids[0] for r in import_paths(ws, [SAMPLES / "storm_fast_iostat-xt.txt",
                                                        SAMPLES / "storm_slow_iostat-xt.txt"], ImportOptions())]
        ws.delete_run(rids[0])
        for table in ("series_sums", "series_devices"):
            assert ws.con.execute(f"SELECT list(DISTINCT run_id) FROM {table}").fetchall()[0][0] == [rids[1]]
        # an import that fails after its sums were stored (here: right after) leaves neither run nor sums

        def store_then_fail(con, run_id, reports=None):
            series_sums.store_sums(con, run_id, reports)
            raise ParseError("failed after the sums")

        monkeypatch.setattr(workspace_module, "store_sums", store_then_fail)
        before = [ws.con.execute(f"SELECT count(*) FROM {t}").fetchall() for t in ("runs", "series_sums")]
        [res] = import_paths(ws, [SAMPLES / "storm_fast_iostat-json.json"], ImportOptions())
        assert res.status == "failed"
        assert "failed after the sums" in res.error
        assert [ws.con.execute(f"SELECT count(*) FROM {t}").fetchall() for t in ("runs", "series_sums")] == before


def test_a_read_only_open_of_an_older_workspace_sums_the_rows(tmp_path):
    """A schema-3 workspace opened read-only has no stored sums: the series comes from the rows."""
    from tests.test_migrations import _old

    p = _old(tmp_path)
    with Workspace(p, read_only=True) as ws:
        rid = next(r.run_id for r in ws.runs() if r.kind == "iostat")
        assert series._stored_sums(ws, rid, None, series_sums.DEFAULT_OPS, series.ALL_FIGURES) is None
        assert series.load_series(ws, rid).frame.height > 0
    with Workspace(p) as ws:  # migrated: the sums are stored, and equal the rows'
        assert 4 in ws.migrated
        assert assert_stored_equals_live(ws) == 3


def test_the_written_out_rounding_is_duckdbs_round_to_12_decimals(corpus_ws):
    """The sums round each value as ``round(x * 1e12) / 1e12`` (app.series_sums._exact_sum): the decimal it gives is
    the one ``round(x, 12)`` gives, for every value the sums add in the corpus and for a million random values of
    every magnitude (so the figures are those of the releases that wrote ``round(x, 12)``)."""
    same = "(round(v * 1e12) / 1e12)::DECIMAL(38, 12) = round(v, 12)::DECIMAL(38, 12)"
    columns = ["r_s", "w_s", "d_s", "f_s", "tps", "rkb_s", "wkb_s", "wdkb_s", "kb_s", "await_ms", "r_await_ms",
               "w_await_ms", "d_await_ms", "f_await_ms", "r_s * r_await_ms", "w_s * w_await_ms",
               "(coalesce(r_s, 0) + coalesce(w_s, 0)) * await_ms", "coalesce(rkb_s, 0) + coalesce(wkb_s, 0)"]
    values = " UNION ALL ".join(f"SELECT {c} AS v FROM iostat_samples" for c in columns)
    n, bad = corpus_ws.con.execute(f"SELECT count(*), count(*) FILTER (WHERE NOT ({same})) FROM ({values}) "
                                   "WHERE v IS NOT NULL").fetchall()[0]
    assert n > 50_000
    assert bad == 0
    n, bad = corpus_ws.con.execute(
        f"SELECT count(*), count(*) FILTER (WHERE NOT ({same})) FROM (SELECT (random() - 0.5) * pow(10, "
        "floor(random() * 20) - 8) AS v FROM range(1000000) UNION ALL SELECT round(random() * 1e6, "
        "(floor(random() * 14))::INTEGER) FROM range(1000000) UNION ALL SELECT unnest([0.0, -0.0, 0.5e-12, "
        "-0.5e-12, 1.5e-12, 2.5e-12, 123456.785, 999999.9999999995, 1e-13]))").fetchall()[0]
    assert n == 2_000_009
    assert bad == 0


def test_the_device_picker_lists_the_stored_devices_and_the_rows_of_runs_without(corpus_ws):
    """The overlay's device picker reads the devices stored at import (no scan of every row); a run without them
    (none stored: a CPU-only log) adds what its rows have."""
    rids = _device_runs(corpus_ws)
    want = sorted(d for (d,) in corpus_ws.con.execute(
        "SELECT DISTINCT device FROM iostat_samples WHERE list_contains(?, run_id)", [rids]).fetchall())
    assert series.device_names(corpus_ws, rids) == want
    corpus_ws.con.execute("BEGIN")
    try:  # as if the first runs had none stored
        corpus_ws.con.execute("DELETE FROM series_devices WHERE list_contains(?, run_id)", [rids[:5]])
        assert series.device_names(corpus_ws, rids) == want
    finally:
        corpus_ws.con.execute("ROLLBACK")
