"""Issue 18's DuckDB-side parse of an `iostat -xt` log, prototyped to measure it (not StormScope's importer).

The design the issue describes, for the regular layout `bench_import.py` generates (one header, device first):

1. one ordered pass: DuckDB reads the log as one text column, numbers the lines and classifies each (blank,
   Device header, avg-cpu header, banner, time stamp = the line after a blank or banner), the report index and the
   governing header by running aggregates, into a TEMP table with device rows in a column of their own;
2. in Python only the small structure: the header's column names to canonical columns and unit factors by name
   (StormScope's own map), each value's span from the header (sysstat right-aligns values under their names), the
   time stamps to dates;
3. one parallel `INSERT ... BY NAME SELECT`: `substr` + `TRY_CAST` x factor, the checks as `error()` in the WHERE.

What it leaves out, so its figure is a floor for the design, not its full cost: the CPU rows, the stored per-report
sums, the snapshot copy, the fallbacks for rows that do not fit (too-wide values, pastes, `-g` groups) and the
checks StormScope makes beyond "each cell starts with a blank and holds a non-negative number".

    python benchmarks/iostat_sql_design.py LOG WORKSPACE [MEMORY_LIMIT]   (prints one JSON line: seconds, cpu,
    rows, rss_mb; DuckDB's memory_limit, e.g. 256MB, bounds its RSS at a cost in time)

It handles the synthetic layout of `bench_import.generate` only (not the real `-dxt` captures the benchmarks now
scale up), so no benchmark runs it any more; run it by hand on a generated log.
"""

from __future__ import annotations

import json
import re
import resource
import sys
import time
from datetime import datetime
from pathlib import Path

import duckdb
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from parsers.iostat_columns import COLUMNS  # noqa: E402  (after the path: run as a script)

BLANK = "line IS NULL OR trim(line) = ''"

# one ordered pass; windows without ORDER BY stream in file order (with ORDER BY ln they sort: 2.9x slower here)
CLASSIFY = f"""
CREATE TEMP TABLE cls AS
WITH l AS (SELECT row_number() OVER () AS ln, line FROM read_csv($src, columns = {{'line': 'VARCHAR'}},
           delim = chr(1), quote = '', escape = '', header = false, auto_detect = false)),
k AS (SELECT ln, line,
        CASE WHEN {BLANK} THEN 'b' WHEN starts_with(line, 'Device') THEN 'h'
             WHEN starts_with(line, 'avg-cpu:') THEN 'c' WHEN starts_with(line, 'Linux ') THEN 'n'
             ELSE 'r' END AS k,
        lag(CASE WHEN {BLANK} THEN 'b' WHEN starts_with(line, 'Linux ') THEN 'n' ELSE 'x' END) OVER () AS prev
      FROM l),
s AS (SELECT ln, line, k, (k = 'r' AND prev IN ('b', 'n') AND NOT starts_with(line, ' ')) AS is_stamp,
        max(CASE WHEN k = 'h' THEN ln END) OVER (ROWS UNBOUNDED PRECEDING) AS hdr,
        max(CASE WHEN k IN ('b', 'n', 'c') THEN ln END) OVER (ROWS UNBOUNDED PRECEDING) AS brk
      FROM k)
SELECT ln, k, is_stamp, sum(is_stamp::INT) OVER (ROWS UNBOUNDED PRECEDING) - 1 AS sample_idx,
       CASE WHEN k = 'r' AND hdr > brk THEN line END AS dev,
       CASE WHEN k <> 'r' OR hdr IS NULL OR hdr <= brk THEN line END AS other
FROM s"""


def stamps_table(c: duckdb.DuckDBPyConnection) -> None:
    rows = c.execute("SELECT sample_idx, other FROM cls WHERE is_stamp ORDER BY sample_idx").fetchall()
    dates = [datetime.strptime(s, "%m/%d/%Y %I:%M:%S %p") for _, s in rows]
    t0 = dates[0]
    c.register("stamps_arrow", pa.table({"sample_idx": [i for i, _ in rows], "ts": dates,
                                         "t_s": [(d - t0).total_seconds() for d in dates]}))
    c.execute("CREATE TEMP TABLE stamps AS SELECT * FROM stamps_arrow")


def insert_sql(header: str) -> str:
    width = len(header)
    tokens = [(m.end(), m.group()) for m in re.finditer(r"\S+", header)]
    values, checks = [], []
    for (start, _), (end, name) in zip(tokens, tokens[1:]):
        canon, factor = COLUMNS[name]
        cell = f"substr(dev, length(dev) - {width - start} + 1, {end - start})"
        values.append((canon, f"TRY_CAST(trim({cell}) AS DOUBLE) * {factor!r}"))
        checks.append(f"starts_with({cell}, ' ')")
    device = f"trim(substr(dev, 1, length(dev) - {width - tokens[0][0]}))"
    fits = " AND ".join(["cut"] + [f"{canon} >= 0" for canon, _ in values])
    return f"""
INSERT INTO iostat_samples BY NAME
SELECT * EXCLUDE (ln, cut) FROM (
  SELECT 1 AS run_id, cls.sample_idx::INT AS sample_idx, stamps.ts, stamps.t_s, {device} AS device, ln,
         {", ".join(f"{expr} AS {canon}" for canon, expr in values)}, {" AND ".join(checks)} AS cut
  FROM cls JOIN stamps USING (sample_idx) WHERE dev IS NOT NULL)
WHERE CASE WHEN {fits} THEN true ELSE error(concat('line ', ln, ': a device row that does not fit')) END"""


def main(src: str, db: str, memory_limit: str | None = None) -> None:
    c = duckdb.connect(db)
    c.execute("SET enable_progress_bar = false")
    if memory_limit:
        c.execute(f"SET memory_limit = '{memory_limit}'")
    c.execute("CREATE TABLE iostat_samples (run_id INTEGER, sample_idx INTEGER, ts TIMESTAMP, t_s DOUBLE, "
              "device VARCHAR, " + ", ".join(f"{m} DOUBLE" for m in sorted({v[0] for v in COLUMNS.values()})) + ")")
    t, cpu = time.perf_counter(), time.process_time()
    c.execute("BEGIN")
    c.execute("SET preserve_insertion_order = true")
    c.execute(CLASSIFY, {"src": src})
    headers = c.execute("SELECT DISTINCT other FROM cls WHERE k = 'h'").fetchall()
    if len(headers) != 1:
        raise SystemExit("the prototype reads one header layout only")
    stamps_table(c)
    c.execute("SET preserve_insertion_order = false")
    c.execute(insert_sql(headers[0][0]))
    c.execute("COMMIT")
    n = c.execute("SELECT count(*) FROM iostat_samples").fetchone()
    c.close()
    print(json.dumps({"seconds": time.perf_counter() - t, "cpu": time.process_time() - cpu, "rows": n[0] if n else 0,
                      "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


if __name__ == "__main__":
    main(*sys.argv[1:4])
