"""Shared test helpers (importable because tests/ is on sys.path via conftest)."""
