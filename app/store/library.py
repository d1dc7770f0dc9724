"""The engagement library on disk or in a bucket: layout, manifests, atomic publishing and reading (no Qt).

A library is a folder (or an S3-compatible bucket prefix) of plain Parquet, hive-partitioned by kind and
engagement, that DuckDB, Spark or any Parquet reader reads as it is::

    LIBRARY.json                                      {"format": "stormscope-library", "schema_version": N}
    kind=runs/engagement=<id>/part-<sha16>.parquet    one row per run: the summary figures
    kind=answers/engagement=<id>/part-<sha16>.parquet one row per stored question: verdict and deciding numbers
    kind=samples/engagement=<id>/part-<sha16>.parquet optional: every run's interval series
    _manifests/<id>.json                              the engagement's manifest: what it is, and its files
    _index/INDEX.json, _index/runs-<sha16>.parquet    the library's index: every engagement's runs rows in one file

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

**The index** (``_index/``, ignored by hive readers and Spark: a leading underscore) makes a comparison read one
file instead of one per engagement (a thousand engagements: a fraction of a second instead of several seconds). Each
publish rewrites it after its engagement is committed: the runs rows of every readable engagement, each with its
manifest's sha256 and its runs file's, written whole under a content-named file, then ``INDEX.json`` (naming that
file, its size and sha256) renamed into place. The index is a shortcut, never the truth: a reader still lists and
reads every manifest and checks every listed file's size, and takes an engagement's rows from the index only when
its manifest's sha256 and its runs file's are the ones the index was made from. An engagement the index does not
hold (published by an older StormScope, or at the same time as another publish that rewrote the index last) or
holds for another manifest is read from its own files, named; index rows of an engagement no longer in the library
are not used, named; a damaged index is not used at all, named, and every engagement is read from its files.
``index_version``/``index_readable_from`` in INDEX.json version it like a manifest: a newer index is never rewritten.

Location: a local folder, or ``s3://bucket/prefix`` read through pyarrow's S3 filesystem with the credentials
of the usual AWS environment (``AWS_ACCESS_KEY_ID``, ``AWS_SECRET_ACCESS_KEY``, ``AWS_SESSION_TOKEN``,
``AWS_REGION``/``AWS_DEFAULT_REGION``, ``AWS_ENDPOINT_URL`` for an S3-compatible server): nothing is stored.
DuckDB's own ``httpfs`` extension is not used: it downloads from extensions.duckdb.org at first use, which this
machine (and many customer networks) cannot reach, and the PyPI package of it is built for another DuckDB.
"""

from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import shutil
import uuid
from collections.abc import Mapping
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
INDEX = "_index"
INDEX_FILE = "INDEX.json"
INDEX_VERSION = 1
INDEX_READABLE_FROM = 1
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
    digests: dict[str, str] = field(default_factory=dict)  # engagement -> its manifest's sha256
    index_notes: list[str] = field(default_factory=list)  # how the index served this read (not the answer's)
    indexed: int = 0  # engagements the index is current for
    index_rows: int = 0  # engagements whose runs rows came from the index (the others: the cache or their files)

    def table(self, kind: str) -> pa.Table | None:
        return self.tables.get(kind)

    def files(self, kind: str) -> list[tuple[str, Mapping[str, Any]]]:
        """(engagement, its manifest's entry) of every good engagement's file of ``kind``."""
        return [(eid, f) for eid, m in self.manifests.items() for f in m["files"] if f["kind"] == kind]


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


def write_engagement(location: str, manifest: dict[str, Any], tables: dict[str, pa.Table], *,
                     index: bool = True) -> dict[str, Any]:
    """Publish one engagement atomically (see the module doc) into the local folder ``location``, then rewrite the
    library's index (``index``; False: leave it to a later :func:`write_index`, as a bulk load does); returns the
    manifest as written (with its files). The reliability tests kill the process between the steps
    (app.crashpoints). Publishing into an object store: publish to a folder and copy it with the store's own tool
    (the user guide says how)."""
    out = _write_engagement(location, manifest, tables)
    if index:
        write_index(location)
    return dict(out)


def _write_engagement(location: str, manifest: dict[str, Any], tables: dict[str, pa.Table]) -> Mapping[str, object]:
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
    _make_staging(staging)
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
        _remove_staging(staging)


