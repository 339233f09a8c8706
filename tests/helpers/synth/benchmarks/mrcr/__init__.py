"""Synthetic MRCR runs: items, responses, the Gym aggregate, the run directory."""
