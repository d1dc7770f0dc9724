"""The workspace schema: one declarative spec per table, the single source of truth (no DuckDB here).

Every table of a workspace is a :class:`Table` in :data:`TABLES`: its name, its purpose, and its columns
(name, DuckDB type, meaning, unit, constraints). From this spec

* ``app.workspace`` builds the ``CREATE TABLE`` statements (:func:`create_statements`; no other module creates
  a table),
* the parsers read the polars schemas of the frames they yield (:func:`frame_schema`), and
* ``python -m app.schema_doc`` writes the reference ``docs/schema.md`` (a test fails when it is stale).

The schema is public: users query it with ``main.py sql``. Columns are never renamed or dropped; a change is a
new step in ``app.migrations`` and a higher :data:`SCHEMA_VERSION`.

Parsers import this module; it imports polars only (the import-linter contract keeps DuckDB and the app out of
the parsers).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from parsers.iostat_columns import METRICS

# the schema a workspace of this StormScope has; app.migrations brings older workspaces up to it
SCHEMA_VERSION = 7
# the oldest schema whose StormScope reads a workspace of this schema correctly (stored beside its version as
# ``read_compatible_from``, as SQLite's read-compatibility number and git's repository format do): a release whose
# schema only ADDS tables or columns keeps the number it found; one that changes what a stored value means, or
# that older releases must not write around (a new way a row is kept), raises it to its own SCHEMA_VERSION. A
# StormScope older than the workspace opens it read-only when its own version reaches this number, else refuses it.
# Schema 4 added the derived per-report sums (app.series_sums), which a release of schema 3 ignores: it stays 3.
# Schema 5 added the runs' clock offsets (clock_offsets): an older release reads every stored value as it did and
# only does not apply the offsets (its clock alignment is the files' clocks, as before they were set): it stays 3.
# Schema 6 added the capture plan (capture_plans): an older release ignores it: it stays 3.
# Schema 7 makes a report where a whole disk is missing mid-run a gap (NULL sums, sums_version 2): an older release
# does not use sums of another version: it stays 3.
READ_COMPATIBLE_FROM = 3

# polars dtype of a stored column, per DuckDB type
POLARS_TYPES: dict[str, pl.DataType] = {
    "INTEGER": pl.Int32(), "BIGINT": pl.Int64(), "DOUBLE": pl.Float64(), "VARCHAR": pl.String(),
    "BOOLEAN": pl.Boolean(), "TIMESTAMP": pl.Datetime("us"), "DATE": pl.Date(), "JSON": pl.String(),
    "VARCHAR[]": pl.List(pl.String()),
    "MAP(VARCHAR, VARCHAR)": pl.List(pl.Struct({"key": pl.String(), "value": pl.String()})),
}
_INTEGERS = ("INTEGER", "BIGINT")


@dataclass(frozen=True)
class Column:
    """One column: ``sql`` is its DuckDB type; ``key`` marks (part of) the table's primary key; ``default`` is an
    SQL expression."""

    name: str
    sql: str
    meaning: str = ""
    unit: str = ""
    not_null: bool = False
    default: str | None = None
    key: bool = False

    @property
    def dtype(self) -> pl.DataType:
        """The polars dtype of the stored column (what a query returns)."""
        return POLARS_TYPES[self.sql]

    @property
    def parse_dtype(self) -> pl.DataType:
        """The dtype a parser builds the column with: integers at 64 bits (the workspace narrows them when it
        stores the rows, and says so when a value does not fit); otherwise :attr:`dtype`."""
        return pl.Int64() if self.sql in _INTEGERS else self.dtype

    @property
    def is_integer(self) -> bool:
        return self.sql in _INTEGERS

    def ddl(self, single_key: bool) -> str:
        out = f"{self.name} {self.sql}"
        if self.key and single_key:
            out += " PRIMARY KEY"
        elif self.not_null or self.key:
            out += " NOT NULL"
        if self.default is not None:
            out += f" DEFAULT {self.default}"
        return out


@dataclass(frozen=True)
class Table:
    """A table: ``per_run`` tables hold rows of one run each (deleting a run deletes them); ``sequences`` are created
    before the table (its defaults use them); ``notes`` is Markdown printed under the column table in
    docs/schema.md. Which table's rows ``runs.n_rows`` counts is each format's to declare
    (:class:`parsers.semantics.Semantics`), not the schema's."""

    name: str
    purpose: str
    columns: tuple[Column, ...]
    per_run: bool = False
    sequences: tuple[str, ...] = ()
    derived: bool = False  # computed from other tables by StormScope (not the data of a file): left out of exports
    written_by: str = ""
    notes: str = ""
    _by_name: dict[str, Column] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        names = [c.name for c in self.columns]
        if len(set(names)) != len(names):
            raise ValueError(f"table {self.name}: a column is named twice")
        self._by_name.update({c.name: c for c in self.columns})

    @property
    def key(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns if c.key)

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    def column(self, name: str) -> Column:
        return self._by_name[name]

    def create_statements(self) -> list[str]:
        """``CREATE SEQUENCE`` / ``CREATE TABLE ... IF NOT EXISTS`` for this table."""
        single = len(self.key) == 1
        cols = [c.ddl(single) for c in self.columns]
        if len(self.key) > 1:
            cols.append(f"PRIMARY KEY ({', '.join(self.key)})")
        return [*(f"CREATE SEQUENCE IF NOT EXISTS {s} START 1" for s in self.sequences),
                f"CREATE TABLE IF NOT EXISTS {self.name} ({', '.join(cols)})"]


