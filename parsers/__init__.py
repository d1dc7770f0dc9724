"""One module per trace format; each sniffs content and parses to polars frames. No Qt, no DuckDB."""
