"""The command line as a package: every command declared once, one place opening the workspace, one place
mapping errors to exit codes, no import cycles (import-linter contracts)."""

import argparse
import ast
import subprocess
import sys
from pathlib import Path

from app.cli import build_parser, main
from app.cli.entry import COMMANDS
from tests.conftest import ROOT

CLI = ROOT / "app" / "cli"


def _subparsers(p: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for a in p._actions:
        if isinstance(a, argparse._SubParsersAction):
            return dict(a.choices)
    return {}


def test_every_command_and_subcommand_has_a_handler():
    top = _subparsers(build_parser())
    assert list(top) == [c.name for c in COMMANDS] == ["import", "runs", "sql", "analyze", "compare", "size", "phase",
                                                       "marker", "mapping", "report", "export", "run", "clock",
                                                       "plan", "question", "replay", "library", "gui"]
    leaves = {}

    def walk(name, p, inherited):  # a subcommand without a handler of its own runs its command's
        handler = p.get_default("handler") or inherited
        subs = _subparsers(p)
        for n, s in subs.items():
            walk(f"{name} {n}", s, handler)
        if not subs:
            leaves[name] = handler

    for c in COMMANDS:
        walk(c.name, top[c.name], None)
    assert all(callable(h) for h in leaves.values())
    # replay, question add knee, question add replay: issue 32; clock, plan, question add latency-path: issue 33;
    # library add|compare|check and question add library: issue 34
    assert len(leaves) == 49
    assert "question add response-time" in leaves
    assert {"analyze iometer", "analyze iomark"} <= set(leaves)
    by_name = {c.name: c.handler for c in COMMANDS}
    for group in ("analyze", "phase", "marker"):  # the command alone says "choose ..."; each subcommand runs
        assert all(h is not by_name[group] for n, h in leaves.items() if n.startswith(group + " "))


def test_only_open_workspace_opens_the_workspace():
    """Every command reaches the workspace through app.cli.common.open_workspace (missing workspace, lock)."""
    callers = []
    for f in sorted(CLI.glob("*.py")):
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Workspace":
                callers.append(f.name)
    assert callers == ["common.py"]


def test_command_groups_do_not_import_each_other():
    groups = {f.stem for f in CLI.glob("*.py")} - {"__init__", "entry", "common"}
    for g in groups:
        tree = ast.parse((CLI / f"{g}.py").read_text())
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        assert not {m for m in imported if m.startswith("app.cli") and m != "app.cli.common"}, g


def test_the_contracts_hold():
    p = subprocess.run([str(Path(sys.executable).parent / "lint-imports")], cwd=ROOT, capture_output=True, text=True)
    kept = [line for line in p.stdout.splitlines() if line.endswith(" KEPT")]
    for name in ("Front ends above the report, above the analyses and jobs, above the workspace",
                 "Command line: entry above independent command groups above their shared helpers",
                 "No import cycles in any package",
                 "Analyses: composers above the analyses they use, leaves at the bottom"):
        assert f"{name} KEPT" in kept, p.stdout[-3000:]


def test_question_without_an_action_is_a_usage_error(capsys):
    assert main(["question"]) == 2  # was a traceback (AttributeError) before the package
    err = capsys.readouterr().err
    assert err == "main.py question: error: choose an action: add, list, answer, edit, move or delete\n"


def test_gui_through_the_command_line_entry_says_how_to_open_the_window(capsys):
    assert main(["gui"]) == 2
    assert "python main.py gui" in capsys.readouterr().err


def test_a_workspace_of_a_newer_stormscope_is_a_message(tmp_path, capsys):
    from app.workspace import SCHEMA_VERSION, Workspace

    path = tmp_path / "new.duckdb"
    with Workspace(path) as ws:
        for key in ("schema_version", "read_compatible_from"):  # one this version cannot read
            ws.con.execute("INSERT OR REPLACE INTO workspace_info VALUES (?, ?)", [key, str(SCHEMA_VERSION + 1)])
    assert main(["runs", "-w", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("main.py runs: error: This workspace was made by a newer StormScope")


def test_missing_workspace_is_exit_1_from_the_one_place(tmp_path, capsys):
    ws = str(tmp_path / "none.duckdb")
    for argv in (["sql", "select 1"], ["analyze", "cap", "--run", "1", "--iops-cap", "5"],
                 ["compare", "--runs", "1", "2"], ["phase", "list", "--run", "1"], ["run", "1"],
                 ["report", "-o", str(tmp_path / "r.pdf")], ["question", "answer"], ["mapping", "delete", "x"]):
        code = main([*argv, "-w", ws])
        out = capsys.readouterr()
        assert code == 1, argv
        assert f"no workspace at {ws}" in out.err + out.out, argv
    assert not Path(ws).exists()


def test_main_py_help_lists_every_command():
    p = subprocess.run([sys.executable, "main.py", "--help"], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0
    for c in COMMANDS:
        assert f"    {c.name} " in p.stdout
    p = subprocess.run([sys.executable, "main.py", "analyze", "storm", "--help"], cwd=ROOT, capture_output=True,
                       text=True)
    assert p.returncode == 0
    assert "--settle-pct" in p.stdout


def test_version_is_the_pyproject_version():
    """``--version`` (``stormscope --version`` when installed): the checkout's pyproject.toml here, the package
    metadata in an installed copy (.ci/run checks that one in a throwaway venv)."""
    import tomllib

    expected = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    p = subprocess.run([sys.executable, "main.py", "--version"], cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0
    assert p.stdout == f"StormScope {expected}\n"


def test_messages_name_the_command_the_user_typed(monkeypatch, capsys):
    """Installed (pip, pipx, the desktop build), the command line is `stormscope`: its help and its messages tell
    the user to type that, not main.py (a checkout's name)."""
    monkeypatch.setattr(sys, "argv", ["/home/u/.local/bin/stormscope", "--help"])
    assert build_parser().format_usage().startswith("usage: stormscope ")
    assert main(["gui"]) == 2
    assert capsys.readouterr().err.startswith("stormscope gui: error: the window opens from stormscope: stormscope gui")
    monkeypatch.setattr(sys, "argv", ["main.py"])
    assert build_parser().format_usage().startswith("usage: main.py ")


def test_an_import_loads_only_the_import_command(tmp_path):
    """``main.py import`` builds its own command's parser only: the report, the questions and the analyses are not
    loaded (their import is a fixed cost of every import, issue 31); its usage errors and help stay its own."""
    code = ("import sys; from app.cli import main; rc = main(['import', sys.argv[1], '-w', sys.argv[2]]); "
            "print(rc, sorted(m for m in sys.modules if m.startswith(('app.cli.', 'app.analysis.question', "
            "'reports'))))")
    p = subprocess.run([sys.executable, "-c", code, str(ROOT / "tests" / "corpus" / "iostat" /
                                                         "jc_centos-7.7_iostat-x.txt"), str(tmp_path / "ws.duckdb")],
                       cwd=ROOT, capture_output=True, text=True)
    assert p.stdout.strip().splitlines()[-1] == "0 ['app.cli.common', 'app.cli.entry', 'app.cli.importing']", p.stderr
    p = subprocess.run([sys.executable, "main.py", "import", "--no-such-flag"], cwd=ROOT, capture_output=True,
                       text=True)
    assert p.returncode == 2
    assert p.stderr.startswith("usage: main.py import [-h] [-w WS]")
    assert p.stderr.endswith("main.py import: error: the following arguments are required: PATH\n")
