"""Dry-run many configs through the real nel 0.2.6 in one Python process.

    python tests/preflight/nel_batch.py JOBS.json VERDICTS.json

Each job is {"config": PATH, "overrides": ["k=v", ...]}; each verdict is {"ok": bool,
"error": str}. It makes the same calls as `nel run --config PATH -o ... --dry-run`
(nemo_evaluator_launcher/cli/run.py: override partition, RunConfig.from_hydra, task-name
sugar, run_eval(dry_run=True)), so one launcher import serves a whole batch (~3 s each
through the CLI). test_differential.py checks a sample against the real CLI.

One deviation, for speed only: the launcher re-parses its packaged task catalog
(resources/all_tasks_irs.yaml, ~1 MB) with pure-Python YAML four times per dry-run; here
that loader is memoised so a batch parses it once. The data it returns is the same.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import logging
import sys


def dry_run(config: str, overrides: list[str]) -> dict:
    from nemo_evaluator_launcher.api.functional import RunConfig, run_eval
    from nemo_evaluator_launcher.common.override_sugar import (
        apply_task_name_overrides,
        partition_overrides,
    )

    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            hydra_overrides, sugar = partition_overrides(overrides)
            cfg = RunConfig.from_hydra(config=config, hydra_overrides=hydra_overrides)
            if sugar:
                cfg = apply_task_name_overrides(cfg, sugar)
            run_eval(cfg, dry_run=True)
    except BaseException as err:  # noqa: BLE001 - every refusal, SystemExit included
        text = f"{type(err).__name__}: {err}".strip().splitlines()
        return {"ok": False, "error": text[0] if text else type(err).__name__}
    return {"ok": True, "error": ""}


def memoise_catalog() -> None:
    from nemo_evaluator_launcher.common.container_metadata import intermediate_repr

    intermediate_repr._load_irs_from_package = functools.lru_cache(maxsize=None)(
        intermediate_repr._load_irs_from_package
    )


def main(argv: list[str]) -> int:
    logging.disable(logging.CRITICAL)
    memoise_catalog()
    with open(argv[0], encoding="utf-8") as f:
        jobs = json.load(f)
    out = [dry_run(job["config"], job.get("overrides", [])) for job in jobs]
    # a file, not stdout: the launcher's logger may hold the real stdout
    with open(argv[1], "w", encoding="utf-8") as f:
        json.dump(out, f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
