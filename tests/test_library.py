"""The engagement library (app.library.publish, app.store.library, app.analysis.library, ``main.py library``):
published figures are the analyses' own, publishing is idempotent and atomic (a publish killed half-way is never
visible), damaged and newer entries are refused by name while the rest answers, and the comparison places a storm
among comparable engagements. The captures are the repository's samples (sample_traces/README.md); the past
engagements compared against are synthetic: the real run's figures at varied scales, stated as such."""

import json
import os
import shutil
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from app.analysis import questions as Q
from app.analysis.library import engagement_id, percentile_of, run_figures
from app.analysis.storm import storm_report
from app.cli import main as cli_main
from app.crashpoints import LIBRARY_PHASES
from app.importer import import_file
from app.library.publish import publish
from app.store import library as L
from app.workspace import Workspace
from parsers.base import ImportOptions
from tests.conftest import ROOT, SAMPLES

FAST, SLOW = 1, 2


@pytest.fixture(autouse=True)
def _library_cache(tmp_path, monkeypatch):
    """The reading cache of these tests in their own folder (never the user's)."""
    monkeypatch.setenv("STORMSCOPE_LIBRARY_CACHE", str(tmp_path / "library-cache"))


def _make_ws(path):
    with Workspace(path) as ws:
        for f in ("storm_fast_iostat-xt.txt", "storm_slow_iostat-xt.txt"):
            r = import_file(ws, str(SAMPLES / f), ImportOptions(first_report="interval"))
            assert r.status == "imported", r.error
        Q.add_question(ws, Q.SizingQuestion(users=100, measured_run=FAST, vms=20))
        Q.add_question(ws, Q.CapQuestion(run_id=FAST, iops_cap=1000))


@pytest.fixture(scope="module")
def ws_path(tmp_path_factory):
    p = tmp_path_factory.mktemp("library") / "ws.duckdb"
    _make_ws(p)
    return p


def synthetic(root, template, n, seed=1, workload="boot_storm", hypervisor="vSphere", index=True):
    """``n`` synthetic engagements: ``template`` (a real run's figures) with IOPS, desktops and latency scaled
    (``index`` False: published as an older StormScope did, without rewriting the library's index)."""
    import random

    rnd = random.Random(seed)
    for i in range(n):
        k, d = rnd.uniform(0.5, 2.0), rnd.choice([10, 15, 20, 25, 30, 40])
        row = {**template, "run": "run 1", "desktops": d, "workload": workload, "hypervisor": hypervisor}
        for key in ("peak_iops", "plateau_iops"):
            row[key] = template[key] * k * d / 20
        row["peak_to_plateau"] = template["peak_to_plateau"] * rnd.uniform(0.9, 1.6)
        row["peak_iops_per_desktop"] = row["peak_iops"] / d
        row["plateau_iops_per_desktop"] = row["plateau_iops"] / d
        row["read_share"] = min(1.0, template["read_share"] * rnd.uniform(0.7, 1.3))
        row["mean_await_ms"] = template["mean_await_ms"] * rnd.uniform(0.5, 40)
        row.pop("started_at", None)
        eid = f"synthetic{seed:03d}x{i:05d}"
        L.write_engagement(str(root), {"engagement": eid, "synthetic": True, "workload": workload,
                                       "hypervisor": hypervisor, "desktops": d}, {"runs": pa.Table.from_pylist([row])},
                           index=index)


