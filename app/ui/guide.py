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
from PySide6.QtGui import QDesktopServices, QTextCursor
from PySide6.QtWidgets import QDialog, QLabel, QTextBrowser, QVBoxLayout

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "user-guide.md"


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
        self.browser.setMarkdown(path.read_text(encoding="utf-8"))
        self.status = QLabel("")
        lay = QVBoxLayout(self)
        lay.addWidget(self.browser)
        lay.addWidget(self.status)

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