def _remove_staging(staging: Path) -> None:
    """This publish's staging folder, and the shared one when no other publish uses it."""
    shutil.rmtree(staging, ignore_errors=False)
    try:
        staging.parent.rmdir()
    except FileNotFoundError:
        pass  # another publisher removed it first
    except OSError as e:
        if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise  # anything but another publisher's staging in it


def _make_staging(staging: Path) -> None:
    """This publish's own staging folder. Another publisher that just finished may remove the shared parent
    (empty for an instant) between its creation and ours: then it is made again, a bounded number of times."""
    for _attempt in range(3):
        staging.parent.mkdir(exist_ok=True)
        try:
            staging.mkdir()
            return
        except FileNotFoundError:
            continue
    staging.mkdir()  # a third removal in a row: the error tells which folder


def write_index(location: str) -> str:
    """Rewrite the index of the local library ``location`` from what it holds now (see the module doc); returns
    what was done, in a line. An index made by a newer StormScope is left as it is; one that already says the
    same is not rewritten (publishing again changes nothing)."""
    root = Path(location).expanduser().resolve()
    found = library_schema(root)
    if found is None:
        raise LibraryError(f"there is no library at {root}")
    if found > SCHEMA_VERSION:
        raise LibraryError(f"the library {root} was made by a newer StormScope (library schema {found}): its index "
                           "is never rewritten by this version")
    idx = root / INDEX
    current = _local_manifest(idx / INDEX_FILE)
    if current is not None:
        try:
            newer = int(current.get("index_version", 0)) > INDEX_VERSION
        except (TypeError, ValueError):
            newer = False  # a damaged description is replaced
        if newer:
            return "the library's index was made by a newer StormScope: left as it is"
    lib = read_library(str(root), kinds=("runs",), _cache=False)
    table = lib.table("runs")
    if table is None or table.num_rows == 0:
        return "the library holds no readable runs: no index written"
    runs_sha = {eid: f.get("sha256") for eid, f in lib.files("runs")}
    eids = table.column("engagement").to_pylist()
    table = table.append_column("_file_sha256", pa.array([runs_sha.get(e) for e in eids], pa.string()))
    table = table.append_column("_manifest_sha256", pa.array([lib.digests[e] for e in eids], pa.string()))
    data = _parquet_bytes(table.sort_by("engagement"))
    sha = sha256_bytes(data)
    name = f"runs-{sha[:16]}.parquet"
    previous = current.get("runs", {}).get("path") if current is not None and isinstance(current.get("runs"),
                                                                                         dict) else None
    if previous == f"{INDEX}/{name}" and (idx / name).exists() and current is not None and \
            current["runs"].get("sha256") == sha:
        return "the library's index is up to date"
    idx.mkdir(exist_ok=True)
    tmp = idx / f"{name}.{uuid.uuid4().hex}.tmp"
    _fsync_write(tmp, data)
    os.replace(tmp, idx / name)  # whole or absent
    desc = {"format": "stormscope-library-index", "index_version": INDEX_VERSION,
            "index_readable_from": INDEX_READABLE_FROM, "schema_version": SCHEMA_VERSION, "written_at": now_utc(),
            "runs": {"path": f"{INDEX}/{name}", "sha256": sha, "bytes": len(data), "rows": table.num_rows,
                     "engagements": len(set(eids))}}
    tmp = idx / f"{INDEX_FILE}.{uuid.uuid4().hex}.tmp"
    _fsync_write(tmp, json.dumps(desc, indent=1, sort_keys=True).encode())
    crash_point("library-index")
    os.replace(tmp, idx / INDEX_FILE)  # the index's commit
    keep = {name, previous.rsplit("/", 1)[-1] if previous else ""}  # the one a reader may be opening is kept
    for p in idx.glob("runs-*.parquet"):
        if p.name not in keep:
            p.unlink(missing_ok=True)
    return f"the library's index now holds {len(set(eids)):,} engagements"


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
                 columns: list[str] | None = None, *, use_index: bool = True, _cache: bool = True) -> Library:
    """Every good engagement of the library at ``location`` with its ``kinds`` tables, and the refused entries
    (a damaged or newer manifest, a missing, truncated or unreadable file, a half-published engagement): the rest
    still answers. ``verify``: check every file's sha256 too (``library check``), not only its size; the index
    and the reading cache are then not used. ``columns``: only these columns of each table (and the engagement),
    e.g. what a comparison needs. ``use_index``: take the runs rows from the library's index where it is current
    (False: from every engagement's own files, as an old library is read)."""
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
            raw = _read_bytes(fs, i.path)
            m = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as e:
            lib.refused.append(Refused(eid, f"its manifest cannot be read ({e.__class__.__name__}): left out"))
            continue
        why = _check_manifest(m, eid)
        if why:
            lib.refused.append(Refused(eid, why + ": left out"))
            continue
        lib.manifests[eid] = _upgrade(m)
        lib.digests[eid] = sha256_bytes(raw)
    _half_published(fs, base, lib)
    index = _read_index(fs, base, lib) if "runs" in kinds and use_index else None  # checked by verify too
    for kind in kinds:
        _read_kind(fs, base, lib, kind, verify, columns, index if kind == "runs" and not verify else None, _cache)
    return lib