# ---- publishing -------------------------------------------------------------------------------------------
def test_published_figures_are_the_analyses_own(ws_path, tmp_path):
    lib = tmp_path / "lib"
    with Workspace(ws_path, read_only=True) as ws:
        res = publish(ws, str(lib), workload="boot_storm", hypervisor="vSphere")
        m = storm_report(ws, FAST, phases="none").run
        answers = [a for _sq, a in Q.answer_all(ws, {FAST: "run 1", SLOW: "run 2"})]
    got = L.read_library(str(lib), kinds=("runs", "answers"))
    assert got.refused == []
    assert list(got.manifests) == [res.engagement]
    rows = {r["run"]: r for r in got.table("runs").to_pylist()}
    fast = rows["run 1"]
    assert fast["peak_iops"] == m.peak_iops
    assert fast["plateau_iops"] == m.plateau_iops
    assert fast["desktops"] == 20  # the VMs of the sizing question measured on the run
    assert fast["peak_iops_per_desktop"] == m.peak_iops / 20
    assert fast["peak_to_plateau"] == m.peak_iops / m.plateau_iops
    assert fast["read_share"] == m.read_share
    assert fast["request_kb"] == m.mean_kbs / m.mean_iops
    assert fast["share_within_50ms"] is not None
    assert fast["latency_basis"].startswith("iostat await")
    assert rows["run 2"]["desktops"] is None
    assert rows["run 2"]["peak_iops_per_desktop"] is None
    ans = got.table("answers").to_pylist()
    assert [a["verdict"] for a in ans] == [a.verdict for a in answers]  # the cap verdict and the sizing answer
    assert [a["figure_values"] for a in ans] == [[f.value for f in a.figures] for a in answers]
    man = got.manifests[res.engagement]
    assert man["tools"] == ["iostat"]
    assert man["customer"] is None
    assert man["anonymised"] is True
    assert man["schema_version"] == L.SCHEMA_VERSION
    assert man["first_date"]


def test_anonymised_by_default_no_name_reaches_the_library(ws_path, tmp_path):
    lib = tmp_path / "lib"
    with Workspace(ws_path, read_only=True) as ws:
        publish(ws, str(lib), customer="Contoso Bank", samples=True)
        hosts = {r.host for r in ws.runs() if r.host}
    blob = b"".join(p.read_bytes() for p in lib.rglob("*") if p.is_file())
    for name in ("storm_fast", "storm_slow", "Contoso", *hosts):
        assert name.encode() not in blob, name
    with Workspace(ws_path, read_only=True) as ws:
        publish(ws, str(tmp_path / "named"), customer="Contoso Bank", anonymise=False)
    man = next((tmp_path / "named" / "_manifests").glob("*.json"))
    assert json.loads(man.read_text())["customer"] == "Contoso Bank"


def test_publishing_twice_is_one_engagement_and_writes_nothing(ws_path, tmp_path):
    lib = tmp_path / "lib"
    with Workspace(ws_path, read_only=True) as ws:
        first = publish(ws, str(lib), samples=True)
        files = {p: p.stat().st_mtime_ns for p in lib.rglob("*") if p.is_file()}
        again = publish(ws, str(lib), samples=True)
        assert again.unchanged
        assert again.engagement == first.engagement == engagement_id(ws)
    assert {p: p.stat().st_mtime_ns for p in lib.rglob("*") if p.is_file()} == files
    assert len(L.read_library(str(lib)).manifests) == 1
    assert not (lib / L.STAGING).exists()


def test_publishing_again_repairs_a_damaged_file(ws_path, tmp_path):
    lib = tmp_path / "lib"
    with Workspace(ws_path, read_only=True) as ws:
        publish(ws, str(lib))
        part = next((lib / "kind=runs").rglob("*.parquet"))
        good = part.read_bytes()
        part.write_bytes(b"z" * len(good))  # same size, other bytes
        assert L.read_library(str(lib), verify=True).refused
        publish(ws, str(lib))
    assert part.read_bytes() == good
    assert L.read_library(str(lib), verify=True).refused == []


def test_republished_with_other_figures_replaces_the_old_files(ws_path, tmp_path):
    lib = tmp_path / "lib"
    with Workspace(ws_path, read_only=True) as ws:
        publish(ws, str(lib), desktops=10)
        publish(ws, str(lib), desktops=40)
    parts = list((lib / "kind=runs").rglob("*.parquet"))
    assert len(parts) == 1
    rows = L.read_library(str(lib)).table("runs").to_pylist()
    assert {r["desktops"] for r in rows} == {40}


