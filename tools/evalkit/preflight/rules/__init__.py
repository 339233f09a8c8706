"""One module per rule; see evalkit.preflight.registry."""
