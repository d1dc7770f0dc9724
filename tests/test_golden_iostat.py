"""Every iostat file of the corpus imports to exactly its reviewed golden output.

Regenerate with `make golden` after a deliberate change, and review the diff.
"""

import pytest

from tests.conftest import CORPUS, GOLDEN, REGEN, corpus_files
from tests.golden_util import compare_golden, golden_dir, snapshot, write_golden

FILES = corpus_files("iostat")


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_iostat_golden(ws, path):
    snap = snapshot(ws, path)
    gdir = golden_dir(GOLDEN, "iostat", path)
    if REGEN:
        write_golden(gdir, snap)
    compare_golden(gdir, snap)


def test_every_corpus_iostat_file_has_a_golden():
    names = {p.name for p in FILES}
    assert len(names) >= 50, f"expected the iostat corpus at {CORPUS}"
    have = {p.name for p in (GOLDEN / "iostat").iterdir()} if (GOLDEN / "iostat").is_dir() else set()
    assert names <= have