def _named(eids: list[str], most: int = 10) -> str:
    """Engagements named in a line: the first ``most``, then how many more."""
    shown = ", ".join(eids[:most])
    return shown + (f" and {len(eids) - most:,} more" if len(eids) > most else "")


def _read_index(fs: pafs.FileSystem, base: str, lib: Library) -> pa.Table | None:
    """The index's runs rows of the engagements it is current for (with the reading cache's key column ``_sha``),
    each other case named in ``lib.index_notes`` (see the module doc); None: no usable index."""
    table = _load_index(fs, base, lib)
    return None if table is None else _current_rows(table, lib)


def _load_index(fs: pafs.FileSystem, base: str, lib: Library) -> pa.Table | None:
    """The index's table as written, checked against its description (None: none, or not usable, named)."""
    where = f"{INDEX}/{INDEX_FILE}"
    slow = "every engagement read from its own files"
    try:
        desc = json.loads(_read_bytes(fs, f"{base}/{where}"))
    except FileNotFoundError:
        lib.index_notes.append(f"the library has no index yet (made by an older StormScope): {slow}; the next "
                               "publish writes one")
        return None
    except (ValueError, UnicodeDecodeError, OSError) as e:
        lib.index_notes.append(f"the library's index {where} cannot be read ({e.__class__.__name__}): not used, "
                               f"{slow}")
        return None
    try:
        readable = int(desc.get("index_readable_from", desc["index_version"]))
        runs = desc["runs"]
        path, sha, size = str(runs["path"]), str(runs["sha256"]), int(runs["bytes"])
    except (AttributeError, KeyError, TypeError, ValueError) as e:
        lib.index_notes.append(f"the library's index {where} is damaged ({e.__class__.__name__}: {e}): not used, "
                               f"{slow}")
        return None
    if readable > INDEX_VERSION:
        lib.index_notes.append(f"the library's index was made by a newer StormScope (index readable from version "
                               f"{readable}, this one reads {INDEX_VERSION}): not used, {slow}")
        return None
    if not path.startswith(f"{INDEX}/") or ".." in path:
        lib.index_notes.append(f"the library's index {where} names a file outside the index ({path!r}): not used, "
                               f"{slow}")
        return None
    try:
        data = _read_bytes(fs, f"{base}/{path}")
    except FileNotFoundError:
        lib.index_notes.append(f"the library's index {path} is missing: not used, {slow}")
        return None
    if len(data) != size or sha256_bytes(data) != sha:
        lib.index_notes.append(f"the library's index {path} does not match its checksum (damaged): not used, {slow}")
        return None
    try:
        table = pq.read_table(pa.BufferReader(data), partitioning=None)
    except (pa.ArrowInvalid, OSError) as e:
        lib.index_notes.append(f"the library's index {path} cannot be read as Parquet ({str(e).splitlines()[0]}): "
                               f"not used, {slow}")
        return None
    need = {"engagement", "_file_sha256", "_manifest_sha256"}
    if not need <= set(table.column_names):
        lib.index_notes.append(f"the library's index {path} lacks the columns "
                               f"{', '.join(sorted(need - set(table.column_names)))} (damaged): not used, {slow}")
        return None
    return table


