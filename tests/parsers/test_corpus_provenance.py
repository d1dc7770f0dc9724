"""The corpus of real tool output lives in the repository (tests/corpus) with its provenance: every file is named in
MANIFEST.md (origin repository, path, commit, tool version) and its SHA-256 in SHA256SUMS matches the bytes."""

import hashlib

from tests.conftest import ROOT

CORPUS_DIR = ROOT / "tests" / "corpus"


def test_every_corpus_file_has_its_provenance_and_checksum():
    files = sorted(p for p in CORPUS_DIR.rglob("*") if p.is_file() and p.name not in ("MANIFEST.md", "SHA256SUMS"))
    assert len(files) >= 100
    sums = dict(reversed(line.split(maxsplit=1)) for line in (CORPUS_DIR / "SHA256SUMS").read_text().splitlines())
    manifest = (CORPUS_DIR / "MANIFEST.md").read_text()
    for p in files:
        rel = p.relative_to(CORPUS_DIR).as_posix()
        assert rel in sums, f"{rel}: no SHA-256 in SHA256SUMS"
        assert hashlib.sha256(p.read_bytes()).hexdigest() == sums[rel], f"{rel}: SHA-256 differs"
        assert f"`{rel}`" in manifest, f"{rel}: not described in MANIFEST.md"
    assert set(sums) == {p.relative_to(CORPUS_DIR).as_posix() for p in files}
