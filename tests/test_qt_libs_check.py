"""`make run`'s check for the system libraries of Qt's xcb plugin (packaging/check_qt_libs.py): the exact
apt-get line for what ldd reports missing, and one list of those packages shared with the README."""

import importlib.util
import os
import re
import subprocess
import sys

from main import no_display
from tests.conftest import ROOT

_spec = importlib.util.spec_from_file_location("check_qt_libs", ROOT / "packaging" / "check_qt_libs.py")
assert _spec is not None
assert _spec.loader is not None
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)

# ldd on PySide6 6.11.3's libqxcb.so on a Debian 12 without libxcb-icccm4 and libxcb-keysyms1 (this machine, once):
# each missing library appears twice (libqxcb.so and libQt6XcbQpa.so need it)
LDD = """\tlinux-vdso.so.1 (0x00007ffd0b9e2000)
\tlibQt6XcbQpa.so.6 => /venv/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007f0c2c000000)
\tlibxcb-cursor.so.0 => /lib/x86_64-linux-gnu/libxcb-cursor.so.0 (0x00007f0c2c3f4000)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-shape.so.0 => /lib/x86_64-linux-gnu/libxcb-shape.so.0 (0x00007f0c2c3ef000)
"""


def test_missing_libraries_are_read_from_ldd_once_each():
    assert check.missing_libraries(LDD) == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]
    assert check.missing_libraries(LDD.replace("not found", "/lib/x.so (0x1)")) == []


def test_the_advice_is_the_exact_apt_get_line():
    text = check.advice(["libxcb-icccm.so.4", "libxcb-keysyms.so.1"])
    assert "\n    sudo apt-get install libxcb-icccm4 libxcb-keysyms1\n" in text
    text = check.advice(["libxcb-cursor.so.0", "libweird.so.3"])
    assert "sudo apt-get install libxcb-cursor0\n" in text
    assert "No package is known here for libweird.so.3" in text


def test_the_readme_lists_the_same_packages():
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"sudo apt-get install python3-venv (.*?)\n```", readme, re.S)
    assert block is not None
    listed = block.group(1).replace("\\\n", " ").split()
    assert listed == list(check.PACKAGES.values())


def test_the_check_runs_before_make_run_opens_the_window():
    makefile = (ROOT / "Makefile").read_text()
    run = makefile[makefile.index("\nrun: install"):]
    assert run.index("packaging/check_qt_libs.py") < run.index("main.py gui")


def test_without_a_display_the_window_says_so(tmp_path):
    """`make run` over SSH or in a container: one line that says there is no display, not Qt's abort (exit 134)
    among lines that name libxcb-cursor0, which is installed (before)."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    p = subprocess.run([sys.executable, str(ROOT / "main.py"), "gui", "-w", str(tmp_path / "ws.duckdb")], cwd=tmp_path,
                       env=env, capture_output=True, text=True, timeout=120)
    assert (p.returncode, p.stdout) == (1, "")
    assert p.stderr == (
        "The StormScope window needs a display, and this session has none (DISPLAY is not set, nor WAYLAND_DISPLAY). "
        "Start it from a desktop session, or over SSH with X forwarding (ssh -X). Every job of the window is also a "
        "command, which needs no display: main.py --help\n")
    assert not (tmp_path / "ws.duckdb").exists()


def test_which_sessions_have_a_display():
    assert no_display({}, "linux") is not None
    assert no_display({"DISPLAY": ":0"}, "linux") is None
    assert no_display({"WAYLAND_DISPLAY": "wayland-0"}, "linux") is None
    assert no_display({"WAYLAND_DISPLAY": "wayland-0", "QT_QPA_PLATFORM": "xcb"}, "linux") is not None  # no XWayland
    assert no_display({"DISPLAY": ":0", "QT_QPA_PLATFORM": "wayland;xcb"}, "linux") is None
    assert no_display({"QT_QPA_PLATFORM": "offscreen"}, "linux") is None  # needs none (the tests, the smoke test)
    assert no_display({"QT_QPA_PLATFORM": "vnc:size=800x600"}, "linux") is None
    assert no_display({}, "win32") is None
    assert no_display({}, "darwin") is None
