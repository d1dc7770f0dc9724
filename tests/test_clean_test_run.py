"""A test run leaves the developer's settings and /tmp as it found them (tests/conftest.py): a session of real
tests -- the window opened the way ``main.py gui`` opens it, with the default settings (Recent workspaces, the
window's layout) and listening on its local socket, and a test writing a workspace in its tmp_path -- run as
``make test`` runs them (two workers), inside a fake home and a fake /tmp. Before, the first wrote the fake home's
~/.config/StormScope and the run left pytest's folders (2.2 GB for the whole suite) and a temporary folder in /tmp."""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.conftest import ROOT

# the window as `main.py gui` opens it (default settings; its local socket in TMPDIR), and a test using tmp_path
TESTS = [
    "tests/test_workspace_lock.py::test_the_window_opens_its_workspace_once_at_start",
    "tests/test_packaging.py::test_the_workspace_hint_matches_a_real_workspace",
]


def _tree(folder: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): None if p.is_dir() else p.read_bytes() for p in sorted(folder.rglob("*"))}


def test_a_test_run_leaves_the_users_settings_and_tmp_as_it_found_them(tmp_path):
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    (home / ".config" / "other-program.conf").write_text("the user's own\n")
    tmp = Path(tempfile.mkdtemp(prefix="t"))  # a short path, as /tmp is: a local socket's path has 108 bytes at most
    (tmp / "someone-elses-file").write_text("left alone\n")
    # the developer's shell: no XDG variables, TMPDIR unset or /tmp (here: the fake one)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "PYTEST_")) and k != "TMPDIR"}
    env.update(HOME=str(home), TMPDIR=str(tmp), QT_QPA_PLATFORM="offscreen")
    home_before, tmp_before = _tree(home), _tree(tmp)
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "2", "-p", "no:cacheprovider", *TESTS], cwd=ROOT,
                       env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert "2 passed" in p.stdout
    assert _tree(home) == home_before
    assert _tree(tmp) == tmp_before
