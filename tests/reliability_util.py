"""Helpers of the reliability suite (tests/test_reliability_*.py and ``make stress``): traces generated to a
size and seed, an import in a child process that a test can kill, and a fingerprint of what a workspace holds
(per run: its rows, and per column an order-free checksum) to compare with a clean import."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import TypeVar

import duckdb

ROOT = Path(__file__).resolve().parent.parent
T = TypeVar("T")

IOSTAT_COLUMNS = ("r/s", "w/s", "rkB/s", "wkB/s", "r_await", "w_await", "aqu-sz", "%util")


def built_once(tmp_path_factory: object, name: str, build: Callable[[Path], T]) -> T:
    """``build(folder)`` run once per test run, its result shared by every pytest-xdist worker: a module fixture runs
    once per worker, and the reliability fixtures import large files (a clean import to compare with) -- the second
    worker waits for the first (a file lock) and reads its result (pickled) instead of building it again. Without
    xdist, the folder is this run's own."""
    import fcntl
    import pickle

    base = tmp_path_factory.getbasetemp()  # type: ignore[attr-defined]
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's folder, above each worker's own
    folder, done = base / f"built-{name}", base / f"built-{name}.pickle"
    with open(base / f"built-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if done.exists():
            with open(done, "rb") as fh:
                return pickle.load(fh)  # type: ignore[no-any-return]
        folder.mkdir(parents=True, exist_ok=True)
        result = build(folder)
        with open(done, "wb") as fh:
            pickle.dump(result, fh)
        return result


def write_iostat(path: Path, devices: int, reports: int, seed: int, host: str = "rel-host") -> Path:
    """An ``iostat -dxt`` log (sysstat layout) of ``reports`` reports of ``devices`` devices, 1 s apart (the device
    blocks are drawn from a pool of 32 random ones, so a large log is written quickly)."""
    rng = random.Random(seed)
    names = [f"sd{i}" for i in range(devices)]
    header = "Device            " + "  ".join(f"{c:>8}" for c in IOSTAT_COLUMNS)
    pool = ["".join(f"{d:<18}" + "  ".join(f"{rng.randrange(0, 10_000) / 100:8.2f}" for _ in IOSTAT_COLUMNS) + "\n"
                    for d in names) for _ in range(min(32, reports))]
    t = datetime(2024, 3, 14, 8, 0, 0) + timedelta(seconds=seed % 1000)
    with open(path, "w") as fh:
        fh.write(f"Linux 6.1.0 ({host}) \t03/14/2024 \t_x86_64_\t(8 CPU)\n\n")
        for _ in range(reports):
            fh.write(t.strftime("%m/%d/%Y %I:%M:%S %p") + "\n" + header + "\n" + pool[rng.randrange(len(pool))] + "\n")
            t += timedelta(seconds=1)
    return path


def import_command(ws: Path, files: list[Path]) -> list[str]:
    """``main.py import`` as the user runs it (``-y`` logs: the first report is an interval)."""
    return [sys.executable, str(ROOT / "main.py"), "import", *map(str, files), "-w", str(ws),
            "--first-report", "interval"]


def run_import(ws: Path, files: list[Path], crash_at: str | None = None, timeout: float = 300,
               **popen: object) -> subprocess.CompletedProcess[str]:
    """Import ``files`` in a child process; ``crash_at``: a phase of app/crashpoints.py (``PHASE[:SECONDS]``)."""
    env = dict(os.environ)
    env.pop("STORMSCOPE_TEST_CRASH_AT", None)
    if crash_at:
        env["STORMSCOPE_TEST_CRASH_AT"] = crash_at
    return subprocess.run(import_command(ws, files), env=env, capture_output=True, text=True, timeout=timeout,
                          check=False, **popen)  # type: ignore[call-overload]


def fingerprint(ws: Path) -> dict[str, dict[str, tuple]]:
    """Per run (keyed by its file's SHA-256 and run name): for each per-run table, its row count and an order-free
    checksum per column. Opened read-only: a workspace left by a killed import is recovered (its log replayed)
    the way StormScope opens it."""
    from app.workspace import RUN_TABLES

    con = duckdb.connect(str(ws), read_only=True)
    try:
        runs = con.execute("SELECT run_id, source_sha256, name, n_rows FROM runs ORDER BY run_id").fetchall()
        out: dict[str, dict[str, tuple]] = {}
        for rid, sha, name, n_rows in runs:
            key = f"{sha}/{name}"
            assert key not in out, f"{key} stored twice"
            tables: dict[str, tuple] = {"runs.n_rows": (n_rows,)}
            for t in RUN_TABLES:
                cols = [r[0] for r in con.execute(
                    "SELECT column_name FROM information_schema.columns WHERE table_name = ? AND column_name <> "
                    "'run_id' ORDER BY ordinal_position", [t]).fetchall()]
                sums = ", ".join(f'sum(hash("{c}"))' for c in cols)
                row = con.execute(f"SELECT count(*), {sums} FROM {t} WHERE run_id = ?", [rid]).fetchall()[0]
                if row[0]:
                    tables[t] = tuple(row)
            out[key] = tables
        return out
    finally:
        con.close()


def whole_or_absent(got: dict[str, dict[str, tuple]], clean: dict[str, dict[str, tuple]],
                    earlier: dict[str, dict[str, tuple]]) -> list[str]:
    """What is wrong with ``got`` (a workspace after a killed import) against ``clean`` (the same imports, never
    killed) and ``earlier`` (what it held before the killed import): every run present is exactly its clean
    twin, and every earlier run is still there, untouched. Empty when all is well."""
    problems = [f"run {k} is not in the clean import" for k in got if k not in clean]
    problems += [f"run {k} differs from its clean import: {got[k]} != {clean[k]}"
                 for k in got if k in clean and got[k] != clean[k]]
    problems += [f"earlier run {k} is gone" for k in earlier if k not in got]
    return problems


# ---- I/O faults -----------------------------------------------------------------------------------------------
def without_root_powers() -> list[str]:
    """A command prefix that makes file permissions apply: root (a container, CI) reads and writes any file, so
    the capabilities that let it are dropped (setpriv, util-linux); another user needs nothing."""
    if os.geteuid() != 0:
        return []
    import shutil

    assert shutil.which("setpriv"), "setpriv (util-linux) is needed to test permissions as root"
    drop = "-dac_override,-dac_read_search"
    return ["setpriv", f"--inh-caps={drop}", f"--bounding-set={drop}"]


def on_small_disk(size: str, mountpoint: Path, script: str) -> subprocess.CompletedProcess[str]:
    """Run the shell ``script`` with a tmpfs of ``size`` (``2200k``) mounted on ``mountpoint``, in a mount namespace
    of its own (nothing stays mounted, even when the test dies): as root, or as another user through a user
    namespace. The script copies out what the test should see: the tmpfs is gone when it ends."""
    mountpoint.mkdir(parents=True, exist_ok=True)
    ns = ["unshare", "--mount", "--propagation", "private"] if os.geteuid() == 0 else \
        ["unshare", "--user", "--map-root-user", "--mount"]
    body = f"mount -t tmpfs -o size={size} tmpfs '{mountpoint}' || exit 97\n{script}"
    r = subprocess.run([*ns, "sh", "-c", body], capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode != 97, f"cannot mount a tmpfs here: {r.stderr}"
    return r


def import_on_small_disk(files: list[Path], size: str, workdir: Path) -> tuple[dict[str, dict], int, Path]:
    """``files`` imported (``main.py import --json``) into a new workspace on a tmpfs of ``size``: the results by
    file name, the exit code, and a copy of the workspace as the import left it (in ``workdir``/out)."""
    import json
    import shlex

    disk, out = workdir / "disk", workdir / "out"
    out.mkdir(parents=True)
    cmd = " ".join(shlex.quote(a) for a in [*import_command(disk / "ws.duckdb", files), "--json"])
    r = on_small_disk(size, disk, f"cd {shlex.quote(str(ROOT))} && {cmd} > '{out}/result.json' 2> '{out}/stderr'\n"
                                  f"echo $? > '{out}/rc'; cp '{disk}'/ws.duckdb* '{out}/'")
    assert r.returncode == 0, r.stderr
    text = (out / "result.json").read_text()
    assert text, (out / "stderr").read_text()
    results = {res["path"].rsplit("/", 1)[1]: res for res in json.loads(text)}
    return results, int((out / "rc").read_text()), out / "ws.duckdb"
