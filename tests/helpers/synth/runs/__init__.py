"""The parts of a synthetic run directory that no benchmark owns."""