@pytest.mark.parametrize("phase", LIBRARY_PHASES)
def test_a_publish_killed_half_way_is_never_visible(ws_path, tmp_path, phase):
    """The process dies (SIGKILL) at each step of a publish: the library still answers with what it held, the
    half-published engagement is named and left out, and publishing again completes it."""
    lib = tmp_path / "lib"
    synthetic(lib, _template(ws_path), 3)
    code = ("import sys; from app.workspace import Workspace; from app.library.publish import publish\n"
            f"ws = Workspace({str(ws_path)!r}, read_only=True)\npublish(ws, {str(lib)!r})\n")
    env = {**os.environ, "STORMSCOPE_TEST_CRASH_AT": phase}
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert p.returncode == -9, p.stderr
    got = L.read_library(str(lib))
    assert len(got.manifests) == 3
    assert got.table("runs").num_rows == 3
    with Workspace(ws_path, read_only=True) as ws:
        eid = engagement_id(ws)
    assert eid not in got.manifests
    if phase != "library-staged":  # a file already in its partition: the entry is named as half-published
        assert [str(r) for r in got.refused] == [f"engagement {eid}: half-published (its files are there, its "
                                                 "manifest is not): left out until it is published again"]
    with Workspace(ws_path, read_only=True) as ws:
        publish(ws, str(lib))
    got = L.read_library(str(lib))
    assert got.refused == []
    assert eid in got.manifests
    assert len(got.manifests) == 4


def _template(ws_path):
    with Workspace(ws_path, read_only=True) as ws:
        return run_figures(ws, FAST, 20)


# ---- damaged and newer entries ------------------------------------------------------------------------------
def test_damaged_entries_are_refused_by_name_and_the_rest_answers(ws_path, tmp_path):
    lib = tmp_path / "lib"
    synthetic(lib, _template(ws_path), 5)
    parts = sorted((lib / "kind=runs").glob("engagement=*/*.parquet"))
    truncated = parts[0]
    truncated.write_bytes(truncated.read_bytes()[:100])
    garbled = parts[1]  # same size, other bytes: a reader finds it is not Parquet
    garbled.write_bytes(b"x" * garbled.stat().st_size)
    (lib / L.MANIFESTS / "synthetic001x00002.json").write_text("{ not json")
    for use_index in (False, True):  # from every file; from the library's index (each file's checksum checked)
        got = L.read_library(str(lib), use_index=use_index)
        refused = {r.engagement: r.reason for r in got.refused}
        assert set(refused) == {"synthetic001x00000", "synthetic001x00001", "synthetic001x00002"}
        assert "bytes, its manifest says" in refused["synthetic001x00000"]
        assert ("does not match its manifest's checksum" if use_index else "cannot be read as Parquet") in \
            refused["synthetic001x00001"]
        assert "its manifest cannot be read" in refused["synthetic001x00002"]
        assert sorted(got.manifests) == ["synthetic001x00003", "synthetic001x00004"]
        assert got.table("runs").num_rows == 2
        assert got.index_rows == (2 if use_index else 0)
        L._cache_file(str(lib.resolve()), "runs").unlink(missing_ok=True)