def _c(name: str, sql: str, meaning: str = "", unit: str = "", *, not_null: bool = False,
       default: str | None = None, key: bool = False) -> Column:
    return Column(name, sql, meaning, unit, not_null, default, key)


def _many(names: str | list[str], sql: str, meaning: str = "", unit: str = "") -> list[Column]:
    return [Column(n, sql, meaning, unit) for n in (names.split() if isinstance(names, str) else names)]


_RUN_ID = _c("run_id", "INTEGER", "the run (`runs.run_id`)", not_null=True)
_D, _I, _B, _V = "DOUBLE", "INTEGER", "BOOLEAN", "VARCHAR"

# ---- iostat --------------------------------------------------------------------------------------------------
_IOSTAT_METRICS: dict[str, tuple[str, str]] = {}  # metric -> (unit, meaning)
for _names, _unit, _meaning in [
    ("r_s w_s d_s f_s", "requests/s", "reads, writes, discards, flushes (after merging)"),
    ("tps", "requests/s", "plain reports: transfers/s (reads + writes + discards)"),
    ("rkb_s wkb_s dkb_s", "kB/s, kB = 1024 bytes",
     "read, written, discarded; whatever the file's unit: `-k`, `-m`, `--human`, 512-byte blocks/sectors"),
    ("rrqm_s wrqm_s drqm_s", "merges/s", "read, write, discard requests merged"),
    ("rrqm_pct wrqm_pct drqm_pct", "%", "share of requests merged"),
    ("r_await_ms w_await_ms d_await_ms f_await_ms await_ms", "ms",
     "average time per request including queueing"),
    ("aqu_sz", "requests", "average queue length (`aqu-sz`, `avgqu-sz`)"),
    ("rareq_kb wareq_kb dareq_kb areq_kb", "kB", "average request size (`avgrq-sz` sectors converted)"),
    ("svctm_ms", "ms", "deprecated by sysstat, kept as printed"),
    ("util_pct", "%", "time with I/O in flight (not saturation for SSD/NVMe/RAID)"),
    ("kb_s", "kB/s", "`-s` short extended report: total (read + write + discard)"),
    ("rqm_s", "merges/s", "`-s` short extended report: total merges"),
    ("wdkb_s", "kB/s", "`-s` short report: written + discarded"),
    ("rkb wkb dkb wdkb", "kB", "the cumulative columns of plain reports (`kB_read`, …): kB in the report's "
     "interval, or since boot for a since-boot report"),
]:
    for _n in _names.split():
        _IOSTAT_METRICS[_n] = (_unit, _meaning)
if set(_IOSTAT_METRICS) != set(METRICS):
    raise ValueError("parsers.schema: every iostat metric needs a meaning")

_FIO_LAT = [("lat", "total latency (submission + completion)", ("mean", "min", "max", "stddev")),
            ("clat", "completion latency", ("mean", "min", "max", "stddev")),
            ("slat", "submission latency", ("mean", "min", "max"))]
_FIO_PCT = ["p50_us", "p90_us", "p95_us", "p99_us", "p995_us", "p999_us", "p9999_us"]

_IOMETER_TOTALS = "errors read_errors write_errors bytes_read bytes_written read_ios write_ios"
_IOMETER_CPU = "cpu_pct user_pct privileged_pct dpc_pct interrupt_pct interrupts_s cpu_effectiveness"

