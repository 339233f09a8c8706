"""Regenerate the golden fixtures under tests/preflight/fixtures/NEL*/ from the two clean
bases in fixtures/_base/ (each fixture is a base plus a small text edit).

    bash tests/run.sh --python tests/preflight/make_fixtures.py

Edit the family's module in tests/preflight/fixturegen/ (nel0xx_config.py for NEL0xx and
so on), not the generated YAML, when a fixture needs to change. A fixture that is a whole
config of its own may be written by hand beside the generated ones (no entry there);
delete a generated fixture by hand when its entry goes.
"""

import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from fixturegen import generate_all

    generate_all()
