"""``main.py export --parquet`` of a large workspace against a yardstick in the same script.

    python benchmarks/bench_export.py [--keep WS]   (default: the 10 M-row workspace of bench_overlay.py, built here)

The workspace: one iostat run of 200,000 reports x 50 devices (bench_overlay's BUILD). Each in a fresh process:

* the yardstick: DuckDB's own ``COPY iostat_samples TO 'DIR' (FORMAT parquet, PARTITION_BY (run_id))`` -- the
  least a partitioned Parquet export of the same rows can cost (DuckDB writing the files itself, which the export
  does not do: it must work with DuckDB's external access turned off);
* the export: app.store.parquet.export_parquet of the whole workspace (every table; pyarrow writes the files).

Prints seconds (wall and CPU), peak RSS, the files' size and the ratio to the yardstick.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_overlay import BUILD  # noqa: E402

MEASURE = """
import resource, sys, time
from pathlib import Path
def cpu():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime
t, c = time.perf_counter(), cpu()
if sys.argv[2] == "export":
    from app.store.parquet import export_parquet
    from app.workspace import Workspace
    export_parquet(Workspace(sys.argv[1], read_only=True), sys.argv[3])
else:  # DuckDB on its own (a plain connection: StormScope's turn external access off, and COPY with it)
    import duckdb
    con = duckdb.connect(sys.argv[1], read_only=True)
    con.execute(f"COPY iostat_samples TO '{sys.argv[3]}' (FORMAT parquet, PARTITION_BY (run_id))")
size = sum(f.stat().st_size for f in Path(sys.argv[3]).rglob("*.parquet"))
print(time.perf_counter() - t, cpu() - c, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, size / 1e6)
"""


def child(code: str, *args: str) -> list[float]:
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True, check=True,
                         env=env)
    return [float(x) for x in out.stdout.strip().splitlines()[-1].split()[-4:]]  # after any progress bar


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--keep", type=Path, help="the workspace (built here when missing)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        ws = args.keep or Path(tmp) / "big.duckdb"
        if not ws.exists():
            subprocess.run([sys.executable, "-c", BUILD, str(ws), "200000", "50"], cwd=ROOT, check=True,
                           env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        y_s, y_c, y_mb, y_size = child(MEASURE, str(ws), "yardstick", f"{tmp}/copy")
        e_s, e_c, e_mb, e_size = child(MEASURE, str(ws), "export", f"{tmp}/export")
        print(f"yardstick (DuckDB COPY ... PARTITION_BY, iostat_samples): {y_s:.2f} s ({y_c:.2f} s CPU), "
              f"peak RSS {y_mb:,.0f} MB, {y_size:,.0f} MB of Parquet")
        print(f"export --parquet (every table, pyarrow):               {e_s:.2f} s ({e_c:.2f} s CPU), "
              f"peak RSS {e_mb:,.0f} MB, {e_size:,.0f} MB of Parquet")
        print(f"ratio to the yardstick: {e_s / y_s:.2f}x time ({e_c / y_c:.2f}x CPU), {e_mb / y_mb:.2f}x memory")
    return 0


if __name__ == "__main__":
    sys.exit(main())