# columns of iostat_samples that formats other than iostat fill (schema 3)
_SAMPLE_EXTRAS = (
    _c("layer", _V, "what the row's device is, when the format says so: `disk` (a physical disk or LUN: "
       "perfmon `PhysicalDisk(0 C:)`, esxtop `Physical Disk SCSI Device(naa.…)`), `total` (a sum the tool "
       "printed: perfmon `_Total`), `volume` (perfmon `LogicalDisk`), `adapter` (esxtop `vmhba…`), `vm_disk` "
       "(esxtop `Virtual Disk(vm:scsi0:0)`), `world` (esxtop per device per world); NULL: classified by its name "
       "(iostat)"),
    _c("vm", _V, "the VM a `vm_disk` or `world` row belongs to (esxtop)"),
    _c("davg_ms", _D, "esxtop DAVG: time per command in the device driver and below (the array)", "ms"),
    _c("kavg_ms", _D, "esxtop KAVG: time per command in the ESXi kernel (its queue included); GAVG = KAVG + "
       "DAVG is `await_ms`", "ms"),
    _c("qavg_ms", _D, "esxtop QAVG: time per command in the kernel's queue (part of KAVG)", "ms"),
    _c("failed_s", _D, "failed commands per second (esxtop `Failed Commands/sec`)", "commands/s"),
)

