"""A GitHub Release's files (.github/workflows/dist.yml, on a version tag): checks that the tag is the version the
installers carry, that every installer is there, and writes SHA256SUMS beside them.

    python packaging/release.py v0.1.0 FOLDER      # FOLDER: the installers the build jobs made

SHA256SUMS is in sha256sum's format: a user checks a download with ``sha256sum -c SHA256SUMS --ignore-missing``
(Linux), ``shasum -a 256 -c SHA256SUMS --ignore-missing`` (macOS) or ``Get-FileHash`` (Windows). Tested in
`make test` (tests/test_packaging_installers.py). Standard library only.
"""

from __future__ import annotations

import hashlib
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def version() -> str:
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"])


def installers(v: str) -> list[str]:
    """The files a release of version ``v`` ships (the names the workflow's jobs give them)."""
    return [f"StormScope-{v}-windows-x64-setup.exe", f"StormScope-{v}-macos-arm64.dmg",
            f"StormScope-{v}-macos-x86_64.dmg", f"stormscope_{v}_amd64.deb", f"stormscope-{v}-py3-none-any.whl"]


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def prepare(tag: str, folder: Path) -> Path:
    v = version()
    if tag != f"v{v}":
        raise SystemExit(f"release: the tag {tag} is not the version the installers carry (pyproject.toml: {v}): "
                         f"tag v{v}, or change the version first")
    names = installers(v)
    missing = [n for n in names if not (folder / n).is_file()]
    if missing:
        raise SystemExit(f"release: missing from {folder}: {', '.join(missing)}")
    sums = folder / "SHA256SUMS"
    sums.write_text("".join(f"{sha256(folder / n)}  {n}\n" for n in names), encoding="utf-8")
    print(f"release {tag}: {len(names)} files, {sums}")
    return sums


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__)
        return 2
    prepare(argv[0], Path(argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
