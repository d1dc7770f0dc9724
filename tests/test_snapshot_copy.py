"""The import's snapshot: the private copy is the original's bytes and its hash is theirs, whether the kernel
copies (os.copy_file_range) or the one-pass copy does; a change during the copy is caught; an error is not hidden."""

import errno
import hashlib
import os

import pytest

import app.importer
from app.importer import FileChanged, snapshot


@pytest.fixture
def original(tmp_path):
    p = tmp_path / "in" / "trace.log"
    p.parent.mkdir()
    p.write_bytes(os.urandom(300_000) + b"tail\n")
    return p


def _check(snap, original, folder):
    data = original.read_bytes()
    assert (folder / original.name).read_bytes() == data
    assert snap.path == str(folder / original.name)
    assert snap.sha256 == hashlib.sha256(data).hexdigest()
    assert snap.size == len(data)


def test_the_copy_and_its_hash_are_the_originals(original, tmp_path, monkeypatch):
    monkeypatch.setattr(app.importer, "KERNEL_COPY_CHUNK", 65_536)  # several calls
    calls = []
    real = os.copy_file_range

    def counted(*a):
        calls.append(a)
        return real(*a)

    monkeypatch.setattr(os, "copy_file_range", counted)
    folder = tmp_path / "snap"
    folder.mkdir()
    _check(snapshot(str(original), folder), original, folder)
    assert len(calls) > 4  # the kernel copied it


@pytest.mark.parametrize("how", ["cannot", "missing"])
def test_where_the_kernel_cannot_copy_one_pass_does(how, original, tmp_path, monkeypatch):
    if how == "missing":  # another system (macOS, Windows)
        monkeypatch.delattr(os, "copy_file_range")
    else:  # file systems it will not copy between
        def refuse(*_a):
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        monkeypatch.setattr(os, "copy_file_range", refuse)
    folder = tmp_path / "snap"
    folder.mkdir()
    _check(snapshot(str(original), folder), original, folder)


def test_an_error_during_the_copy_is_not_hidden(original, tmp_path, monkeypatch):
    monkeypatch.setattr(app.importer, "KERNEL_COPY_CHUNK", 65_536)
    real = os.copy_file_range
    calls = []

    def fail_second(*a):
        calls.append(a)
        if len(calls) == 2:
            raise OSError(errno.EIO, "Input/output error")
        return real(*a)

    monkeypatch.setattr(os, "copy_file_range", fail_second)
    folder = tmp_path / "snap"
    folder.mkdir()
    with pytest.raises(OSError, match="Input/output"):
        snapshot(str(original), folder)


def test_a_file_written_during_the_copy_is_caught(original, tmp_path, monkeypatch):
    monkeypatch.setattr(app.importer, "KERNEL_COPY_CHUNK", 65_536)
    real = os.copy_file_range

    def grow(*a):
        with open(original, "ab") as f:
            f.write(b"more\n")
        return real(*a)

    monkeypatch.setattr(os, "copy_file_range", grow)
    folder = tmp_path / "snap"
    folder.mkdir()
    with pytest.raises(FileChanged):
        snapshot(str(original), folder)