TABLES: tuple[Table, ...] = (
    Table("runs", "one row per imported run (one per source file; one per host when a file holds several)", (
        _c("run_id", _I, "key", key=True, default="nextval('run_id_seq')"),
        _c("name", _V, "display name (default: file name without extension)", not_null=True),
        _c("kind", _V, "the run kind (`iostat`, `esxtop`, `fio`, ...: see *Kinds and formats*)", not_null=True),
        _c("format", _V, "the format that read it (`iostat-text`, `perfmon-csv`, ...: see *Kinds and formats*)",
           not_null=True),
        _c("source_path", _V, "the file as imported: its full path", not_null=True),
        _c("source_sha256", _V, "the file's SHA-256 (a file already stored is a duplicate)", not_null=True),
        _c("source_size", "BIGINT", "the file's size", "bytes"),
        _c("host", _V, "from the file's banner (`Linux 5.15 (host) …`)"),
        _c("os", _V, "from the file's banner"),
        _c("tool_version", _V, "the tool's version when the file states it; for iostat text, the sysstat releases "
           "whose column set it is (e.g. `sysstat 12.3+ (from the columns)`)"),
        _c("file_date", "DATE", "the date in the banner"),
        _c("started_at", "TIMESTAMP", "first report time (wall clock of the host; NULL without `-t`)"),
        _c("ended_at", "TIMESTAMP", "last report time (wall clock of the host; NULL without `-t`)"),
        _c("interval_s", _D, "seconds between reports", "s"),
        _c("interval_source", _V, "`timestamps`, `user` (given after import) or `unknown`"),
        _c("n_samples", _I, "reports (collections)"),
        _c("n_devices", _I, "distinct devices"),
        _c("n_rows", "BIGINT", "rows in the run's main table (`iostat_samples`, `histograms`, `fio_jobs`, "
           "`*_results`)"),
        _c("imported_at", "TIMESTAMP", "when it was imported (UTC)", not_null=True),
        _c("tags", "MAP(VARCHAR, VARCHAR)", "user tags (`--tag K=V`)"),
        _c("meta", "JSON", "everything else the file says: `arch`, `cpus`, `banner_date`, `first_report` (how the "
           "first report was classified, and why), `segments` (iostat invocations appended in one file), "
           "`decimal_comma`, `human_units`, `utc_offset`; per format more (see the notes of its table)"),
        _c("warnings", "VARCHAR[]", "import warnings, `file:line:` where tied to a line"),
    ), sequences=("run_id_seq",), written_by="import; `run` and the run list's menu (name, tags, interval)"),

    Table("iostat_samples", "one row per iostat report and device", (
        _RUN_ID,
        _c("sample_idx", _I, "0-based report number within the run", not_null=True),
        _c("ts", "TIMESTAMP", "report time (`-t`), else NULL"),
        _c("t_s", _D, "seconds since the run's first report (from `ts`, else `sample_idx × interval`, else NULL)",
           "s"),
        _c("device", _V, "device or group name as printed (`-g` groups: leading space removed, "
           "`is_group = true`)", not_null=True),
        _c("since_boot", _B, "the report covers the time since boot: excluded from analyses", not_null=True,
           default="false"),
        *[_c(m, _D, _IOSTAT_METRICS[m][1], _IOSTAT_METRICS[m][0]) for m in METRICS],
        _c("is_group", _B, "a `-g` group summary row", not_null=True, default="false"),
        *_SAMPLE_EXTRAS,
    ), per_run=True,
        written_by="import",
        notes="A metric the file does not have is NULL."),

    Table("cpu_samples", "the `avg-cpu` block of each iostat report", (
        _RUN_ID,
        _c("sample_idx", _I, "0-based report number within the run", not_null=True),
        _c("ts", "TIMESTAMP", "report time (`-t`), else NULL"),
        _c("t_s", _D, "seconds since the run's first report", "s"),
        *_many("user nice system iowait steal idle", _D, "share of CPU time (`%user`, `%nice`, …)", "%"),
    ), per_run=True, written_by="import"),

    Table("workspace_info", "facts about the workspace itself", (
        _c("key", _V, "`schema_version`, `read_compatible_from`, `report_fields`", key=True),
        _c("value", _V, "its value (the schema version this workspace has, and the oldest schema version whose "
                        "StormScope reads it correctly, see docs/schema.md's top; the report heading last exported: "
                        "title, customer, consultant and company as JSON)"),
    ), written_by="opening a workspace (migrations); Export report (the heading)"),

    Table("histograms", "vscsiStats histograms and fio json+ latency bins, one row per bucket", (
        _RUN_ID,
        _c("sample_idx", _I, "0-based collection (vscsiStats collections appended to one file; fio: 0)",
           not_null=True),
        _c("ts", "TIMESTAMP", "time of the timestamp line printed with the collection (`date` or ISO), else NULL"),
        _c("t_s", _D, "seconds since the first collection (from `ts`, else `sample_idx × interval`, else NULL)",
           "s"),
        _c("device", _V, "the series: vscsiStats `worldGroupID:handleID`, e.g. `2099979:8194 (scsi0:0)`; fio: the "
           "job name (`name #k` for clones of one job)", not_null=True),
        _c("metric", _V, "`io_length_bytes`, `seek_distance_lbn`, `seek_closest16_lbn` (distance to the closest of "
           "the previous 16 commands), `latency_us`, `outstanding_ios`, `interarrival_us`", not_null=True),
        _c("op", _V, "`all`, `read`, `write` (fio has no `all`: analyses add read and write)", not_null=True),
        _c("bucket_lo", _D, "exclusive lower edge; NULL = minus infinity (the first bucket)", "metric's unit"),
        _c("bucket_hi", _D, "inclusive upper edge; NULL = overflow (values above the last limit, the limit "
           "vscsiStats prints twice)", "metric's unit"),
        _c("count", "BIGINT", "values in (`bucket_lo`, `bucket_hi`]", "I/Os", not_null=True),
    ), per_run=True,
        written_by="import",
        notes="fio's json+ bins are keyed by a representative latency; each bin holds the whole-nanosecond "
              "latencies of a range (1/64 of a power of two, exact below 128 ns), stored as (lo − 1, hi − 1] in "
              "µs, so shares and percentiles from them are exact to that range and honest about it."),

    Table("histogram_stats", "the summary printed with each histogram", (
        _RUN_ID,
        _c("sample_idx", _I, "0-based collection", not_null=True),
        _c("device", _V, "as in `histograms`", not_null=True),
        _c("metric", _V, "as in `histograms`", not_null=True),
        _c("op", _V, "as in `histograms`", not_null=True),
        *_many("min max mean", _D, "as printed; NULL when `count` is 0. fio json+: the completion latency's",
               "metric's unit"),
        _c("count", "BIGINT", "I/Os in the histogram", "I/Os"),
    ), per_run=True, written_by="import"),

    Table("fio_jobs", "one row per fio job (or reporting group) and direction that did I/O", (
        _RUN_ID,
        _c("device", _V, "the job name, as in `histograms`", not_null=True),
        _c("job_index", _I, "position in `jobs[]`"),
        _c("jobname", _V, "name as printed"),
        _c("groupid", _I, "group as printed"),
        _c("op", _V, "`read`, `write`, `trim`, `sync` (fsync statistics, fio 3.x)", not_null=True),
        *_many("rw bs iodepth numjobs ioengine", _V,
               "job option as printed (global options overridden by the job's)"),
        _c("ios", "BIGINT", "`total_ios` (NULL for fio 2.1 and older, which do not print it)", "I/Os"),
        _c("io_kb", _D, "data transferred (fio 2.x `io_bytes`, which holds KB; 3.x `io_kbytes`)", "KB"),
        _c("iops", _D, "fio's `iops`", "1/s"),
        _c("bw_kbs", _D, "fio's `bw` (KB = 1024 bytes)", "KB/s"),
        _c("runtime_s", _D, "fio's `runtime`", "s"),
        *[_c(f"{p}_{s}_us", _D, f"{what}: {s}", "µs") for p, what, stats in _FIO_LAT for s in stats],
        *_many(_FIO_PCT, _D, "fio's own percentiles (of `pct_of`)", "µs"),
        _c("pct_of", _V, "`clat` (fio's default) or `lat` (with `lat_percentiles`)"),
        _c("has_bins", _B, "json+ latency bins stored in `histograms`"),
        _c("error", _I, "fio's job error code"),
        _c("usr_cpu", _D, "fio's user CPU", "%"),
        _c("sys_cpu", _D, "fio's system CPU", "%"),
    ), per_run=True, written_by="import",
        notes="fio 2.x prints latencies in µs, 3.x in ns (`clat_ns` …): the unit follows the key names; "
              "everything is stored in µs. `runs.meta.job_times` keeps what places a job in time."),

    Table("computed_columns", "columns the user defines as SQL over a table's columns (not per run)", (
        _c("table_name", _V, "the table the column belongs to", key=True),
        _c("name", _V, "the column's name", key=True),
        _c("expression", _V, "SQL over the table's columns", not_null=True),
        _c("created_at", "TIMESTAMP", "when it was defined", not_null=True),
    ), written_by="the data grid's computed columns"),

    Table("iozone_results", "one row per IOzone result (table cell, report cell or throughput block)", (
        _RUN_ID,
        _c("mode", _V, "`auto` (`-a`/`-A`), `single` (one file and record size without `-a`), `throughput` "
           "(`-t`, `-l`/`-u`)", not_null=True),
        _c("source", _V, "`table` (the text table), `report` (a `-R` block, stored only where the table does not "
           "already hold the value), `throughput` (a `Children see throughput` block)", not_null=True),
        _c("test", _V, "`write`, `rewrite`, `read`, `reread`, `random_read`, `random_write`, `backward_read`, "
           "`record_rewrite`, `stride_read`, `fwrite`, `frewrite`, `fread`, `freread`, `pwrite`, `repwrite`, "
           "`pread`, `repread`, `pwritev`, `repwritev`, `preadv`, `repreadv`, `mixed`", not_null=True),
        _c("label", _V, "as printed (`random read`, `initial writers`, `Writer report`, `Initial write`)"),
        _c("file_kb", "BIGINT", "file size (per process in throughput mode); NULL where the file does not say",
           "kB"),
        _c("record_kb", "BIGINT", "record size; NULL where the file does not say", "kB"),
        _c("threads", _I, "processes/threads (1 for the table)"),
        _c("unit", _V, "`kB/s` (IOzone's default; old builds say `Kbytes/sec`), `ops/s` (`-O`), `us/op` (`-N`)",
           not_null=True),
        _c("kb_s", _D, "the result when its unit is kB/s (kB = 1024 bytes)", "kB/s"),
        _c("ops_s", _D, "the result when its unit is ops/s", "ops/s"),
        _c("us_per_op", _D, "the result when its unit is µs/op", "µs/op"),
        _c("parent", _D, "throughput mode: parent sees (children see = the result)", "row's unit"),
        *_many("min_proc max_proc avg_proc", _D, "throughput mode: min/max/avg throughput per process",
               "row's unit"),
        _c("min_xfer", _D, "throughput mode: min xfer", "kB (ops with `-O`)"),
        _c("cpu_wall_s", _D, "`-+u` CPU utilisation: wall time", "s"),
        _c("cpu_s", _D, "`-+u` CPU utilisation: CPU time", "s"),
        _c("cpu_pct", _D, "`-+u` CPU utilisation", "%"),
        _c("page_cache_likely", _B, "data set (file size × threads) < RAM given with `--ram-gb`; `false` with "
           "O_DIRECT (`-I`); NULL when unknown"),
        _c("line", _I, "where the value is in the file"),
    ), per_run=True, written_by="import",
        notes="`runs.meta` holds what IOzone echoes: `version`, `build`, `command_line` and its parsed `options`, "
              "`settings` (the banner lines), `mode`, `unit`, file and record size limits, `o_direct`, "
              "`include_fsync`, `include_close`, `tests`, `threads`, `page_cache` (`likely`, `ram_gb`, `why`), and "
              "how many `-R` values were checked against the table or the throughput blocks."),

    Table("iomark_results", "one row per line of an IOmark results CSV (StormScope layout or a mapping)", (
        _RUN_ID,
        _c("row_idx", _I, "0-based data row", not_null=True),
        _c("workload", _V, "as given (e.g. `VDI-IOmark`)"),
        _c("phase", _V, "as given (e.g. `steady`)"),
        _c("users", _I, "simulated users"),
        _c("ts", "TIMESTAMP", "time of the row, when given"),
        _c("t_s", _D, "time of the row, when given", "s"),
        *_many("iops read_iops write_iops", _D, "I/O rate", "1/s"),
        _c("mb_s", _D, "throughput", "MB/s (MB = 2^20 bytes)"),
        _c("resp_avg_ms", _D, "average response time", "ms"),
        _c("resp_max_ms", _D, "maximum response time", "ms"),
        _c("pct_within_20ms", _D, "share of responses within 20 ms", "%"),
        _c("pct_within_50ms", _D, "share of responses within 50 ms", "%"),
        _c("passed", _B, "the run's pass/fail as stated"),
        _c("notes", _V, "as given"),
        _c("extra", "JSON", "the file's other columns, as text"),
        _c("line", _I, "the row's line in the file"),
    ), per_run=True, written_by="import"),

    Table("iometer_results", "one row per row of an Iometer `results.csv`", (
        _RUN_ID,
        _c("test_idx", _I, "result set (one per `'Results` section, 0-based)", not_null=True),
        _c("test_type", _V, "its test type"),
        _c("test_description", _V, "its test description"),
        _c("access_spec", _V, "access specification (a target row gets its worker's)"),
        _c("ts", "TIMESTAMP", "the time stamp after the result set's rows"),
        _c("row_type", _V, "`all`, `manager`, `processor`, `worker`, `disk`, `network`", not_null=True),
        *_many("manager worker target", _V, "where the row belongs (a disk row: its manager, worker and target "
               "name; a processor row: `CPU n`)"),
        *_many("managers workers disks", _I, "the counts Iometer prints"),
        *_many("iops read_iops write_iops", _D, "I/O rate", "1/s"),
        *_many("mb_s read_mb_s write_mb_s", _D, "`MBps` (before 2006), `MBps (Binary)` (1.1), `MiBps (Binary)` "
               "(newer)", "MB/s, MB = 2^20 bytes"),
        *_many("mb_s_decimal read_mb_s_decimal write_mb_s_decimal", _D, "`MBps (Decimal)` where the file has it",
               "MB/s, MB = 10^6 bytes"),
        _c("transactions_s", _D, "transactions per second", "1/s"),
        *_many("avg_resp_ms avg_read_resp_ms avg_write_resp_ms max_resp_ms max_read_resp_ms max_write_resp_ms",
               _D, "response time", "ms"),
        *_many(_IOMETER_TOTALS, "BIGINT", "totals"),
        _c("queue_depth", _I, "outstanding I/Os per target"),
        *_many(_IOMETER_CPU, _D, "CPU columns (manager and processor rows)", "%, 1/s"),
        _c("line", _I, "the row's line in the file"),
    ), per_run=True, written_by="import"),

    Table("hdparm_results", "one row per `hdparm -t` / `-T` measurement", (
        _RUN_ID,
        _c("device", _V, "as printed (`/dev/sda`, `/dev/LVMGROUP/VOLUME`)", not_null=True),
        _c("test", _V, "`cached` (`-T`: `Timing cached reads`, old `Timing buffer-cache reads`), `disk` (`-t`: "
           "`Timing buffered disk reads`)", not_null=True),
        _c("direct", _B, "`--direct` (`Timing O_DIRECT ... reads`)"),
        _c("run_idx", _I, "0-based repetition of this device and test in the file", not_null=True),
        _c("label", _V, "the wording as printed (NULL for a cache-test failure, which hdparm prints before its "
           "label)"),
        _c("mb", _D, "data read", "MB = 2^20 bytes"),
        _c("seconds", _D, "time taken", "s"),
        _c("mb_s", _D, "rate (`kB/sec`, under 1 MB/s, converted)", "MB/s"),
        _c("ok", _B, "`false` for a failed measurement", not_null=True),
        _c("error", _V, "hdparm's message for a failed measurement (`read() failed: Input/output error`)"),
        _c("line", _I, "the measurement's line in the file"),
    ), per_run=True, written_by="import"),

    Table("mappings", "saved column mappings for CSV/TSV results (not per run)", (
        _c("name", _V, "key", key=True),
        _c("kind", _V, "the target (`iomark`)", not_null=True),
        _c("spec", "JSON", "`columns`, `scale`, `constants`, `delimiter`, `decimal`, `skip_rows`, `description`",
           not_null=True),
        _c("created_at", "TIMESTAMP", "UTC", not_null=True),
        _c("updated_at", "TIMESTAMP", "UTC", not_null=True),
    ), written_by="`mapping save|delete`; used by `import --mapping NAME`"),

    Table("phases", "manual and saved automatic phases of a run", (
        _RUN_ID,
        _c("name", _V, "the phase's name (one per run)", not_null=True),
        _c("t_start_s", _D, "start on the analyses' time axis (since the start of the run's first analysed "
           "interval)", "s", not_null=True),
        _c("t_end_s", _D, "end, same axis", "s", not_null=True),
        _c("source", _V, "`manual`, or `auto` for a saved automatic split", not_null=True, default="'manual'"),
    ), per_run=True, written_by="`phase add|detect --save`; the Overlay's phase tools"),

    Table("markers", "named points in time of a run", (
        _RUN_ID,
        _c("name", _V, "the marker's name (one per run)", not_null=True),
        _c("t_s", _D, "time on the analyses' time axis (since the start of the run's first analysed interval)",
           "s", not_null=True),
    ), per_run=True, written_by="`marker add`; the Overlay's marker tools"),

    Table("clock_offsets", "a run's clock put right against the other runs' (one row per run at most)", (
        _RUN_ID,
        _c("offset_s", _D, "seconds added to the run's clock to put it on the common clock (+37 = its clock is "
           "37 s behind)", "s", not_null=True),
        _c("reference_run_id", _I, "the run whose clock it was matched against (NULL: set by hand without one)"),
        _c("source", _V, "`estimated` (accepted from the match of the two runs' activity) or `manual`",
           not_null=True),
        _c("match", _D, "estimated: the correlation of the two runs' activity at that offset (0-1)"),
        _c("step_s", _D, "estimated: the common step the activities were compared on (the offset is good to about "
           "one step)", "s"),
        _c("set_at", "TIMESTAMP", "when it was set (UTC)", not_null=True),
    ), per_run=True, written_by="`clock --accept`, `run --clock-offset`; the window's One clock dialog",
        notes="Every view, question and report puts the run's times on the clock corrected by this offset."),

    Table("capture_plans", "what the customer is asked to capture, and how (not per run)", (
        _c("name", _V, "key: the plan's name (`plan`: the workspace's plan)", key=True),
        _c("spec", "JSON", "the plan: `systems` (`kind` linux, esxi or windows, `host`), `interval_s`, `storm_min`, "
           "`lead_min`, `tail_min`, `storm_start` (ISO, the systems' clock; null: not known), `histograms`, "
           "`reasons`, `notes`, `questions`", not_null=True),
        _c("created_at", "TIMESTAMP", "UTC", not_null=True),
    ), written_by="`plan --save`; the window's Capture plan dialog",
        notes="Each imported run is checked against it (app/analysis/capture_plan.py): the window's import messages, "
              "`plan --check` and the report's runs table."),

    Table("questions", "the questions a report answers (not per run)", (
        _c("question_id", _I, "key", key=True, default="nextval('question_id_seq')"),
        _c("position", _I, "1..n, the report's order", not_null=True),
        _c("kind", _V, "`compare`, `cap`, `response_time`, `sizing`, `storm_profile`", not_null=True),
        _c("title", _V, "NULL = generated from the parameters"),
        _c("params", "JSON", "the question's parameters, e.g. `{\"run_id\": 1, \"iops_cap\": 200.0, \"op\": "
           "\"total\", \"tolerance_pct\": 5.0, \"window_s\": 10.0}`; unset ones take their defaults",
           not_null=True),
        _c("created_at", "TIMESTAMP", "UTC", not_null=True),
    ), sequences=("question_id_seq",), written_by="`question add|edit|move|delete`; the Report questions panel",
        notes="Deleting a run keeps the questions that name it."),

    Table("report_templates", "report layouts and branding saved for reuse (not per run)", (
        _c("name", _V, "key", key=True),
        _c("options", "JSON", "the report options (title, customer, sections, caps, …; never a selection of runs)",
           not_null=True),
    ), written_by="`report --save-template NAME`; the report dialog's Save as template"),

    Table("series_devices", "derived at import: each run's distinct devices, and which the default series sums", (
        _RUN_ID,
        _c("device", _V, "as in `iostat_samples`", not_null=True),
        _c("is_group", _B, "as in `iostat_samples`", not_null=True),
        _c("layer", _V, "as in `iostat_samples`"),
        _c("summed", _B, "the default device choice (whole disks) sums it into `series_sums`", not_null=True),
    ), per_run=True, derived=True, written_by="import (and migration to schema 4); recomputed with `series_sums`",
        notes="One row per distinct (`device`, `is_group`, `layer`) of the run's `iostat_samples`."),

    Table("series_sums", "derived at import: per report, the sums of the default series (whole disks, every request)",
          (
        _RUN_ID,
        _c("sample_idx", _I, "as in `iostat_samples`", not_null=True),
        _c("since_boot", _B, "as in `iostat_samples` (the sums of a report are per value of the flag)",
           not_null=True),
        _c("t_s", _D, "the report's time: the least `t_s` of its summed rows", "s"),
        _c("t_missing", _B, "a summed row has no `t_s`"),
        _c("ts", "TIMESTAMP", "the clock time printed with the report: the least `ts` of its summed rows"),
        *[_c(n, _D, what, unit) for n, what, unit in (
            ("iops", "requests: r/s + w/s + d/s + f/s of -x rows, `tps` of plain rows", "requests/s"),
            ("rd", "r/s of -x rows", "requests/s"), ("wr", "w/s of -x rows", "requests/s"),
            ("oth", "d/s + f/s of -x rows", "requests/s"),
            ("awn", "await × requests (per op where the file splits it)", "ms × requests/s"),
            ("awd", "the requests `awn` weighs", "requests/s"),
            ("rkb", "read", "kB/s"), ("wkb", "written (`-s`: written + discarded)", "kB/s"),
            ("kb", "read + written, else the `-s` total", "kB/s"),
            ("aw_sum", "sum of the awaits (a log without request counts)", "ms"))],
        *[_c(n, _B, what) for n, what in (
            ("have_rw", "every summed row is a -x row"), ("awa", "a summed row has a weighted await"),
            ("kba", "a summed row has a throughput"), ("any_x", "a summed row is a -x row"),
            ("any_p", "a summed row is a plain (`tps`) row"), ("rwa", "a summed row splits read and written kB"))],
        _c("aw_n", "BIGINT", "the awaits `aw_sum` adds"),
        _c("ops", _V, "the request columns counted in `iops` (`r,w,d,f`)", not_null=True),
        _c("sums_version", _I, "the version of the rules that made them; other versions are not used",
           not_null=True),
    ), per_run=True, derived=True,
        written_by="import (and migration to schema 4); recomputed when the interval or the first-report answer "
                   "is given",
        notes="Derived data: the sums the overlay, the analyses and the report read instead of aggregating every row "
              "of a run (`app/series_sums.py`). Each sum is over the summed devices' rows (`series_devices`), each "
              "value rounded to 12 decimals and added exactly. A report whose since-boot rows have no summed device "
              "has a row with NULL sums, and so has a gap report: one a summed device is missing from between its "
              "first and last report (missing, never the smaller sum of the others; `sums_version` 2). "
              "Not part of the Parquet export (docs/parquet.md)."),
)

TABLE: dict[str, Table] = {t.name: t for t in TABLES}


def create_statements() -> list[str]:
    """Every ``CREATE SEQUENCE`` / ``CREATE TABLE IF NOT EXISTS`` of the schema, in :data:`TABLES` order."""
    return [s for t in TABLES for s in t.create_statements()]


def frame_schema(table: str, columns: list[str] | tuple[str, ...] | None = None) -> dict[str, pl.DataType]:
    """The polars schema of the frames a parser yields for ``table``: ``columns`` in the given order (default: the
    table's columns but ``run_id``, which the workspace adds), each with its :attr:`Column.parse_dtype`."""
    t = TABLE[table]
    names = columns if columns is not None else [c for c in t.column_names if c != "run_id"]
    return {n: t.column(n).parse_dtype for n in names}


def stored_schema(table: str) -> dict[str, pl.DataType]:
    """The polars dtypes of a table's stored columns, in table order (frames are conformed to them)."""
    return {c.name: c.dtype for c in TABLE[table].columns}
