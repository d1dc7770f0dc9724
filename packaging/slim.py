"""What the desktop build leaves out (packaging/stormscope.spec): files PyInstaller's hooks collect that StormScope
never loads. Pure functions on the build's destination paths, the same on Linux, Windows and macOS, so they are
tested in `make test` (tests/test_packaging_layouts.py) without PyInstaller; what they save: packaging/README.md.

Decided by what StormScope loads (the libraries a session of the window and every command mapped, LD_DEBUG=files,
packaging/README.md), not by size: a Qt platform plugin for a display StormScope can run on (X11, Wayland, Windows,
macOS, and offscreen for the smoke test) stays, as does every image format its own icons or a report's logo need.
Standard library only (the spec imports it before PyInstaller's Analysis has the packages on its path).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

# Python modules never imported (Analysis excludes them, and with them the Qt libraries only they link):
# pyqtgraph imports QtTest when it is there and runs without it (its test helpers are not used; QtOpenGL and
# QtOpenGLWidgets it imports unconditionally: they stay); QtDBus's bindings are not used (Qt's own D-Bus library
# stays: QtGui links it);
# Pillow's AVIF plugin (4.8 MB of libavif: a report logo is PNG or JPEG) is optional in Pillow; pyarrow's ORC,
# Substrait, HDFS, CUDA, Gandiva, encryption and test modules are not used (the workspace writes plain Parquet).
EXCLUDED_MODULES = [
    "PySide6.QtTest", "PySide6.QtDBus",
    "pyqtgraph.opengl",
    "PIL._avif", "PIL.AvifImagePlugin",
    "pyarrow._orc", "pyarrow.orc", "pyarrow._dataset_orc", "pyarrow._substrait", "pyarrow.substrait",
    "pyarrow._hdfs", "pyarrow._cuda", "pyarrow.cuda", "pyarrow.gandiva", "pyarrow.jvm",
    "pyarrow._parquet_encryption", "pyarrow.parquet.encryption", "pyarrow._dataset_parquet_encryption",
    "pyarrow._pyarrow_cpp_tests", "pyarrow.tests",
    "pyarrow.flight", "pyarrow._flight", "pyarrow._s3fs", "pyarrow._gcsfs", "pyarrow._azurefs",
]

# Qt plugins by folder: the plugins left out of it (None: the whole folder).
UNUSED_QT_PLUGINS: dict[str, set[str] | None] = {
    # displays StormScope does not run on (embedded framebuffers, VNC, Vulkan display); kept: xcb, wayland, windows,
    # cocoa, offscreen
    "platforms": {"eglfs", "linuxfb", "minimal", "minimalegl", "vnc", "vkkhrdisplay", "direct2d"},
    "egldeviceintegrations": None,  # eglfs only
    "generic": None,  # evdev and TUIO input, for eglfs / linuxfb
    "networkinformation": None,  # QNetworkInformation: not used (only a local socket)
    "tls": None,  # TLS backends: StormScope makes no network connection
    "platformthemes": {"gtk3"},  # GTK's theme: Qt's own theme is used (and GTK's cairo, pango, atk... stay out)
    "imageformats": {"tiff", "webp", "tga", "wbmp", "pdf"},  # kept: png (built in), jpeg, gif, svg, ico, icns
}
# pyarrow's Flight and cloud file systems (local Parquet only) and its three copies of one library (the one named
# by its soname, libarrow_python.so.2600 on Linux, is the one loaded)
UNUSED_LIBS = ("arrow_flight", "arrow_python_flight", "arrow_s3", "arrow_gcs", "arrow_azure",
               "arrow_python_parquet_encryption")
DUPLICATE_LIB = re.compile(r"^libarrow_python\.so(\.\d+\.\d+\.\d+)?$")  # .so and .so.X.Y.Z beside .so.X
# data: pyarrow's C++ headers and Cython sources; Qt's translations (StormScope installs no translator: its own
# words are English and Qt's dialogs follow them)
UNUSED_DATA_DIRS = ("pyarrow/include", "pyarrow/src", "pyarrow/tests", "PySide6/Qt/translations/",
                    "PySide6/translations/")
UNUSED_DATA_SUFFIXES = (".pxd", ".pyx", ".pxi", ".h", ".cc")

_PLUGIN = re.compile(r"(?:^|/)plugins/([^/]+)/(?:lib)?q?([^/.]+)[^/]*$")


def qt_plugin(dest: str) -> tuple[str, str] | None:
    """(folder, name) of a Qt plugin at ``dest`` (``PySide6/Qt/plugins/platforms/libqxcb.so`` -> platforms, xcb;
    ``PySide6/plugins/platforms/qwindows.dll`` -> platforms, windows), else None."""
    dest = dest.replace("\\", "/")
    m = _PLUGIN.search(dest) if dest.startswith("PySide6/") else None
    return (m.group(1), m.group(2)) if m else None


def unused_binary(dest: str) -> str | None:
    """Why the binary at destination ``dest`` is left out, or None to keep it."""
    dest = dest.replace("\\", "/")
    plugin = qt_plugin(dest)
    if plugin is not None:
        folder, name = plugin
        if folder in UNUSED_QT_PLUGINS:
            names = UNUSED_QT_PLUGINS[folder]
            if names is None or name in names:
                return f"Qt plugin {folder}/{name}: never loaded"
        return None
    base = dest.rsplit("/", 1)[-1]
    if any(lib in base for lib in UNUSED_LIBS):
        return "pyarrow Flight / cloud file systems / encryption: not used"
    if DUPLICATE_LIB.match(base):
        return "a copy of libarrow_python.so.X (loaded by that name)"
    return None


def unused_data(dest: str) -> str | None:
    """Why the data file at destination ``dest`` is left out, or None to keep it."""
    dest = dest.replace("\\", "/")
    if dest.startswith(UNUSED_DATA_DIRS) or dest.endswith(UNUSED_DATA_SUFFIXES):
        return "headers, sources, tests or Qt translations: not read"
    return None


def strippable(dest: str) -> bool:
    """Linux: may the binary at ``dest`` be stripped? Not those in a ``*.libs`` folder: auditwheel vendored them and
    patchelf rewrote them, and strip leaves them unloadable (numpy.libs' OpenBLAS: "ELF load command address/offset
    not page-aligned")."""
    return not any(part.endswith(".libs") for part in dest.replace("\\", "/").split("/")[:-1])


def orphans(kept: Iterable[str], dropped: Iterable[str], needs: Callable[[str], Iterable[str]]) -> set[str]:
    """The libraries among ``kept`` (destination paths) that only ``dropped`` ones need: PyInstaller collected
    them for a plugin left out (GTK's cairo and pango for its theme plugin...). ``needs(dest)`` names the libraries
    the binary at ``dest`` links (any path form: compared by file name, case-insensitively). A kept library that
    nothing links is not an orphan (Python extensions, plugins and libraries loaded by name stay)."""
    kept = list(kept)
    by_name: dict[str, list[str]] = {}
    for d in kept:
        by_name.setdefault(_name(d), []).append(d)

    def closure(start: Iterable[str]) -> set[str]:
        seen: set[str] = set()
        todo = list(start)
        while todo:
            for lib in needs(todo.pop()):
                for d in by_name.get(_name(lib), []):
                    if d not in seen:
                        seen.add(d)
                        todo.append(d)
        return seen

    candidates = closure(dropped)
    roots = [d for d in kept if d not in candidates]
    return candidates - closure(roots) - set(roots)


def _name(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1].lower()
