"""evalkit: checks and scores for NeMo Evaluator Launcher runs."""

__version__ = "0.1.0"

# The launcher release every rule and template in this skill was validated against.
VALIDATED_LAUNCHER = "0.2.6"