def _current_rows(table: pa.Table, lib: Library) -> pa.Table:
    """The index rows of the engagements whose manifest and runs file are the ones indexed; the others named."""
    made_from: dict[str, set[tuple[str, str]]] = {}
    for e, f, m in zip(*(table.column(c).to_pylist() for c in ("engagement", "_file_sha256", "_manifest_sha256"))):
        made_from.setdefault(str(e), set()).add((f, m))
    runs_sha = {eid: f.get("sha256") for eid, f in lib.files("runs")}
    refused = {r.engagement for r in lib.refused}
    gone = sorted(set(made_from) - set(lib.manifests) - refused)
    missing, changed, current = [], [], []
    for eid in sorted(runs_sha):
        got = made_from.get(eid)
        if got is None:
            missing.append(eid)
        elif got != {(runs_sha[eid], lib.digests[eid])}:
            changed.append(eid)
        else:
            current.append(eid)
    if missing:
        lib.index_notes.append(f"not in the library's index (published by an older StormScope, or while another "
                               f"publish rewrote the index), read from their own files: {_named(missing)}")
    if changed:
        lib.index_notes.append(f"changed since the library's index was written (their manifest is not the one "
                               f"indexed), read from their own files: {_named(changed)}")
    if gone:
        lib.index_notes.append(f"in the library's index but no longer in the library, their indexed rows not used: "
                               f"{_named(gone)}")
    lib.indexed = len(current)
    table = table.filter(pc.is_in(table.column("engagement"), pa.array(current, pa.string())))
    keys = [f"{e}:{runs_sha[e]}" for e in table.column("engagement").to_pylist()]
    return table.drop_columns(["_file_sha256", "_manifest_sha256"]).append_column("_sha", pa.array(keys, pa.string()))


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
               columns: list[str] | None, index: pa.Table | None = None, use_cache: bool = True) -> None:
    """The ``kind`` table of every good engagement: each file checked against its manifest (size, or sha256 with
    ``verify``), an engagement with a bad file refused whole. Its rows come from this computer's reading cache,
    else from the library's ``index`` (rows keyed as the cache's), else from the file itself."""
    wanted = lib.files(kind)
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
    cached = None if verify or not use_cache else _cache_read(base, kind)
    have = set(cached.column("_sha").to_pylist()) if cached is not None else set()
    wanted_keys = {key[e] for e, _p in good if not key[e].endswith(":")} - have
    indexed = None if index is None else index.filter(pc.is_in(index.column("_sha"),
                                                               pa.array(sorted(wanted_keys), pa.string())))
    have_index = set(indexed.column("_sha").to_pylist()) if indexed is not None else set()
    if have_index:
        _check_indexed(fs, [(e, p) for e, p in good if key[e] in have_index], dict(wanted), bad)
    fresh = [(e, p) for e, p in good if key[e].endswith(":") or (key[e] not in have and key[e] not in have_index)]
    table = _read_files(fs, base, kind, fresh, bad) if fresh else None
    if table is not None:
        table = table.append_column("_sha", pa.array([key[e] for e in table.column("engagement").to_pylist()],
                                                     pa.string()))
    keep = {key[e] for e, _p in good if e not in bad}
    keep_array = pa.array(sorted(keep), pa.string())
    parts = [t for t in (cached.filter(pc.is_in(cached.column("_sha"), keep_array)) if cached is not None else None,
                         indexed.filter(pc.is_in(indexed.column("_sha"), keep_array)) if indexed is not None else None,
                         table) if t is not None and t.num_rows]
    lib.index_rows += len({e for e, _p in good if key[e] in have_index and e not in bad})
    whole = pa.concat_tables(parts, promote_options="permissive") if parts else None
    if not verify and use_cache and whole is not None and (fresh or have_index or len(have - keep)):
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


def _check_indexed(fs: pafs.FileSystem, indexed: list[tuple[str, str]], file_of: Mapping[str, Mapping[str, Any]],
                   bad: dict[str, str]) -> None:
    """A row of the index stands for its file only while the file is that file: each one's sha256 checked (a
    thousand small files read and hashed: a tenth of what parsing them costs)."""
    for eid, path in indexed:
        f = file_of[eid]  # one file of a kind per engagement
        if sha256_bytes(_read_bytes(fs, path)) != f.get("sha256"):
            bad[eid] = f"its file {f['path']} does not match its manifest's checksum (damaged)"


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
    return [f["path"] for _eid, f in lib.files(kind)]


def now_utc() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()
