"""Cross-cutting hardening: hostile input, fuzzing, secrets, state safety, supply chain."""
