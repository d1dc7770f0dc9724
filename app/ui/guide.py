"""Help ▸ User guide: docs/user-guide.md shown in the window, rendered from its Markdown.

The guide is read from the docs/ folder beside the packages: a checkout has it there, and the desktop build
bundles it at the same place (packaging/stormscope.spec). Links inside the guide (its contents) scroll to the
heading; a link to the web opens in the browser; a link to another file of the docs is not followed (the window
says so in the guide's status line).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices, QImageReader, QTextCursor
from PySide6.QtWidgets import QDialog, QLabel, QTextBrowser, QVBoxLayout

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "user-guide.md"


def window_edition(text: str) -> str:
    """What the window shows of the guide: its opening paragraph and its part about the window (every view, menu and
    dialog), with contents of its own. The rest of the guide is the command line's and the formats' reference, which
    names command-line options: it is read in the documentation, not in the window. A link to a part left out shows
    as its words; a "(see ...)" pointing there is left out."""
    intro = text[:text.index("\nContents:")].rstrip()
    start = text.index("\n## The window")
    end = text.index("\n## ", start + 1)
    part = text[start:end]
    heads = re.findall(r"(?m)^### (.+)$", part)
    contents = "Contents: " + " · ".join(f"[{h}](#{slug(h)})" for h in heads)
    kept = {slug(h) for h in ["The window", *heads]}
    # "(see [The command line](#the-command-line))" points the reader at a part not shown: left out
    part = re.sub(r"\s*\(see \[[^\]]+\]\(#([\w-]+)\)\)", lambda m: m.group(0) if m.group(1) in kept else "", part)
    # a sentence of its own that only points there ("See [Questions](#questions) for what each kind answers."): left out
    part = re.sub(r"(?:(?<=\n)|(?<=\. ))(?:See|What [^.\n]*:) \[[^\]]+\]\(#([\w-]+)\)[^.\n]*\.(?=\n)",
                  lambda m: m.group(0) if m.group(1) in kept else "", part)
    part = re.sub(r"\[([^\]]+)\]\(#([\w-]+)\)", lambda m: m.group(0) if m.group(2) in kept else m.group(1), part)
    # a picture's words on one line: Qt's Markdown reader made one picture per line of them (it showed 3 times)
    part = re.sub(r"!\[([^\]]*)\]", lambda m: "![" + " ".join(m.group(1).split()) + "]", part)
    return f"{intro}\n\n{contents}\n{part}\n"


def slug(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading ("The window" -> "the-window"), as the guide's links use it."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


class GuideWindow(QDialog):
    """The user guide, rendered, with working contents links."""

    def __init__(self, parent: Any = None, path: Path = GUIDE):
        super().__init__(parent)
        self.setWindowTitle("StormScope user guide")
        self.resize(900, 700)
        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._follow)
        self.browser.setSearchPaths([str(path.parent)])  # the guide's pictures
        self.browser.setMarkdown(window_edition(path.read_text(encoding="utf-8")))
        self.folder = path.parent
        self.status = QLabel("")
        lay = QVBoxLayout(self)
        lay.addWidget(self.browser)
        lay.addWidget(self.status)
        self._fit_images()

    def resizeEvent(self, ev: Any) -> None:  # noqa: N802 (Qt name)
        super().resizeEvent(ev)
        self._fit_images()

    def _fit_images(self) -> None:
        """Each picture as wide as the guide's page at most (a 1,366-pixel screenshot ran past a 900-pixel window),
        its proportions kept; never wider than it is."""
        room = max(200, self.browser.viewport().width() - 2 * int(self.browser.document().documentMargin()) - 8)
        block = self.browser.document().begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                frag = it.fragment()
                fmt = frag.charFormat()
                if fmt.isImageFormat():
                    img = fmt.toImageFormat()
                    size = QImageReader(str(self.folder / img.name())).size()
                    if size.isValid() and size.width() > 0:
                        width = min(size.width(), room)
                        if abs(img.width() - width) > 0.5:
                            img.setWidth(width)
                            img.setHeight(size.height() * width / size.width())
                            cursor = QTextCursor(self.browser.document())
                            cursor.setPosition(frag.position())
                            cursor.setPosition(frag.position() + frag.length(), QTextCursor.MoveMode.KeepAnchor)
                            cursor.setCharFormat(img)
                it += 1
            block = block.next()

    def _follow(self, url: QUrl) -> None:
        if url.scheme() in ("http", "https", "mailto"):
            QDesktopServices.openUrl(url)
        elif url.hasFragment() and not url.path():
            self.go_to(url.fragment())
        else:
            self.status.setText(f"{url.toString()} is not part of the guide shown here.")

    def go_to(self, anchor: str) -> bool:
        """Scroll to the heading whose anchor is ``anchor``; False when the guide has none."""
        block = self.browser.document().begin()
        while block.isValid():
            if block.blockFormat().headingLevel() and slug(block.text()) == anchor:
                cursor = QTextCursor(block)
                self.browser.setTextCursor(cursor)
                self.browser.verticalScrollBar().setValue(self.browser.verticalScrollBar().maximum())
                self.browser.ensureCursorVisible()
                self.status.setText("")
                return True
            block = block.next()
        self.status.setText(f"No section '{anchor}' in the guide.")
        return False
