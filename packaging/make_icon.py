"""Render app/ui/icons/stormscope.svg to the PNG the window, the desktop entry and PyInstaller use (PyInstaller
turns the PNG into the .ico / .icns of Windows and macOS with Pillow). Run after editing the SVG:

    QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/make_icon.py
"""

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ICONS = Path(__file__).resolve().parents[1] / "app" / "ui" / "icons"

if __name__ == "__main__":
    app = QGuiApplication([])
    renderer = QSvgRenderer(str(ICONS / "stormscope.svg"))
    image = QImage(512, 512, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    renderer.render(painter)
    painter.end()
    image.save(str(ICONS / "stormscope.png"))
    print(ICONS / "stormscope.png")
