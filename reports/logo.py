"""The report's logo, read only when it is a plain image file of sensible size (no Qt here).

A report template saved in a workspace names its logo by a path, and a workspace may come from someone else: that
path may be ``/dev/zero`` (read for ever), a FIFO (blocks for ever), a directory, a 1 GB file, ``/etc/passwd`` or a
PNG whose header claims 100,000 x 100,000 pixels (gigabytes once decoded). :func:`read_logo` opens the path without
blocking, reads it only when it is a regular file of at most :data:`MAX_BYTES`, and decodes it only when it is a
PNG, JPEG or GIF of at most :data:`MAX_PIXELS`; anything else is :class:`LogoUnusable`, with why in the customer's
words, and the report is written without it.
"""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path

MAX_BYTES = 10 * 1024 * 1024  # a company logo is kilobytes; a photograph a few megabytes
MAX_PIXELS = 25_000_000  # 5000 x 5000: far more than a cover needs, ~100 MB once decoded
FORMATS = ("PNG", "JPEG", "GIF")


class LogoUnusable(Exception):
    """The logo cannot be used; ``str()`` says why (the file named), for a note beside the report."""


def read_logo(path: str | os.PathLike) -> bytes:
    """The logo file's bytes, once checked: a regular file, at most MAX_BYTES, a PNG/JPEG/GIF image of at most
    MAX_PIXELS whose pixels decode. Raises :class:`LogoUnusable`."""
    name = Path(path).name or str(path)
    try:  # O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below, as not a file)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as e:
        raise LogoUnusable(f"the logo {name} could not be opened ({e.strerror or e})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise LogoUnusable(f"the logo {name} is not a file (a folder, device or pipe)")
        if info.st_size > MAX_BYTES:
            raise LogoUnusable(f"the logo {name} is {info.st_size / 1024 / 1024:,.0f} MB: more than the "
                               f"{MAX_BYTES // 1024 // 1024} MB a logo may have")
        data = _read_at_most(fd, MAX_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_BYTES:  # grew while being read
        raise LogoUnusable(f"the logo {name} is larger than the {MAX_BYTES // 1024 // 1024} MB a logo may have")
    _check_image(data, name)
    return data


def _read_at_most(fd: int, limit: int) -> bytes:
    chunks, size = [], 0
    while size < limit:
        chunk = os.read(fd, min(1 << 20, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _check_image(data: bytes, name: str) -> None:
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data), formats=FORMATS) as img:  # reads the header only
            width, height = img.size
            if width * height > MAX_PIXELS:
                raise LogoUnusable(f"the logo {name} is {width:,} x {height:,} pixels: more than a logo may have "
                                   f"({MAX_PIXELS:,} pixels)")
            img.load()  # every pixel decodes (a cut or damaged file is found here, not by the PDF writer)
    except UnidentifiedImageError:
        raise LogoUnusable(f"the logo {name} is not a PNG, JPEG or GIF image") from None
    except (OSError, ValueError, SyntaxError) as e:  # Pillow's words for a damaged image
        raise LogoUnusable(f"the logo {name} is a damaged image ({e})") from None
    except Image.DecompressionBombError:
        raise LogoUnusable(f"the logo {name} has more pixels than a logo may have") from None
