"""What the workspace stores beyond imported runs, and how it is read and written (no Qt, no analysis)."""
