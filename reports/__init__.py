"""PDF report building (reportlab). No Qt at import time."""
