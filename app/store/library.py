"""The engagement library on disk or in a bucket: layout, manifests, atomic publishing and reading (no Qt).

A library is a folder (or an S3-compatible bucket prefix) of plain Parquet, hive-partitioned by kind and
engagement, that DuckDB, Spark or any Parquet reader reads as it is::

    LIBRARY.json                                      {"format": "stormscope-library", "schema_version": N}
    kind=runs/engagement=<id>/part-<sha16>.parquet    one row per run: the summary figures
    kind=answers/engagement=<id>/part-<sha16>.parquet one row per stored question: verdict and deciding numbers
    kind=samples/engagement=<id>/part-<sha16>.parquet optional: every run's interval series
    _manifests/<id>.json                              the engagement's manifest: what it is, and its files

**The manifest is the commit.** Publishing writes every Parquet file under ``_staging/`` first, moves each into
its partition (a rename: a file is whole or absent), and only then renames the manifest into ``_manifests/``. A
reader reads an engagement's files *as its manifest lists them* (names, sizes, sha256): files of a publish that
stopped half-way are never listed, so never read; they are reported ("half-published, left out") until the
next publish of that engagement completes it. A file's name holds its content's hash, so publishing the same
workspace again writes nothing new (idempotent), and a republished engagement replaces the manifest in one
rename before the old files are removed.

Versions: ``SCHEMA_VERSION`` is this StormScope's library schema. A manifest states its ``schema_version`` and
``readable_from`` (the oldest schema that reads it correctly). An older engagement is read (upgraded in memory,
never rewritten); a newer one is read when ``readable_from`` <= ours, else refused naming it; a library whose
LIBRARY.json is newer than ours is read but never written to.

Location: a local folder, or ``s3://bucket/prefix`` read through pyarrow's S3 filesystem with the credentials
of the usual AWS environment (``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN``,
``AWS_REGION``/``AWS_DEFAULT_REGION``, ``AWS_ENDPOINT_URL`` for an S3-compatible server): nothing is stored.
DuckDB's own ``httpfs`` extension is not used: it downloads from extensions.duckdb.org at first use, which this
machine (and many customer networks) cannot reach, and the PyPI package of it is built for another DuckDB.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from app.crashpoints import crash_point

SCHEMA_VERSION = 1
READABLE_FROM = 1  # the oldest library schema that reads what this StormScope writes
KINDS = ("runs", "answers", "samples")
LIBRARY_FILE = "LIBRARY.json"
MANIFESTS = "_manifests"
STAGING = "_staging"
LIBRARY_ENV = "STORMSCOPE_LIBRARY"  # the default library location of the window and the command line


class LibraryError(Exception):
    """The library cannot be read or written at all (not a library, a newer one to write to, no such folder)."""


@dataclass
class Refused:
    """An engagement (or a file of one) the library leaves out, and why -- in a customer's words."""

    engagement: str
    reason: str

    def __str__(self) -> str:
        return f"engagement {self.engagement}: {self.reason}"


@dataclass
class Library:
    """What a library holds: its good engagements' manifests and tables, and the entries it refused."""

    location: str
    schema_version: int | None
    manifests: dict[str, dict[str, Any]] = field(default_factory=dict)
    tables: dict[str, pa.Table] = field(default_factory=dict)  # kind -> every good engagement's rows
    refused: list[Refused] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def table(self, kind: str) -> pa.Table | None:
        return self.tables.get(kind)


# ---- where the library is --------------------------------------------------------------------------------
def _filesystem(location: str) -> tuple[pafs.FileSystem, str]:
    """The filesystem and base path of ``location`` (a folder, or s3://bucket/prefix with the environment's
    credentials and endpoint)."""
    if location.startswith("s3://"):
        kw: dict[str, Any] = {}
        endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
        if endpoint:
            kw["endpoint_override"] = endpoint
            if endpoint.startswith("http://"):
                kw["scheme"] = "http"
        region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
        if region:
            kw["region"] = region
        return pafs.S3FileSystem(**kw), location[len("s3://"):].rstrip("/")
    return pafs.LocalFileSystem(), str(Path(location).expanduser().resolve())


