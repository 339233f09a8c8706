"""Dry-run many configs through the real nel 0.2.6 in one Python process.

    python tests/preflight/nel_batch.py JOBS.json VERDICTS.json

Each job is {"config": PATH, "overrides": ["k=v", ...]}; each verdict is {"ok": bool,
"error": str}. `run_batch` (the tests' entry) calls the launcher's own CLI `main` in this
process (tests/helpers/launcher.py); the script form and `dry_run` make the calls of
`nel run --config PATH -o ... --dry-run` one by one (nemo_evaluator_launcher/cli/run.py:
override partition, RunConfig.from_hydra, task-name sugar, run_eval(dry_run=True)).
One launcher import serves a whole batch (~3 s each through the CLI).
test_launcher_in_process.py checks verdicts against the real CLI.

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


# ---- for callers: the differential test and agree_on_examples.py ----------------------

# Blanks that reach the `vllm serve` line need values vLLM 0.26.0 accepts there; any
# other word would be a real startup failure (NEL312/NEL313), not a false error.
BLANK_VALUES = {"kv_cache_dtype": "auto", "reasoning_parser": "nemotron_v3"}


def fill_blanks(path, out_dir) -> list[str]:
    """-o overrides for every `???` of the composed config (the same for both tools)."""
    from evalkit.config import build_config, load_document
    from evalkit.config.interpolation import walk_strings
    from evalkit.config.yamldoc import override_path

    try:
        cfg = build_config(load_document(str(path)))
    except Exception:  # unreadable by preflight: both get no overrides
        return []
    overrides = []
    for key, value in walk_strings(cfg.data):
        if value == "???":
            filled = str(out_dir) if key[-1] == "output_dir" else BLANK_VALUES.get(key[-1])
            overrides.append(f"{override_path(key)}={filled or 'filled-in'}")
    return overrides


def launch_env(extra: dict | None = None) -> dict:
    """This process's environment for a dry-run: no NEMO_EVALUATOR_* leaking in, the
    test defaults (helpers.nel.DRY_RUN_ENV) and `extra` on top."""
    import os

    from helpers.nel import DRY_RUN_ENV

    env = {k: v for k, v in os.environ.items() if not k.startswith("NEMO_EVALUATOR_")}
    env.update(DRY_RUN_ENV)
    env.update(extra or {})
    return env


def run_batch(jobs: list, work, index: int, env: dict) -> list:
    """Dry-run `jobs` with the launcher in this process (helpers/launcher.py, the same
    call as `nel run --dry-run`), with `env` as the whole environment and `work` as the
    working directory; their verdicts. `index` names the batch (kept for callers)."""
    from helpers.launcher import launcher
    from helpers.nel import dry_run_argv

    out = []
    for job in jobs:
        argv = dry_run_argv(job["config"], None)
        for override in job.get("overrides", []):
            argv += ["-o", override]
        result = launcher().run(argv, env, str(work))
        out.append({"ok": result.returncode == 0, "error": result.error})
    return out


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
