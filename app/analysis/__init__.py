"""Analyses: pure functions over the workspace (alignment, storm metrics, latency shares, cap checks,
sizing). No Qt."""
