"""Qt widgets and models (the only package that may import PySide6/pyqtgraph)."""
