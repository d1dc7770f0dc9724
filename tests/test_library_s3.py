"""The engagement library read from an S3-compatible bucket: a local ``moto`` server (started here on the loopback
address, from the package registry's moto[server]) holds a copy of a library folder; reading it through the
bucket gives the same engagements, figures and comparison as the folder, refuses a damaged entry by name while
the rest answers, and takes the credentials from the environment only (nothing of them is stored)."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import boto3
import pytest

from app.analysis import questions as Q
from app.store import library as L
from app.workspace import Workspace
from tests.test_library import FAST, _make_ws, _template, synthetic

SECRET = "not-a-real-secret-7c1f"


@pytest.fixture(autouse=True)
def _library_cache(tmp_path, monkeypatch):
    """The reading cache of these tests in their own folder (never the user's)."""
    monkeypatch.setenv("STORMSCOPE_LIBRARY_CACHE", str(tmp_path / "library-cache"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    """A moto S3 server on 127.0.0.1 for this module; its endpoint."""
    port = _free_port()
    log = tmp_path_factory.mktemp("moto") / "server.log"
    with open(log, "wb") as out:
        p = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                             stdout=out, stderr=subprocess.STDOUT)
    endpoint = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            assert p.poll() is None, log.read_text(errors="replace")
            assert time.monotonic() < deadline, "moto server did not start within 60 s"
            time.sleep(0.2)
    yield endpoint
    p.terminate()
    p.wait(timeout=30)


@pytest.fixture
def aws_env(s3, monkeypatch):
    for k, v in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": SECRET, "AWS_REGION": "us-east-1",
                 "AWS_ENDPOINT_URL": s3}.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    return s3


def upload(folder: Path, bucket: str, prefix: str) -> None:
    """The folder copied into the bucket as a team would sync it: the partitions first, the manifests last."""
    c = boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT_URL"])
    c.create_bucket(Bucket=bucket)
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    for p in sorted(files, key=lambda p: p.relative_to(folder).parts[0] == L.MANIFESTS):
        c.upload_file(str(p), bucket, f"{prefix}/{p.relative_to(folder).as_posix()}")


@pytest.fixture(scope="module")
def ws_path(tmp_path_factory):
    p = tmp_path_factory.mktemp("s3lib") / "ws.duckdb"
    _make_ws(p)
    return p


def test_the_bucket_reads_as_the_folder_does(aws_env, ws_path, tmp_path):
    from app.library.publish import publish

    lib = tmp_path / "lib"
    synthetic(lib, _template(ws_path), 15)
    with Workspace(ws_path, read_only=True) as ws:
        publish(ws, str(lib), workload="boot_storm", hypervisor="vSphere", samples=True)
    upload(lib, "team-library", "vdi")
    local = L.read_library(str(lib), kinds=L.KINDS)
    remote = L.read_library("s3://team-library/vdi", kinds=L.KINDS)
    assert remote.refused == []
    assert sorted(remote.manifests) == sorted(local.manifests)
    assert remote.manifests == local.manifests
    for kind in L.KINDS:
        assert remote.table(kind).sort_by("engagement").to_pylist() == \
            local.table(kind).sort_by("engagement").to_pylist()
    q = dict(workload="boot_storm", hypervisor="vSphere")
    with Workspace(ws_path, read_only=True) as ws:
        here = Q.answer(ws, Q.LibraryQuestion(FAST, str(lib), **q))
        there = Q.answer(ws, Q.LibraryQuestion(FAST, "s3://team-library/vdi", **q))
    assert [f.text for f in there.figures] == [f.text for f in here.figures]
    assert there.reason == here.reason
    assert here.evidence.results[0].comparable_engagements == 15


def test_a_damaged_entry_in_the_bucket_is_refused_by_name(aws_env, ws_path, tmp_path):
    lib = tmp_path / "lib"
    synthetic(lib, _template(ws_path), 4)
    upload(lib, "damaged", "lib")
    c = boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT_URL"])
    c.put_object(Bucket="damaged", Key="lib/kind=runs/engagement=synthetic001x00002/part-0000000000000000.parquet",
                 Body=b"half")  # a file without a manifest: a publish copied half-way
    key = next(o["Key"] for o in c.list_objects_v2(Bucket="damaged", Prefix="lib/kind=runs/engagement=synthetic001x0000"
                                                                        "1/")["Contents"])
    c.put_object(Bucket="damaged", Key=key, Body=b"garbage")
    c.delete_object(Bucket="damaged", Key="lib/_manifests/synthetic001x00002.json")
    got = L.read_library("s3://damaged/lib")
    assert {r.engagement for r in got.refused} == {"synthetic001x00001", "synthetic001x00002"}
    assert "half-published" in next(r.reason for r in got.refused if r.engagement == "synthetic001x00002")
    assert sorted(got.manifests) == ["synthetic001x00000", "synthetic001x00003"]
    assert got.table("runs").num_rows == 2


def test_credentials_come_from_the_environment_and_are_never_stored(aws_env, ws_path, tmp_path):
    from app.cli import main as cli_main

    lib = tmp_path / "lib"
    synthetic(lib, _template(ws_path), 3)
    upload(lib, "creds", "lib")
    wsp = tmp_path / "ws.duckdb"
    _make_ws(wsp)
    assert cli_main(["question", "add", "library", "--run", "1", "--library", "s3://creds/lib", "-w", str(wsp)]) == 0
    assert cli_main(["question", "answer", "3", "-w", str(wsp)]) == 0
    assert SECRET.encode() not in wsp.read_bytes()
    assert not any(SECRET.encode() in p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
