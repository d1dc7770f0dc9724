"""The macOS bundle's Info.plist entries (packaging/stormscope.spec adds them to PyInstaller's): the minimum macOS,
and the documents StormScope opens from the Finder -- its workspaces (.duckdb), folders and trace files.
tests/test_packaging_layouts.py checks the smoke test against a bundle carrying them. Standard library only."""

from __future__ import annotations

from typing import Any

WORKSPACE_TYPE = "StormScope workspace"


def info_plist(machine: str) -> dict[str, Any]:
    return {
        "NSHighResolutionCapable": True,
        # the newest minimum among the wheels inside (packaging/README.md): PySide6 6.11.3 needs macOS 13.0; on Apple
        # silicon numpy 2.4.6's wheel needs 14.0
        "LSMinimumSystemVersion": "14.0" if machine == "arm64" else "13.0",
        # Finder "Open With", a double-click on a workspace, a folder or trace dropped on the Dock icon: QFileOpenEvent
        # in the window (app/ui/main_window.py opened_from_finder: a workspace is opened, the rest imported)
        "CFBundleDocumentTypes": [
            {"CFBundleTypeName": WORKSPACE_TYPE, "CFBundleTypeRole": "Editor", "CFBundleTypeExtensions": ["duckdb"],
             "LSHandlerRank": "Default"},
            {"CFBundleTypeName": "Folder of traces", "CFBundleTypeRole": "Viewer",
             "LSItemContentTypes": ["public.folder"], "LSHandlerRank": "Alternate"},
            {"CFBundleTypeName": "Trace file", "CFBundleTypeRole": "Viewer",
             "LSItemContentTypes": ["public.plain-text", "public.json", "public.comma-separated-values-text",
                                    "public.zip-archive", "org.gnu.gnu-zip-archive", "public.tar-archive"],
             "LSHandlerRank": "Alternate"},
        ],
    }