def test_check_names_a_file_whose_checksum_does_not_match(ws_path, tmp_path, capsys):
    lib = tmp_path / "lib"
    synthetic(lib, _template(ws_path), 2)
    part = sorted((lib / "kind=runs").glob("engagement=*/*.parquet"))[1]
    data = bytearray(part.read_bytes())
    data[len(data) // 2] ^= 0xFF
    part.write_bytes(bytes(data))
    assert cli_main(["library", "check", "--library", str(lib)]) == 1
    out = capsys.readouterr()
    assert "1 engagements readable" in out.out
    assert "refused: engagement synthetic001x00001: its file kind=runs/engagement=synthetic001x00001/" in out.err
    assert "checksum" in out.err


def test_a_newer_library_is_read_where_compatible_and_never_written(ws_path, tmp_path):
    lib = tmp_path / "lib"
    synthetic(lib, _template(ws_path), 2)
    for name, readable in (("synthetic001x00000", 1), ("synthetic001x00001", 2)):
        p = lib / L.MANIFESTS / f"{name}.json"
        m = json.loads(p.read_text())
        m.update(schema_version=2, readable_from=readable, a_later_field={"x": 1})
        p.write_text(json.dumps(m))
    (lib / L.LIBRARY_FILE).write_text(json.dumps({"format": "stormscope-library", "schema_version": 2}))
    before = {p: p.read_bytes() for p in lib.rglob("*") if p.is_file()}
    got = L.read_library(str(lib))
    assert list(got.manifests) == ["synthetic001x00000"]
    assert [str(r) for r in got.refused] == [
        "engagement synthetic001x00001: published by a newer StormScope (library schema 2, readable from 2; this "
        "version reads up to 1): left out"]
    assert got.notes
    assert "newer StormScope" in got.notes[0]
    with Workspace(ws_path, read_only=True) as ws, pytest.raises(L.LibraryError, match="never written to"):
        publish(ws, str(lib))
    assert {p: p.read_bytes() for p in lib.rglob("*") if p.is_file()} == before


# ---- comparing ----------------------------------------------------------------------------------------------
def test_compare_places_the_storm_among_comparable_engagements(ws_path, tmp_path):
    lib = tmp_path / "lib"
    template = _template(ws_path)
    synthetic(lib, template, 40)
    synthetic(lib, template, 10, seed=2, hypervisor="Hyper-V")  # another hypervisor: not comparable
    with Workspace(ws_path, read_only=True) as ws:
        a = Q.answer(ws, Q.LibraryQuestion(FAST, str(lib), workload="boot_storm", hypervisor="vSphere"))
    res = a.evidence.results[0]
    rows = [r for r in L.read_library(str(lib)).table("runs").to_pylist()
            if r["hypervisor"] == "vSphere" and 10 <= r["desktops"] <= 40]
    assert res.comparable_engagements == len(rows)
    assert res.engagements_in_library == 50
    per = next(m for m in res.metrics if m.key == "peak_iops_per_desktop")
    assert per.value == template["peak_iops_per_desktop"]
    assert per.percentile == percentile_of(per.value, [r["peak_iops_per_desktop"] for r in rows])
    assert sorted(per.peers) == sorted(r["peak_iops_per_desktop"] for r in rows)
    assert a.figures[0].text == f"peak IOPS per desktop 60.6 IOPS: {Q.ordinal(per.percentile)} percentile"
    assert (f"Compared with {len(rows)} comparable past engagements (the same workload (boot storm), the same "
            "hypervisor (vSphere) and 10 to 40 desktops) of the 50 in the library, storm_fast_iostat-xt's peak IOPS "
            f"per desktop is higher than {Q.fmt_pct(per.percentile / 100)} of their {len(rows)} runs; ") in a.reason
    assert "the same hypervisor (vSphere)" in a.reason
    assert "10 to 40 desktops" in a.reason


def test_the_engagement_itself_is_left_out_of_its_comparison(ws_path, tmp_path):
    lib = tmp_path / "lib"
    synthetic(lib, _template(ws_path), 4)
    with Workspace(ws_path, read_only=True) as ws:
        publish(ws, str(lib), workload="boot_storm", hypervisor="vSphere")
        a = Q.answer(ws, Q.LibraryQuestion(FAST, str(lib), workload="boot_storm", hypervisor="vSphere"))
    assert a.evidence.results[0].engagements_in_library == 5
    assert a.evidence.results[0].comparable_engagements == 4


def test_percentile_counts_ties_half():
    assert percentile_of(5, [1, 2, 5, 9]) == 62.5
    assert percentile_of(0, [1, 2]) == 0
    assert percentile_of(3, [1, 2]) == 100


def test_cli_add_and_compare(ws_path, tmp_path, capsys):
    lib = tmp_path / "lib"
    synthetic(lib, _template(ws_path), 12)
    assert cli_main(["library", "add", str(ws_path), "--library", str(lib), "--workload", "boot_storm",
                     "--hypervisor", "vSphere"]) == 0
    assert "published: 2 runs, 2 answers" in capsys.readouterr().out
    assert cli_main(["library", "add", str(ws_path), "--library", str(lib)]) == 0
    assert cli_main(["library", "compare", str(ws_path), "--library", str(lib), "--run", "1", "--workload",
                     "boot_storm", "--hypervisor", "vSphere"]) == 0
    out = capsys.readouterr().out
    assert "How does this engagement (storm_fast_iostat-xt) compare with the library?" in out
    assert "peak IOPS per desktop 60.6 IOPS: " in out
    assert "percentile" in out
    assert cli_main(["library", "compare", str(ws_path), "--run", "1"]) == 2  # no library named
    assert cli_main(["library", "check", "--library", str(tmp_path / "none")]) == 1
    assert cli_main(["library"]) == 2
    assert "choose an action: add, compare, check" in capsys.readouterr().err


def test_question_kind_from_the_command_line(ws_path, tmp_path, capsys):
    lib = tmp_path / "lib"
    synthetic(lib, _template(ws_path), 6)
    wsp = tmp_path / "ws.duckdb"
    _make_ws(wsp)
    assert cli_main(["question", "add", "library", "--run", "1", "--library", str(lib), "--workload", "boot_storm",
                     "-w", str(wsp)]) == 0
    assert cli_main(["question", "answer", "3", "-w", str(wsp)]) == 0
    out = capsys.readouterr().out
    assert "comparable past engagements (the same workload (boot storm) and 10 to 40 desktops)" in out
    assert "not filtered on the hypervisor (not stated)" in out


def test_report_section_shows_the_comparison(ws_path, tmp_path):
    from tests.reports.test_report import pdf_text

    lib = tmp_path / "lib"
    synthetic(lib, _template(ws_path), 20)
    wsp = tmp_path / "ws.duckdb"
    _make_ws(wsp)
    assert cli_main(["question", "add", "library", "--run", "1", "--library", str(lib), "--workload", "boot_storm",
                     "--hypervisor", "vSphere", "-w", str(wsp)]) == 0
    with Workspace(wsp, read_only=True) as ws:
        a = Q.answer(ws, Q.get_question(ws, 3))
    assert cli_main(["report", "-o", str(tmp_path / "r.pdf"), "-w", str(wsp)]) == 0
    text = " ".join(pdf_text(tmp_path / "r.pdf").split())
    res = a.evidence.results[0]
    assert f"This engagement among {res.comparable_engagements} comparable past engagements" in text
    per = res.metrics[0]
    assert (f"peak IOPS per desktop 60.6 IOPS {Q.ordinal(per.percentile)} {Q.fmt_value(per.median, 'IOPS')} "
            f"{len(per.peers)} {per.engagements}") in text
    assert a.figures[0].text in text


def test_the_reading_cache_follows_the_manifests(ws_path, tmp_path):
    """Read again, the library answers from this computer's cache (the same rows); a newly published engagement is
    read and added, a removed one is gone, a file whose size changed is refused; the check never uses the cache."""
    lib = tmp_path / "lib"
    synthetic(lib, _template(ws_path), 3)
    first = L.read_library(str(lib)).table("runs").sort_by("engagement")
    assert list((tmp_path / "library-cache").glob("*-runs.parquet"))
    assert L.read_library(str(lib)).table("runs").sort_by("engagement").equals(first)
    synthetic(lib, _template(ws_path), 1, seed=9)
    (lib / L.MANIFESTS / "synthetic001x00000.json").unlink()
    got = L.read_library(str(lib))
    assert sorted(got.table("runs").column("engagement").to_pylist()) == [
        "synthetic001x00001", "synthetic001x00002", "synthetic009x00000"]
    assert [r.engagement for r in got.refused] == ["synthetic001x00000"]  # its files without a manifest
    part = next((lib / "kind=runs" / "engagement=synthetic001x00001").glob("*.parquet"))
    part.write_bytes(b"y" * part.stat().st_size)  # same size: the cache still answers, the check refuses it
    assert "synthetic001x00001" in L.read_library(str(lib)).manifests
    checked = L.read_library(str(lib), verify=True)
    assert "synthetic001x00001" not in checked.manifests
    part.write_bytes(b"y" * 10)
    assert "synthetic001x00001" not in L.read_library(str(lib)).manifests


def test_two_engagements_with_the_same_bytes_are_both_read(ws_path, tmp_path):
    """The cache keys a file by its engagement and its checksum: identical figures under two engagements are two
    engagements, on the first read and on every later one."""
    lib = tmp_path / "lib"
    row = {k: v for k, v in _template(ws_path).items() if k != "started_at"}
    L.write_engagement(str(lib), {"engagement": "same1"}, {"runs": pa.Table.from_pylist([row])})
    assert L.read_library(str(lib)).table("runs").column("engagement").to_pylist() == ["same1"]  # now cached
    L.write_engagement(str(lib), {"engagement": "same2"}, {"runs": pa.Table.from_pylist([row])})
    for _ in range(2):
        assert sorted(L.read_library(str(lib)).table("runs").column("engagement").to_pylist()) == ["same1", "same2"]


# ---- the library's index ------------------------------------------------------------------------------------
COMPARED_COLUMNS = ["workload", "hypervisor", "desktops", "peak_iops_per_desktop", "peak_to_plateau", "read_share",
                    "mean_await_ms"]


def _rows(lib, **kw):
    """The runs rows as a comparison reads them (no reading cache: each read as a first one on this computer)."""
    got = L.read_library(str(lib), columns=COMPARED_COLUMNS, _cache=False, **kw)
    rows = sorted(got.table("runs").to_pylist(), key=lambda r: json.dumps(r, sort_keys=True, default=str))
    return got, rows


def _index_agrees(lib):
    """The library read through its index and from every file: the same rows, the same engagements refused."""
    fast, rows = _rows(lib)
    slow, slow_rows = _rows(lib, use_index=False)
    assert rows == slow_rows
    assert sorted(fast.manifests) == sorted(slow.manifests)
    assert [str(r) for r in fast.refused] == [str(r) for r in slow.refused]
    return fast


def test_a_publish_writes_the_index_and_a_comparison_reads_it(ws_path, tmp_path):
    lib = tmp_path / "lib"
    synthetic(lib, _template(ws_path), 4)
    desc = json.loads((lib / L.INDEX / L.INDEX_FILE).read_text())
    assert desc["runs"]["engagements"] == 4
    assert (lib / desc["runs"]["path"]).exists()
    got = _index_agrees(lib)
    assert (got.indexed, got.index_rows, got.index_notes) == (4, 4, [])
    # publishing the same engagement again changes nothing, the index neither
    before = sorted(p.name for p in (lib / L.INDEX).iterdir())
    m = json.loads((lib / L.MANIFESTS / "synthetic001x00000.json").read_text())
    runs = pq.read_table(lib / m["files"][0]["path"], partitioning=None)
    L.write_engagement(str(lib), {k: m[k] for k in ("engagement", "synthetic", "workload", "hypervisor",
                                                   "desktops")}, {"runs": runs})
    assert sorted(p.name for p in (lib / L.INDEX).iterdir()) == before
    assert json.loads((lib / L.INDEX / L.INDEX_FILE).read_text()) == desc
    # the hive reading of the partitions (DuckDB, Spark) never meets the index
    import duckdb

    n = duckdb.sql(f"SELECT count(*) FROM read_parquet('{lib}/kind=runs/*/*.parquet', hive_partitioning = true)")
    assert n.fetchall()[0][0] == 4


def test_an_old_library_without_an_index_answers_the_same(ws_path, tmp_path):
    lib = tmp_path / "lib"
    synthetic(lib, _template(ws_path), 3, index=False)
    assert not (lib / L.INDEX).exists()
    got = _index_agrees(lib)
    assert got.index_rows == 0
    assert got.index_notes == ["the library has no index yet (made by an older StormScope): every engagement read "
                               "from its own files; the next publish writes one"]
    assert L.write_index(str(lib)) == "the library's index now holds 3 engagements"
    assert _index_agrees(lib).index_rows == 3


def _garble(p):
    data = bytearray(p.read_bytes())
    data[len(data) // 2] ^= 0xFF
    p.write_bytes(bytes(data))


@pytest.mark.parametrize(("damage", "line"), [
    ("parquet", "the library's index _index/runs-{sha}.parquet does not match its checksum (damaged): not used, "
                "every engagement read from its own files"),
    ("truncated", "the library's index _index/runs-{sha}.parquet does not match its checksum (damaged): not used, "
                  "every engagement read from its own files"),
    ("missing", "the library's index _index/runs-{sha}.parquet is missing: not used, every engagement read from its "
                "own files"),
    ("description", "the library's index _index/INDEX.json cannot be read (JSONDecodeError): not used, every "
                    "engagement read from its own files"),
    ("no-runs", "the library's index _index/INDEX.json is damaged (KeyError: 'runs'): not used, every engagement "
                "read from its own files"),
])
def test_a_damaged_index_is_refused_by_name_and_the_library_answers(ws_path, tmp_path, damage, line):
    lib = tmp_path / "lib"
    synthetic(lib, _template(ws_path), 4)
    desc_p = lib / L.INDEX / L.INDEX_FILE
    desc = json.loads(desc_p.read_text())
    part = lib / desc["runs"]["path"]
    if damage == "parquet":
        _garble(part)
    elif damage == "truncated":
        part.write_bytes(part.read_bytes()[:200])
    elif damage == "missing":
        part.unlink()
    elif damage == "description":
        desc_p.write_text(desc_p.read_text()[:40])
    elif damage == "no-runs":
        desc_p.write_text(json.dumps({k: v for k, v in desc.items() if k != "runs"}))
    got = _index_agrees(lib)
    assert got.index_rows == 0
    assert got.refused == []
    assert got.index_notes == [line.format(sha=desc["runs"]["sha256"][:16])]
    assert len(got.manifests) == 4
    # the next publish writes a good index again
    synthetic(lib, _template(ws_path), 1, seed=5)
    got = _index_agrees(lib)
    assert (got.index_rows, got.index_notes) == (5, [])


def test_a_stale_index_answers_the_same_and_names_each_engagement(ws_path, tmp_path):
    """Published without rewriting the index (an older StormScope, or a publish that lost the race to write it),
    withdrawn, republished with other figures: each read from its files or left out, named; the rest from the
    index."""
    lib = tmp_path / "lib"
    template = _template(ws_path)
    synthetic(lib, template, 5)
    synthetic(lib, template, 2, seed=7, index=False)  # added
    for kind_dir in (lib / "kind=runs").glob("engagement=synthetic001x00000"):  # withdrawn
        shutil.rmtree(kind_dir)
    (lib / L.MANIFESTS / "synthetic001x00000.json").unlink()
    m_p = lib / L.MANIFESTS / "synthetic001x00001.json"  # republished with other figures, index not rewritten
    m = json.loads(m_p.read_text())
    other = {**{k: v for k, v in template.items() if k != "started_at"}, "run": "run 1", "desktops": 30,
             "workload": "boot_storm", "hypervisor": "vSphere", "peak_iops_per_desktop": 999.0}
    L.write_engagement(str(lib), {k: m[k] for k in ("engagement", "synthetic", "workload", "hypervisor")} |
                       {"desktops": 30}, {"runs": pa.Table.from_pylist([other])}, index=False)
    (lib / L.MANIFESTS / "synthetic001x00002.json").write_text(  # the manifest alone edited: its digest changed
        json.dumps(json.loads((lib / L.MANIFESTS / "synthetic001x00002.json").read_text()) | {"desktops": 11}))
    got = _index_agrees(lib)
    assert sorted(got.manifests) == ["synthetic001x00001", "synthetic001x00002", "synthetic001x00003",
                                     "synthetic001x00004", "synthetic007x00000", "synthetic007x00001"]
    assert got.index_rows == 2
    assert got.index_notes == [
        "not in the library's index (published by an older StormScope, or while another publish rewrote the "
        "index), read from their own files: synthetic007x00000, synthetic007x00001",
        "changed since the library's index was written (their manifest is not the one indexed), read from their "
        "own files: synthetic001x00001, synthetic001x00002",
        "in the library's index but no longer in the library, their indexed rows not used: synthetic001x00000"]
    _got, rows = _rows(lib)
    assert [r["peak_iops_per_desktop"] for r in rows if r["engagement"] == "synthetic001x00001"] == [999.0]
    L.write_index(str(lib))
    got = _index_agrees(lib)
    assert (got.index_rows, got.index_notes) == (6, [])


def test_an_index_of_a_newer_stormscope_is_read_around_and_never_rewritten(ws_path, tmp_path):
    lib = tmp_path / "lib"
    synthetic(lib, _template(ws_path), 3)
    desc_p = lib / L.INDEX / L.INDEX_FILE
    newer = json.loads(desc_p.read_text()) | {"index_version": 2, "index_readable_from": 2}
    desc_p.write_text(json.dumps(newer))
    got = _index_agrees(lib)
    assert got.index_notes == ["the library's index was made by a newer StormScope (index readable from version "
                               "2, this one reads 1): not used, every engagement read from its own files"]
    files = sorted(p.name for p in (lib / L.INDEX).iterdir())
    synthetic(lib, _template(ws_path), 1, seed=3)  # a publish leaves the newer index as it is
    assert json.loads(desc_p.read_text()) == newer
    assert sorted(p.name for p in (lib / L.INDEX).iterdir()) == files
    assert len(_index_agrees(lib).manifests) == 4


def test_a_publish_killed_before_its_index_is_in_the_answer(ws_path, tmp_path):
    """Killed after its engagement's commit, before the index's: the engagement is in the library (read from its
    files, named), the index it left behind is never read half-written."""
    lib = tmp_path / "lib"
    synthetic(lib, _template(ws_path), 3)
    code = ("import sys; from app.workspace import Workspace; from app.library.publish import publish\n"
            f"ws = Workspace({str(ws_path)!r}, read_only=True)\npublish(ws, {str(lib)!r})\n")
    env = {**os.environ, "STORMSCOPE_TEST_CRASH_AT": "library-index"}
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
    assert p.returncode == -9, p.stderr
    with Workspace(ws_path, read_only=True) as ws:
        eid = engagement_id(ws)
    got = _index_agrees(lib)
    assert eid in got.manifests
    assert len(got.manifests) == 4
    assert got.index_rows == 3
    assert got.index_notes == [f"not in the library's index (published by an older StormScope, or while another "
                               f"publish rewrote the index), read from their own files: {eid}"]


def test_two_publishers_at_once_lose_no_engagement(ws_path, tmp_path):
    """Two processes publish into one library at the same time: whichever index is written last, every engagement
    of both is in the answer, with the figures read from the files."""
    lib = tmp_path / "lib"
    template = _template(ws_path)
    synthetic(lib, template, 2)
    (tmp_path / "template.json").write_text(json.dumps({k: v for k, v in template.items() if k != "started_at"}))
    code = ("import json, sys; sys.path.insert(0, '.'); from tests.test_library import synthetic\n"
            f"synthetic({str(lib)!r}, json.loads(open({str(tmp_path / 'template.json')!r}).read()), 6, "
            "seed=int(sys.argv[1]))\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(seed)], cwd=ROOT, stderr=subprocess.PIPE, text=True)
             for seed in (11, 12)]
    for p in procs:
        _out, err = p.communicate()
        assert p.returncode == 0, err
    got = _index_agrees(lib)
    assert len(got.manifests) == 14
    assert got.refused == []
    assert got.table("runs").num_rows == 14
