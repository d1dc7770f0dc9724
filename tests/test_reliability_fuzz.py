"""Property-based fuzzing of every parser (issue 17's reliability suite), with hypothesis: real files (the corpus
and the sample captures) mutated -- bytes changed, tokens inserted, lines dropped, repeated or swapped, numbers
replaced, the file cut -- are read fine or refused with a clear error, never an internal error; through the
whole import they leave nothing behind when refused. ``make stress`` runs many more cases (tests/fuzz_util.py
says how the environment chooses)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.importer import import_file
from parsers.base import ImportOptions
from tests.fuzz_util import MUTATIONS, checked, fuzz_settings, mutate, parse_outcome, seed_files

SEEDS = seed_files()
_TMPDIR = tempfile.TemporaryDirectory(prefix="stormscope-fuzz-")  # removed when the test process ends
_TMP = Path(_TMPDIR.name)


def write_case(seed: Path, mutations: list) -> str:
    data = seed.read_bytes()
    for m in mutations:
        data = mutate(data, m)
    path = _TMP / seed.name
    path.write_bytes(data)
    return str(path)


@fuzz_settings(200)
@given(seed=st.sampled_from(SEEDS), mutations=MUTATIONS)
def test_mutated_real_files_parse_or_fail_cleanly(seed, mutations):
    path = write_case(seed, mutations)
    checked("parse", str(seed), lambda: parse_outcome(path), mutations)


@pytest.fixture(scope="module")
def mem_ws():
    from app.workspace import Workspace

    w = Workspace(":memory:")
    yield w
    w.close()


@fuzz_settings(40)
@given(seed=st.sampled_from(SEEDS), mutations=MUTATIONS)
def test_mutated_real_files_import_whole_or_not_at_all(mem_ws, seed, mutations):
    path = write_case(seed, mutations)

    def run():
        before = mem_ws.con.execute("SELECT count(*) FROM runs").fetchall()[0][0]
        r = import_file(mem_ws, path, ImportOptions(interval_s=60))
        if r.status == "failed" and "internal error" in (r.error or ""):
            raise AssertionError(r.error)
        after = mem_ws.con.execute("SELECT count(*) FROM runs").fetchall()[0][0]
        assert after == before + len(r.run_ids), (r, before, after)
        for rid in r.run_ids if r.status == "imported" else []:
            mem_ws.delete_run(rid)
        return r.status

    checked("import", str(seed), run, mutations)
