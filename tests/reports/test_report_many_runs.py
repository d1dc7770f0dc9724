"""A report of one run from a workspace of many: the queries it makes do not grow with the runs the workspace holds
(the runs' rows are read in one query, not one per run), whatever it is asked to anonymise.

(The time it takes is measured in benchmarks/bench_many_runs.py, not here.)"""

from __future__ import annotations

from app.cli.entry import main
from tests.many_runs_util import many_runs_workspace


class CountingConnection:
    """A workspace's DuckDB connection, counting the queries made through it."""

    def __init__(self, con, counts: list[int]):
        self._con = con
        self._counts = counts

    def __getattr__(self, name):
        if name in ("execute", "executemany", "sql", "query"):
            self._counts[0] += 1
        return getattr(self._con, name)


def report_queries(monkeypatch, tmp_path, n: int) -> int:
    """The queries of ``report --runs 1 --anonymise`` on a workspace of ``n`` runs."""
    from app.workspace import Workspace

    path = many_runs_workspace(tmp_path / f"ws{n}.duckdb", n)
    counts = [0]
    opened = Workspace.__init__

    def counting(self, *a, **k):
        opened(self, *a, **k)
        self.con = CountingConnection(self.con, counts)

    with monkeypatch.context() as m:
        m.setattr(Workspace, "__init__", counting)
        assert main(["report", "-w", str(path), "-o", str(tmp_path / f"r{n}.pdf"), "--runs", "1", "--anonymise"]) == 0
    assert (tmp_path / f"r{n}.pdf").stat().st_size > 0
    return counts[0]


def test_report_of_one_run_queries_do_not_grow_with_the_workspace(monkeypatch, tmp_path):
    """Before: the anonymiser read every run of the workspace once more, one query each (3 runs: 38 queries,
    40 runs: 75)."""
    assert report_queries(monkeypatch, tmp_path, 40) == report_queries(monkeypatch, tmp_path, 3)