def _read_bytes(fs: pafs.FileSystem, path: str) -> bytes:
    with fs.open_input_stream(path) as f:
        return bytes(f.read())


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ---- writing ----------------------------------------------------------------------------------------------
def _parquet_bytes(table: pa.Table) -> bytes:
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd")
    return buf.getvalue()


def _fsync_write(path: Path, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def library_schema(root: Path) -> int | None:
    """The schema version LIBRARY.json states (None: no library here yet)."""
    p = root / LIBRARY_FILE
    if not p.exists():
        return None
    try:
        got = json.loads(p.read_text(encoding="utf-8"))
        return int(got["schema_version"])
    except (ValueError, KeyError, TypeError) as e:
        raise LibraryError(f"{p} is not a StormScope library description ({e})") from None


def write_engagement(location: str, manifest: dict[str, Any], tables: dict[str, pa.Table]) -> dict[str, Any]:
    """Publish one engagement atomically (see the module doc) into the local folder ``location``; returns the
    manifest as written (with its files). The reliability tests kill the process between the steps
    (app.crashpoints). Publishing into an object store: publish to a folder and copy it with the store's own tool
    (the user guide says how)."""
    if location.startswith("s3://"):
        raise LibraryError("publish into a local or shared folder; a bucket is filled by copying that folder "
                           "(see the user guide: sharing a library)")
    root = Path(location).expanduser().resolve()
    root.mkdir(parents=True, exist_ok=True)
    found = library_schema(root)
    if found is not None and found > SCHEMA_VERSION:
        raise LibraryError(f"the library {root} was made by a newer StormScope (library schema {found}, this one "
                           f"knows {SCHEMA_VERSION}): it is read, never written to by this version")
    if found is None:
        tmp = root / f"{LIBRARY_FILE}.{uuid.uuid4().hex}.tmp"
        _fsync_write(tmp, json.dumps({"format": "stormscope-library", "schema_version": SCHEMA_VERSION}).encode())
        os.replace(tmp, root / LIBRARY_FILE)
    eid = str(manifest["engagement"])
    staging = root / STAGING / f"{eid}-{uuid.uuid4().hex[:8]}"
    staging.mkdir(parents=True)
    files = []
    try:
        for kind, table in tables.items():
            if kind not in KINDS:
                raise ValueError(f"unknown library table kind {kind!r}")
            data = _parquet_bytes(table)
            sha = sha256_bytes(data)
            rel = f"kind={kind}/engagement={eid}/part-{sha[:16]}.parquet"
            _fsync_write(staging / f"{kind}.parquet", data)
            files.append({"kind": kind, "path": rel, "sha256": sha, "bytes": len(data), "rows": table.num_rows})
        crash_point("library-staged")
        for f in files:  # each file whole or absent in its partition; same content = same name: nothing to do
            target = root / f["path"]
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.exists() and sha256_bytes(target.read_bytes()) == f["sha256"]:
                continue  # a damaged copy of the same name is replaced
            os.replace(staging / f"{f['kind']}.parquet", target)
            crash_point("library-moved")
        out = {**manifest, "schema_version": SCHEMA_VERSION, "readable_from": READABLE_FROM, "files": files}
        mdir = root / MANIFESTS
        mdir.mkdir(exist_ok=True)
        old = _local_manifest(mdir / f"{eid}.json")
        if old is not None and _same(old, out):
            return old  # the same engagement with the same figures: the library is unchanged
        _fsync_write(staging / "manifest.json", json.dumps(out, indent=1, sort_keys=True, default=str).encode())
        crash_point("library-manifest")
        os.replace(staging / "manifest.json", mdir / f"{eid}.json")  # the commit
        keep = {f["path"] for f in files}
        for kind in KINDS:  # the replaced version's files, now listed by no manifest
            d = root / f"kind={kind}" / f"engagement={eid}"
            for p in d.glob("*.parquet") if d.exists() else []:
                if f"kind={kind}/engagement={eid}/{p.name}" not in keep:
                    p.unlink()
            if d.exists() and not any(d.iterdir()):
                d.rmdir()
        return out
    finally:
        shutil.rmtree(staging, ignore_errors=False)
        if staging.parent.exists() and not any(staging.parent.iterdir()):
            staging.parent.rmdir()


def _local_manifest(p: Path) -> dict[str, Any] | None:
    if not p.exists():
        return None
    try:
        got = json.loads(p.read_text(encoding="utf-8"))
    except ValueError:
        return None  # a damaged manifest is replaced by the new one
    return got if isinstance(got, dict) else None


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two manifests of the same content (the publication time aside)."""
    skip = {"published_at"}
    return {k: v for k, v in a.items() if k not in skip} == json.loads(json.dumps(
        {k: v for k, v in b.items() if k not in skip}, default=str))


# ---- reading ----------------------------------------------------------------------------------------------
def _upgrade(m: dict[str, Any]) -> dict[str, Any]:
    """A manifest of an older library schema as this version reads it (in memory; the file is never rewritten).
    Schema 1 is the first: nothing to upgrade yet."""
    return m


def _check_manifest(m: Any, eid: str) -> str | None:
    """Why a manifest cannot be read (None: it can)."""
    if not isinstance(m, dict):
        return "its manifest is not an object"
    for key in ("engagement", "schema_version", "files"):
        if key not in m:
            return f"its manifest has no {key!r}"
    if str(m["engagement"]) != eid:
        return f"its manifest names another engagement ({m['engagement']!r})"
    try:
        version = int(m["schema_version"])
        readable = int(m["readable_from"]) if "readable_from" in m else version
    except (TypeError, ValueError):
        return "its manifest's schema version is not a number"
    if version > SCHEMA_VERSION and readable > SCHEMA_VERSION:
        return (f"published by a newer StormScope (library schema {version}, readable from {readable}; this "
                f"version reads up to {SCHEMA_VERSION})")
    if not isinstance(m["files"], list) or not all(isinstance(f, dict) and {"kind", "path", "bytes"} <= set(f)
                                                   for f in m["files"]):
        return "its manifest's file list is damaged"
    for f in m["files"]:
        if not str(f["path"]).startswith(f"kind={f['kind']}/engagement={eid}/") or ".." in str(f["path"]):
            return f"its manifest lists a file outside the engagement ({f['path']!r})"
    return None


def read_library(location: str, kinds: tuple[str, ...] = ("runs",), verify: bool = False,
                 columns: list[str] | None = None) -> Library:
    """Every good engagement of the library at ``location`` with its ``kinds`` tables, and the refused entries
    (a damaged or newer manifest, a missing, truncated or unreadable file, a half-published engagement): the rest
    still answers. ``verify``: check every file's sha256 too (``library check``), not only its size. ``columns``:
    only these columns of each table (and the engagement), e.g. what a comparison needs."""
    fs, base = _filesystem(location)
    info = fs.get_file_info(base)
    if info.type != pafs.FileType.Directory and not location.startswith("s3://"):
        raise LibraryError(f"there is no library at {location}")
    lib = Library(location, None)
    try:
        desc = json.loads(_read_bytes(fs, f"{base}/{LIBRARY_FILE}"))
        lib.schema_version = int(desc["schema_version"])
    except FileNotFoundError:
        raise LibraryError(f"there is no library at {location} (no {LIBRARY_FILE})") from None
    except (ValueError, KeyError, TypeError) as e:
        raise LibraryError(f"{location}/{LIBRARY_FILE} is not a StormScope library description ({e})") from None
    if lib.schema_version > SCHEMA_VERSION:
        lib.notes.append(f"made by a newer StormScope (library schema {lib.schema_version}): read where compatible, "
                         "never written to by this version")
    listed = fs.get_file_info(pafs.FileSelector(f"{base}/{MANIFESTS}", allow_not_found=True))
    infos = [i for i in listed if i.type == pafs.FileType.File and i.base_name.endswith(".json")]
    for i in sorted(infos, key=lambda i: i.base_name):
        eid = i.base_name[:-len(".json")]
        try:
            m = json.loads(_read_bytes(fs, i.path))
        except (ValueError, UnicodeDecodeError) as e:
            lib.refused.append(Refused(eid, f"its manifest cannot be read ({e.__class__.__name__}): left out"))
            continue
        why = _check_manifest(m, eid)
        if why:
            lib.refused.append(Refused(eid, why + ": left out"))
            continue
        lib.manifests[eid] = _upgrade(m)
    _half_published(fs, base, lib)
    for kind in kinds:
        _read_kind(fs, base, lib, kind, verify, columns)
    return lib


def _half_published(fs: pafs.FileSystem, base: str, lib: Library) -> None:
    """Engagement partitions no manifest stands for: a publish that stopped before its commit."""
    seen: set[str] = set()
    for kind in KINDS:
        for d in fs.get_file_info(pafs.FileSelector(f"{base}/kind={kind}", allow_not_found=True)):
            if d.type == pafs.FileType.Directory and d.base_name.startswith("engagement="):
                seen.add(d.base_name[len("engagement="):])
    refused = {r.engagement for r in lib.refused}
    for eid in sorted(seen - set(lib.manifests) - refused):
        lib.refused.append(Refused(eid, "half-published (its files are there, its manifest is not): left out until "
                                        "it is published again"))


def _read_kind(fs: pafs.FileSystem, base: str, lib: Library, kind: str, verify: bool,
               columns: list[str] | None) -> None:
    """The ``kind`` table of every good engagement: each file checked against its manifest (size, or sha256 with
    ``verify``), an engagement with a bad file refused whole."""
    wanted = [(eid, f) for eid, m in lib.manifests.items() for f in m["files"] if f["kind"] == kind]
    if not wanted:
        return
    infos = fs.get_file_info([f"{base}/{f['path']}" for _e, f in wanted])
    bad: dict[str, str] = {}
    good: list[tuple[str, str]] = []
    for (eid, f), i in zip(wanted, infos):
        if i.type != pafs.FileType.File:
            bad[eid] = f"its file {f['path']} is missing"
        elif i.size != int(f["bytes"]):
            bad[eid] = f"its file {f['path']} has {i.size:,} bytes, its manifest says {int(f['bytes']):,} (damaged)"
        else:
            good.append((eid, i.path))
    if verify:
        for eid, path in list(good):
            f = next(x for e, x in wanted if e == eid and path.endswith(x["path"]))
            if sha256_bytes(_read_bytes(fs, path)) != f.get("sha256"):
                bad[eid] = f"its file {f['path']} does not match its manifest's checksum (damaged)"
    good = [(e, p) for e, p in good if e not in bad]
    # the cache's key of a file: its engagement and its checksum (two engagements may hold the same bytes)
    key = {e: f"{e}:{f.get('sha256') or ''}" for e, f in wanted}
    cached = None if verify else _cache_read(base, kind)
    have = set(cached.column("_sha").to_pylist()) if cached is not None else set()
    fresh = [(e, p) for e, p in good if key[e].endswith(":") or key[e] not in have]
    table = _read_files(fs, base, kind, fresh, bad) if fresh else None
    if table is not None:
        table = table.append_column("_sha", pa.array([key[e] for e in table.column("engagement").to_pylist()],
                                                     pa.string()))
    keep = {key[e] for e, _p in good if e not in bad}
    parts = [t for t in (cached.filter(pc.is_in(cached.column("_sha"), pa.array(sorted(keep), pa.string())))
                         if cached is not None else None, table) if t is not None and t.num_rows]
    whole = pa.concat_tables(parts, promote_options="permissive") if parts else None
    if not verify and whole is not None and (fresh or len(have - keep)):
        _cache_write(base, kind, whole)
    if whole is not None:
        whole = whole.drop_columns(["_sha"])
        if columns is not None:
            whole = whole.select([c for c in dict.fromkeys([*columns, "engagement"]) if c in whole.column_names])
    table = whole
    for eid, why in bad.items():
        lib.refused.append(Refused(eid, why + ": left out"))
        lib.manifests.pop(eid, None)
    if table is not None:
        lib.tables[kind] = table


def _read_files(fs: pafs.FileSystem, base: str, kind: str, good: list[tuple[str, str]],
                bad: dict[str, str]) -> pa.Table | None:
    """The listed files read together; a file no reader can read is looked for file by file (named in ``bad``)
    and the others read."""
    table = _read_all(fs, good, None)
    if table is not None:
        return table
    for e, p in good:
        try:
            pq.read_table(p, filesystem=fs, partitioning=None)
        except (pa.ArrowInvalid, OSError) as err:
            bad[e] = f"its file {p[len(base) + 1:]} cannot be read as Parquet ({str(err).splitlines()[0]})"
    good = [(e, p) for e, p in good if e not in bad]
    table = _read_all(fs, good, None, local_engine=False) if good else None
    if table is None and good:
        raise LibraryError(f"the {kind} files of {base} cannot be read together (their columns disagree): run the "
                           "library check")
    return table


# ---- the reading cache -------------------------------------------------------------------------------------
# A library's table as last read, on this computer (never in the library, never shared): the rows of each file by
# the sha256 its manifest gives, so a file is read again only when a manifest lists a new one. Reading 1,000 small
# files takes seconds; the cache, one file. A file's size is still checked on every read; its checksum by the
# library check, which never uses the cache.
CACHE_ENV = "STORMSCOPE_LIBRARY_CACHE"


def _cache_file(base: str, kind: str) -> Path:
    root = os.environ.get(CACHE_ENV) or os.path.join(os.environ.get("XDG_CACHE_HOME") or
                                                     os.path.expanduser("~/.cache"), "stormscope", "library")
    return Path(root) / f"{sha256_bytes(base.encode())[:16]}-{kind}.parquet"


def _cache_read(base: str, kind: str) -> pa.Table | None:
    p = _cache_file(base, kind)
    try:
        t = pq.read_table(p, partitioning=None)
    except (OSError, pa.ArrowInvalid):  # none yet, or damaged: read from the library (and written again)
        return None
    return t if "_sha" in t.column_names and "engagement" in t.column_names else None


def _cache_write(base: str, kind: str, table: pa.Table) -> None:
    p = _cache_file(base, kind)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_name(f"{p.name}.{uuid.uuid4().hex}.tmp")
        pq.write_table(table, tmp)
        os.replace(tmp, p)
    except OSError:  # a cache that cannot be written (a read-only home) only makes the next read slower
        return


def _read_all(fs: pafs.FileSystem, good: list[tuple[str, str]], columns: list[str] | None,
              local_engine: bool = True) -> pa.Table | None:
    """Every listed file in one read, with the engagement column of its path (None: one of them cannot be read).
    A local library is read by DuckDB (one read_parquet of the listed files, hive columns from the paths: 1,000
    small files in a fraction of a second, where one pyarrow read per file took seconds); a bucket through
    pyarrow's S3 filesystem, file by file. Columns a file does not have (an older schema's) are null."""
    if local_engine and isinstance(fs, pafs.LocalFileSystem):
        import duckdb

        want = "*" if columns is None else ", ".join(f'"{c}"' for c in dict.fromkeys([*columns, "engagement"]))
        from app.safe_open import connect

        # under the safe-open policy, like every connection StormScope makes: in memory, reading only the
        # library's folder, its configuration locked; the file names are a parameter (a name with a quote in a
        # received library can never become SQL)
        paths = [p for _e, p in good]
        folder = os.path.commonpath([os.path.dirname(p) for p in paths])
        con = connect(":memory:", read_only=False, allowed_dirs=[folder], check=False)
        try:
            return con.sql(f"SELECT {want} FROM read_parquet(?, hive_partitioning = true, union_by_name = true)",
                           params=[paths]).to_arrow_table().drop_columns([c for c in ("kind",) if columns is None])
        except duckdb.Error:
            return None
        finally:
            con.close()
    try:
        parts = [_with_engagement(pq.read_table(p, filesystem=fs, partitioning=None), e) for e, p in good]
    except (pa.ArrowInvalid, OSError):
        return None
    t = pa.concat_tables(parts, promote_options="permissive")
    if columns is not None:
        t = t.select([c for c in dict.fromkeys([*columns, "engagement"]) if c in t.column_names])
    return t


def _with_engagement(t: pa.Table, eid: str) -> pa.Table:
    """A file's rows with the engagement column its partition names (the hive layout's value, as DuckDB and Spark
    read it)."""
    if "engagement" in t.column_names:
        t = t.drop_columns(["engagement"])
    return t.append_column("engagement", pa.array([eid] * t.num_rows, pa.string()))


def manifest_paths(lib: Library, kind: str) -> list[str]:
    """The files of ``kind`` the library's good manifests list (relative to its root): what Spark reads."""
    return [f["path"] for m in lib.manifests.values() for f in m["files"] if f["kind"] == kind]


def now_utc() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()
