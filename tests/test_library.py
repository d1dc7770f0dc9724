"""The engagement library (app.library.publish, app.store.library, app.analysis.library, ``main.py library``):
published figures are the analyses' own, publishing is idempotent and atomic (a publish killed half-way is never
visible), damaged and newer entries are refused by name while the rest answers, and the comparison places a storm
among comparable engagements. The captures are the repository's samples (sample_traces/README.md); the past
engagements compared against are synthetic: the real run's figures at varied scales, stated as such."""

import json
import os
import subprocess
import sys

import pyarrow as pa
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


def synthetic(root, template, n, seed=1, workload="boot_storm", hypervisor="vSphere"):
    """``n`` synthetic engagements: ``template`` (a real run's figures) with IOPS, desktops and latency scaled."""
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
                                       "hypervisor": hypervisor, "desktops": d}, {"runs": pa.Table.from_pylist([row])})


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
    got = L.read_library(str(lib))
    refused = {r.engagement: r.reason for r in got.refused}
    assert set(refused) == {"synthetic001x00000", "synthetic001x00001", "synthetic001x00002"}
    assert "bytes, its manifest says" in refused["synthetic001x00000"]
    assert "cannot be read as Parquet" in refused["synthetic001x00001"]
    assert "its manifest cannot be read" in refused["synthetic001x00002"]
    assert sorted(got.manifests) == ["synthetic001x00003", "synthetic001x00004"]
    assert got.table("runs").num_rows == 2


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
