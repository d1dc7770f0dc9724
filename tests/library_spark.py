"""``make library-spark``: Spark (pyspark in local mode, Java from the system packages) reads the engagement library
unchanged and gets the same figures as DuckDB and as StormScope's own comparison.

    python tests/library_spark.py prepare DIR   (StormScope's venv) a library in DIR/lib: the sample captures'
                                                engagement published, and 60 synthetic ones (the real storm's
                                                figures at varied scales); DuckDB's figures -> DIR/duckdb.json,
                                                StormScope's answer -> DIR/stormscope.json
    python tests/library_spark.py spark DIR     (the Spark venv) Spark's figures -> DIR/spark.json
    python tests/library_spark.py check DIR     the three agree (counts exactly, values to 1e-9), or exit 1

Both engines read the files the manifests list (a half-published engagement's files are never read), with the
hive layout's kind=/engagement= columns from the paths; StormScope answers from the library's index (_index/, which
the engines never read), so the check also says the index gives the engines' figures. Not a pytest module: it needs a
second venv."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

METRICS = ("peak_iops_per_desktop", "peak_to_plateau", "read_share", "mean_await_ms")


def _files(lib: Path) -> list[str]:
    """The runs files every manifest lists (absolute paths)."""
    out = []
    for m in sorted((lib / "_manifests").glob("*.json")):
        out += [str(lib / f["path"]) for f in json.loads(m.read_text())["files"] if f["kind"] == "runs"]
    return out


def _sql(table: str, v: dict[str, float]) -> str:
    """The figures as one SQL both engines run: per metric the count, min, max, mean and this run's mid-rank
    percentile among the comparable runs (vSphere boot storms, 10 to 40 desktops, not this engagement)."""
    parts = []
    for m in METRICS:
        parts.append(f"count({m}) AS {m}_n, min({m}) AS {m}_min, max({m}) AS {m}_max, avg({m}) AS {m}_mean, "
                     f"CAST(100.0 * (sum(CASE WHEN {m} < {v[m]!r} THEN 1 ELSE 0 END) + 0.5 * sum(CASE WHEN {m} = "
                     f"{v[m]!r} THEN 1 ELSE 0 END)) AS DOUBLE) / count({m}) AS {m}_pct")
    return (f"SELECT count(DISTINCT engagement) AS engagements, count(*) AS runs, {', '.join(parts)} FROM {table} "
            "WHERE workload = 'boot_storm' AND hypervisor = 'vSphere' AND desktops BETWEEN 10 AND 40 "
            f"AND engagement <> '{v['engagement']}'")


def prepare(out: Path) -> None:
    import random

    import duckdb
    import pyarrow as pa

    from app.analysis import questions as Q
    from app.analysis.library import engagement_id, run_figures
    from app.importer import import_file
    from app.library.publish import publish
    from app.store.library import write_engagement
    from app.workspace import Workspace
    from parsers.base import ImportOptions

    root = Path(__file__).resolve().parent.parent
    lib = out / "lib"
    wsp = out / "ws.duckdb"
    with Workspace(wsp) as ws:
        for f in ("storm_fast_iostat-xt.txt", "storm_slow_iostat-xt.txt"):
            import_file(ws, str(root / "sample_traces" / f), ImportOptions(first_report="interval"))
        Q.add_question(ws, Q.SizingQuestion(users=100, measured_run=1, vms=20))
        publish(ws, str(lib), workload="boot_storm", hypervisor="vSphere")
        this = run_figures(ws, 1, 20)
        eid = engagement_id(ws)
        rnd = random.Random(7)
        for i in range(60):  # synthetic: the real storm at varied scales
            k, d = rnd.uniform(0.5, 2.0), rnd.choice([10, 20, 30, 40, 80])
            row = {**this, "run": "run 1", "desktops": d, "workload": "boot_storm",
                   "hypervisor": rnd.choice(["vSphere", "vSphere", "Hyper-V"])}
            row.pop("started_at")
            row["peak_iops"] = this["peak_iops"] * k * d / 20
            row["peak_iops_per_desktop"] = row["peak_iops"] / d
            row["peak_to_plateau"] = this["peak_to_plateau"] * rnd.uniform(0.9, 1.6)
            row["read_share"] = this["read_share"] * rnd.uniform(0.7, 1.3)
            row["mean_await_ms"] = this["mean_await_ms"] * rnd.uniform(0.5, 40)
            write_engagement(str(lib), {"engagement": f"synthetic{i:03d}", "synthetic": True},
                             {"runs": pa.Table.from_pylist([row])})
        import os

        from app.store.library import INDEX, read_library

        os.environ["STORMSCOPE_LIBRARY_CACHE"] = str(out / "cache")  # a first read: StormScope answers from the index
        a = Q.answer(ws, Q.LibraryQuestion(1, str(lib), 20, "boot_storm", "vSphere"))
    # the library Spark reads holds its index (under _index/, which Spark's and DuckDB's hive reading skip), and
    # StormScope's answer came from that index
    assert (lib / INDEX / "INDEX.json").exists()
    got = read_library(str(lib), _cache=False)
    assert got.index_rows == len(got.manifests) == 61, (got.index_rows, got.index_notes)
    v = {m: this[m] for m in METRICS} | {"engagement": eid}
    (out / "this.json").write_text(json.dumps(v))
    con = duckdb.connect()
    con.execute(f"CREATE VIEW runs AS SELECT * FROM read_parquet({_files(lib)!r}, hive_partitioning = true, "
                "union_by_name = true)")
    cur = con.execute(_sql("runs", v))
    (out / "duckdb.json").write_text(json.dumps(dict(zip([c[0] for c in cur.description], cur.fetchone()))))
    res = a.evidence.results[0]
    sw = {"engagements": res.comparable_engagements} | {f"{m.key}_pct": m.percentile for m in res.metrics} | \
        {f"{m.key}_n": len(m.peers) for m in res.metrics}
    (out / "stormscope.json").write_text(json.dumps(sw))
    print(f"prepared {lib}: {len(_files(lib))} runs files; DuckDB: {json.loads((out / 'duckdb.json').read_text())}")


def spark(out: Path) -> None:
    from pyspark.sql import SparkSession

    lib = out / "lib"
    v = json.loads((out / "this.json").read_text())
    s = (SparkSession.builder.master("local[1]").appName("stormscope-library")
         .config("spark.ui.enabled", "false").config("spark.sql.session.timeZone", "UTC").getOrCreate())
    try:
        df = s.read.option("basePath", str(lib)).option("mergeSchema", "true").parquet(*_files(lib))
        df.createOrReplaceTempView("runs")
        row = s.sql(_sql("runs", v)).collect()[0].asDict()
    finally:
        s.stop()
    (out / "spark.json").write_text(json.dumps({k: (float(x) if x is not None and not isinstance(x, int) else x)
                                                for k, x in row.items()}))
    print(f"Spark {s.version}: {row}")


def check(out: Path) -> int:
    duck = json.loads((out / "duckdb.json").read_text())
    spk = json.loads((out / "spark.json").read_text())
    sw = json.loads((out / "stormscope.json").read_text())
    bad = []
    for k, x in duck.items():
        y = spk.get(k)
        same = (x == y) if isinstance(x, int) or x is None or y is None else math.isclose(x, y, rel_tol=1e-9)
        if not same:
            bad.append(f"{k}: DuckDB {x!r}, Spark {y!r}")
    for k, x in sw.items():
        y = duck.get(k)
        if y is None or not math.isclose(float(x), float(y), rel_tol=1e-9):
            bad.append(f"{k}: StormScope {x!r}, DuckDB {y!r}")
    for b in bad:
        print(f"DIFFERENT {b}")
    print(f"{len(duck)} figures compared (DuckDB and Spark), {len(sw)} against StormScope's answer: "
          + ("the same" if not bad else f"{len(bad)} differ"))
    return 1 if bad else 0


if __name__ == "__main__":
    step, folder = sys.argv[1], Path(sys.argv[2])
    folder.mkdir(parents=True, exist_ok=True)
    if step == "prepare":
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        prepare(folder)
    elif step == "spark":
        spark(folder)
    else:
        sys.exit(check(folder))
