"""Before `make run` opens the window on Linux: are the system libraries Qt's xcb (X11) platform plugin loads
installed? A minimal Debian/Ubuntu lacks some (libxcb-cursor0 first), and Qt then stops with "Could not load the Qt
platform plugin xcb" without saying which. This asks the dynamic loader (ldd) about the plugin PySide6 ships and
prints the exact `sudo apt-get install` line for what is missing; exit 1 then, else 0.

    .venv/bin/python packaging/check_qt_libs.py

PACKAGES is the one list of these libraries: the README's install line is checked against it
(tests/test_qt_libs_check.py). Not imported by StormScope; standard library only.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

# library (soname) -> Debian/Ubuntu package, for every library the xcb plugin and its GL integrations load that a
# minimal install may lack. The README's apt-get line lists exactly these packages.
PACKAGES = {
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libfontconfig.so.1": "libfontconfig1",
    "libdbus-1.so.3": "libdbus-1-3",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
}
NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found", re.M)


def plugin_files() -> list[Path]:
    """The xcb platform plugin of the installed PySide6 and its GL integrations (PySide6 is not imported)."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("PySide6 is not installed in this Python: run `make install` first")
    plugins = Path(next(iter(spec.submodule_search_locations))) / "Qt" / "plugins"
    return [plugins / "platforms" / "libqxcb.so", *sorted((plugins / "xcbglintegrations").glob("*.so"))]


def missing_libraries(ldd_output: str) -> list[str]:
    """The libraries ldd reported as "not found", in order, once each."""
    return list(dict.fromkeys(NOT_FOUND.findall(ldd_output)))


def advice(missing: list[str]) -> str:
    """What to tell the user about ``missing`` libraries: the apt-get line (and any library not in PACKAGES)."""
    packages = list(dict.fromkeys(PACKAGES[lib] for lib in missing if lib in PACKAGES))
    unknown = [lib for lib in missing if lib not in PACKAGES]
    lines = [f"The window needs system libraries that are missing here: {', '.join(missing)}."]
    if packages:
        lines.append(f"Install them with:\n\n    sudo apt-get install {' '.join(packages)}\n")
    if unknown:
        lines.append(f"No package is known here for {', '.join(unknown)}: `apt-file search` names the one that "
                     "provides it.")
    lines.append("(`make test` runs the window offscreen and does not need them.)")
    return "\n".join(lines)


def main() -> int:
    if not sys.platform.startswith("linux"):
        return 0
    if os.environ.get("QT_QPA_PLATFORM", "xcb").split(":")[0] not in ("xcb", ""):
        return 0  # offscreen, wayland...: the xcb plugin is not used
    out = ""
    for f in plugin_files():
        out += subprocess.run(["ldd", str(f)], capture_output=True, text=True, check=False).stdout
    missing = missing_libraries(out)
    if missing:
        print(advice(missing), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
