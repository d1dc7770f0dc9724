"""Crash injection (issue 17's reliability suite): an import killed by SIGKILL at each named phase
(app/crashpoints.py: a streamed insert's first rows, inside it, commit, the write-ahead log, a checkpoint) and at a
random moment leaves every run whole or absent and the runs imported before it untouched, compared with a clean
import of the same files; after a kill at a random moment, the same files imported again give exactly the clean
workspace. ``make stress`` runs 100 such kills (tests/stress.py)."""

from __future__ import annotations

import random
import shutil
import signal
import subprocess
import time

import pytest

from app.crashpoints import PHASES
from app.workspace import INSERT_BATCH_ROWS
from tests.reliability_util import (
    built_once,
    fingerprint,
    import_command,
    run_import,
    whole_or_absent,
    write_iostat,
)

# enough rows in one table for the import to stream them into one INSERT (the staging and bulk-insert phases): the
# stream starts past INSERT_BATCH_ROWS and takes the parser's frames that follow, so twice that many
BIG_DEVICES = 100
BIG_REPORTS = -(-2 * INSERT_BATCH_ROWS // BIG_DEVICES) + 1


@pytest.fixture(scope="module")
def drop(tmp_path_factory):
    """The files (one imported before the killed import; a large one and a small one in it), the workspace
    holding the earlier one, and the fingerprint of all three imported without a kill (built once per run)."""
    return built_once(tmp_path_factory, "crash", _drop)


def _drop(d):
    earlier = write_iostat(d / "earlier.txt", 3, 20, seed=1)
    big = write_iostat(d / "big.txt", BIG_DEVICES, BIG_REPORTS, seed=2)
    small = write_iostat(d / "small.txt", 4, 30, seed=3)
    before = d / "before.duckdb"
    assert run_import(before, [earlier]).returncode == 0
    clean = d / "clean.duckdb"
    shutil.copy(before, clean)
    r = run_import(clean, [big, small])
    assert r.returncode == 0, r.stdout + r.stderr
    return {"earlier": earlier, "big": big, "small": small, "before": before,
            "before_fp": fingerprint(before), "clean_fp": fingerprint(clean)}


def killed_import(drop, tmp_path, files, crash_at):
    ws = tmp_path / "ws.duckdb"
    shutil.copy(drop["before"], ws)
    r = run_import(ws, files, crash_at=crash_at)
    assert r.returncode == -signal.SIGKILL, f"not killed at {crash_at}: {r.returncode} {r.stdout} {r.stderr}"
    return ws


def check_after_kill(drop, ws, files, committed):
    """Whole or absent; the killed file present exactly when its transaction had committed; earlier runs
    untouched."""
    got = fingerprint(ws)
    assert whole_or_absent(got, drop["clean_fp"], drop["before_fp"]) == []
    killed = {k for k in drop["clean_fp"] if k not in drop["before_fp"] and k.endswith("/" + files[0].stem)}
    assert (killed <= set(got)) is committed, (committed, killed, set(got))


@pytest.mark.parametrize("phase", PHASES)
def test_kill_at_phase(drop, tmp_path, phase):
    # the phases of a large import's staging need the large file; the others are reached by any import
    files = [drop["big"], drop["small"]] if phase in ("staging", "bulk-insert") else [drop["small"]]
    ws = killed_import(drop, tmp_path, files, phase)
    check_after_kill(drop, ws, files, committed=phase in ("wal", "checkpoint"))


def test_kill_at_a_random_moment(drop, tmp_path):
    """The parent kills the import at a random moment of the large file's import (seeded, so a failure repeats)."""
    rng = random.Random(17)
    ws = tmp_path / "ws.duckdb"
    shutil.copy(drop["before"], ws)
    files = [drop["big"], drop["small"]]
    p = subprocess.Popen(import_command(ws, files), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(rng.uniform(1.0, 4.0))
    p.send_signal(signal.SIGKILL)
    p.wait()
    got = fingerprint(ws)
    assert whole_or_absent(got, drop["clean_fp"], drop["before_fp"]) == []
    assert run_import(ws, files).returncode == 0
    assert fingerprint(ws) == drop["clean_fp"]


def test_crash_points_do_nothing_unless_asked(monkeypatch):
    """Production never sets the variable: every crash point is a no-op, and the checkpoint work is not run."""
    from app import crashpoints

    monkeypatch.delenv(crashpoints.ENV, raising=False)
    ran = []
    for phase in PHASES:
        crashpoints.crash_point(phase)
        crashpoints.crash_during(phase, lambda: ran.append(1))
    monkeypatch.setenv(crashpoints.ENV, "some-other-phase")
    for phase in PHASES:
        crashpoints.crash_point(phase)
        crashpoints.crash_during(phase, lambda: ran.append(1))
    assert ran == []
