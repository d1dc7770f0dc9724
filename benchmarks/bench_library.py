"""Comparing a storm with a library of 1,000 engagements, from a local folder (goal: under 1 s).

    python benchmarks/bench_library.py [ENGAGEMENTS] [ROUNDS]

The library is SYNTHETIC: the sample captures' real storms (sample_traces/storm_fast_iostat-xt.txt and
storm_slow_iostat-xt.txt, their figures by app.analysis.library.run_figures) published once, then copied 1,000 times
at varied scales -- IOPS x 0.3..3, desktops 10..60, peak-to-plateau x 0.8..2, reads x 0.6..1.4, await x 0.5..50,
workload and hypervisor drawn from four of each -- each engagement written by the library's own atomic publish
(app.store.library.write_engagement: a manifest and a runs file per engagement, as a real one).

Timed: the library question's whole answer -- the storm run's figures from the workspace, every manifest read and
checked, every listed file's size checked, the rows read, the comparable runs filtered, the percentiles. First
cold (this computer's reading cache empty: every file read, by one DuckDB read_parquet), then warm (median of
ROUNDS: the manifests and sizes checked again, the rows from the reading cache; app/store/library.py), which is what a
consultant's second and later comparisons cost, and every one after a colleague publishes (only new files are read).
Yardstick in the same script: DuckDB reading the same 1,000 Parquet files with one read_parquet (the engine alone,
no manifest and no check), and the workspace side alone (run_figures).
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def build(folder: Path, n: int) -> tuple[Path, list[dict]]:
    import pyarrow as pa

    from app.analysis import questions as Q
    from app.analysis.library import run_figures
    from app.importer import import_file
    from app.store.library import write_engagement
    from app.workspace import Workspace
    from parsers.base import ImportOptions

    wsp = folder / "ws.duckdb"
    with Workspace(wsp) as ws:
        for f in ("storm_fast_iostat-xt.txt", "storm_slow_iostat-xt.txt"):
            import_file(ws, str(ROOT / "sample_traces" / f), ImportOptions(first_report="interval"))
        Q.add_question(ws, Q.SizingQuestion(users=100, measured_run=1, vms=20))
        real = [run_figures(ws, 1, 20), run_figures(ws, 2, 20)]
    rnd = random.Random(34)
    lib = folder / "lib"
    for i in range(n):
        rows = []
        d = rnd.randint(10, 60)
        workload = rnd.choice(["boot_storm", "logon_storm", "steady", "mixed"])
        hyp = rnd.choice(["vSphere", "Hyper-V", "AHV", "XenServer"])
        for t in real:
            k = rnd.uniform(0.3, 3.0)
            r = {**t, "run": f"run {len(rows) + 1}", "desktops": d, "workload": workload, "hypervisor": hyp}
            r.pop("started_at")
            r["peak_iops"] = t["peak_iops"] * k * d / 20
            r["plateau_iops"] = t["plateau_iops"] * k * d / 20
            r["peak_iops_per_desktop"] = r["peak_iops"] / d
            r["plateau_iops_per_desktop"] = r["plateau_iops"] / d
            r["peak_to_plateau"] = t["peak_to_plateau"] * rnd.uniform(0.8, 2.0)
            r["read_share"] = min(1.0, t["read_share"] * rnd.uniform(0.6, 1.4))
            r["mean_await_ms"] = t["mean_await_ms"] * rnd.uniform(0.5, 50)
            rows.append(r)
        write_engagement(str(lib), {"engagement": f"synthetic{i:05d}", "synthetic": True, "workload": workload,
                                    "hypervisor": hyp, "desktops": d}, {"runs": pa.Table.from_pylist(rows)})
    return wsp, [{"workload": "boot_storm", "hypervisor": "vSphere"}]


def main() -> None:
    import os

    import duckdb

    from app.analysis import questions as Q
    from app.analysis.library import run_figures
    from app.workspace import Workspace

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    with tempfile.TemporaryDirectory(prefix="bench_library_") as tmp:
        t0 = time.perf_counter()
        wsp, _ = build(Path(tmp), n)
        lib = Path(tmp) / "lib"
        print(f"built a synthetic library of {n:,} engagements ({2 * n:,} runs) in {time.perf_counter() - t0:.1f} s "
              f"({sum(p.stat().st_size for p in lib.rglob('*') if p.is_file()) / 1e6:.1f} MB)")
        answer_s, engine_s, ws_s = [], [], []
        os.environ["STORMSCOPE_LIBRARY_CACHE"] = str(Path(tmp) / "cache")
        with Workspace(wsp, read_only=True) as ws:
            q = Q.LibraryQuestion(1, str(lib), 20, "boot_storm", "vSphere")
            t, c = time.perf_counter(), time.process_time()
            Q.answer(ws, q)
            cold, cold_cpu = time.perf_counter() - t, time.process_time() - c
            cpu_s = []
            for _ in range(rounds):
                t, c = time.perf_counter(), time.process_time()
                a = Q.answer(ws, q)
                answer_s.append(time.perf_counter() - t)
                cpu_s.append(time.process_time() - c)
                t = time.perf_counter()
                run_figures(ws, 1, 20, shares=False)
                ws_s.append(time.perf_counter() - t)
                t = time.perf_counter()
                files = [str(p) for p in lib.glob("kind=runs/engagement=*/*.parquet")]
                con = duckdb.connect()
                con.sql(f"SELECT * FROM read_parquet({files!r}, hive_partitioning = true)").to_arrow_table()
                con.close()
                engine_s.append(time.perf_counter() - t)
        res = a.evidence.results[0]
        med = statistics.median(answer_s)
        print(f"compare with the library, cold (every file read): {cold * 1000:.0f} ms (CPU {cold_cpu * 1000:.0f} ms, "
              "all threads)")
        print(f"compare with the library, warm: median {med * 1000:.0f} ms over {rounds} rounds "
              f"({min(answer_s) * 1000:.0f}-{max(answer_s) * 1000:.0f} ms), goal < 1,000 ms: "
              f"{'met' if med < 1 else 'NOT met'}; CPU median {statistics.median(cpu_s) * 1000:.0f} ms; "
              f"{res.comparable_engagements} comparable of "
              f"{res.engagements_in_library:,}; refused {len(res.refused)}")
        eng = statistics.median(engine_s)
        print(f"  yardstick, DuckDB read_parquet of the same {n:,} files alone: median {eng * 1000:.0f} ms (warm "
              f"answer / yardstick {med / eng:.2f}, cold {cold / eng:.2f})")
        print(f"  of which the workspace side (the storm run's figures): "
              f"median {statistics.median(ws_s) * 1000:.0f} ms")
        print(f"  load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        print(f"  answer: {a.figures[0].text}")


if __name__ == "__main__":
    main()
