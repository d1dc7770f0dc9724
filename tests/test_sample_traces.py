"""Our own real captures (sample_traces/README.md says how each was made) import with the numbers
the capture notes give."""

from app.importer import import_file, import_paths
from parsers.base import ImportOptions
from tests.conftest import SAMPLES


def test_the_whole_folder_imports_and_skips_what_is_no_trace(ws):
    res = import_paths(ws, [SAMPLES], ImportOptions())
    by_name = {r.path.split("/")[-1]: r for r in res}
    assert {r.status for r in res} <= {"imported", "skipped"}, [r.error for r in res if r.status == "failed"]
    assert by_name["README.md"].status == "skipped"
    assert by_name["storm_fast.fio"].status == "skipped"
    assert all(by_name[n].status == "imported" for n in (
        "storm_fast_iostat-xt.txt", "storm_slow_iostat-xt.txt", "capped_200iops_iostat-d.txt",
        "storm_fast_iostat-json.json"))


def peak(ws, run_id):
    return ws.con.execute(
        "SELECT sample_idx, r_s + w_s AS iops FROM iostat_samples WHERE run_id = ? AND device = 'vda' "
        "AND NOT since_boot ORDER BY iops DESC, sample_idx LIMIT 1", [run_id]).fetchall()[0]


def test_fast_storm_peaks_at_1212_iops_in_report_21(ws):
    r = import_file(ws, str(SAMPLES / "storm_fast_iostat-xt.txt"), ImportOptions(first_report="interval"))
    assert r.status == "imported"
    assert peak(ws, r.run_ids[0]) == (20, 1212.0)
    run = ws.run(r.run_ids[0])
    assert run.host == "vm"
    assert run.interval_s == 1.0
    assert run.n_samples == 60
    assert run.tool_version == "sysstat 12.3+ (from the columns)"


def test_slow_storm_reaches_the_four_job_level(ws):
    r = import_file(ws, str(SAMPLES / "storm_slow_iostat-xt.txt"), ImportOptions(first_report="interval"))
    rows = dict(ws.con.execute("SELECT sample_idx, r_s + w_s FROM iostat_samples WHERE run_id = ? "
                               "AND device = 'vda'", [r.run_ids[0]]).fetchall())
    assert rows[32] == 600.0  # report 33, the first clean 4-job plateau
    assert peak(ws, r.run_ids[0]) == (65, 809.0)


def test_capped_run_without_timestamps(ws):
    r = import_file(ws, str(SAMPLES / "capped_200iops_iostat-d.txt"), ImportOptions(interval_s=2))
    run = ws.run(r.run_ids[0])
    assert run.interval_s == 2
    assert run.interval_source == "user"
    assert run.n_samples == 30
    assert "since-boot (proved" in run.meta.json()
    got = ws.con.execute("SELECT sample_idx, since_boot, t_s, tps FROM iostat_samples WHERE run_id = ? AND "
                         "device = 'vda' AND sample_idx IN (0, 1, 16) ORDER BY 1", [r.run_ids[0]]).fetchall()
    assert got == [(0, True, 0.0, 3397.28), (1, False, 2.0, 201.0), (16, False, 32.0, 112375.5)]
