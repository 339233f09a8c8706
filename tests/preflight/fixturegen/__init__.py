"""The golden-fixture generator, one module per preflight rule family (as the rules are
numbered in tools/evalkit/preflight/rules/): each module's `generate()` writes that
family's fixtures under tests/preflight/fixtures/ from the clean bases in fixtures/_base/.
`common` holds the writers and the edits several families share. The command is
tests/preflight/make_fixtures.py."""

from . import (
    nel0xx_config,
    nel1xx_env,
    nel2xx_execution,
    nel3xx_deployment,
    nel4xx_gym,
    nel5xx_export,
    nel6xx_checkpoint,
    nel7xx_8xx_pair_launcher,
)

FAMILIES = (
    nel0xx_config,
    nel1xx_env,
    nel2xx_execution,
    nel3xx_deployment,
    nel4xx_gym,
    nel5xx_export,
    nel6xx_checkpoint,
    nel7xx_8xx_pair_launcher,
)


def generate_all() -> None:
    """Write every generated fixture. No wipe first: some fixtures are written by hand (a
    whole config rather than a base plus an edit) and live beside these; only the files
    generated here are overwritten."""
    for family in FAMILIES:
        family.generate()
