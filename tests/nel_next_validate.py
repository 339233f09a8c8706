"""Run inside a nel-next environment: load each config with the package's own loader.

stdin: JSON list of {"name", "path", "overrides"}; stdout: JSON {name: "ok" | error}.
"""

import json
import sys

from nemo_evaluator.cli.eval import _load_config

verdicts = {}
for item in json.load(sys.stdin):
    try:
        _load_config(item["path"], tuple(item.get("overrides", ())))
        verdicts[item["name"]] = "ok"
    except Exception as exc:  # the package raises pydantic, click and value errors
        verdicts[item["name"]] = f"{type(exc).__name__}: {exc}"
json.dump(verdicts, sys.stdout)
