"""Stack files: loading, the JSON Schema, semantic checks and diagnostics."""
