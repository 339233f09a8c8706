"""Checkers for the protocol's scenarios, written before any helper ran.

Each reads the deliverable a helper wrote under the scenario's out/ (the config through
YAML, a verdict through JSON) and returns the checks made, each (name, passed, detail).
The expected values sit in each manifest's `expect`; for the setup paths they are what
`evalkit init` and `evalkit size` derive on the same inputs (tests/test_protocol_scenarios.py
checks that init's own config passes), and what tests/evals/evals.json states.
"""

from __future__ import annotations

import json
import math
import re
import shlex
from pathlib import Path

import yaml

Check = tuple[str, bool, str]
_REF = re.compile(r"\$\{([A-Za-z0-9_.]+)\}")


def _walk(obj):
    if isinstance(obj, dict):
        yield obj
        for value in obj.values():
            yield from _walk(value)
    elif isinstance(obj, list):
        for value in obj:
            yield from _walk(value)


def _get(cfg: dict, dotted: str):
    node = cfg
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _resolve(cfg: dict, text: str) -> str:
    """`${a.b}` references to scalars replaced by their value (the launcher's OmegaConf
    does the same before bash sees the command)."""

    def sub(match):
        value = _get(cfg, match.group(1))
        return match.group(0) if isinstance(value, (dict, list)) or value is None else str(value)

    return _REF.sub(sub, text)


def vllm_flags(cfg: dict) -> dict:
    """The `vllm serve` flags as bash receives them: a `#` ends the line's words, and in a
    folded block everything after it on the joined line."""
    command = _get(cfg, "deployment.command") or ""
    # Backslash-newline joins lines; any other newline ends the command, so only the
    # line that starts the server carries its flags.
    lines = _resolve(cfg, str(command)).replace("\\\n", " ").splitlines() or [""]
    line = next((text for text in lines if "serve" in text.split("#")[0]), lines[0])
    words = shlex.split(line, comments=True)
    flags: dict = {}
    i = 0
    while i < len(words):
        word = words[i]
        if word.startswith("-"):
            if "=" in word:
                name, value = word.split("=", 1)
            elif i + 1 < len(words) and not words[i + 1].startswith("-"):
                name, value = word, words[i + 1]
                i += 1
            else:
                name, value = word, True
            flags[name] = value
        i += 1
    return flags


def _gym(cfg: dict) -> list[dict]:
    return [
        d["nemo_gym"]
        for d in _walk(cfg.get("evaluation"))
        if isinstance(d.get("nemo_gym"), dict) and "collect_rollout_params" in d["nemo_gym"]
    ]


def _int(value, default=None):
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _check_config(cfg: dict, exp: dict) -> list[Check]:
    out: list[Check] = []

    def add(name, ok, detail=""):
        out.append((name, bool(ok), detail))

    flags = vllm_flags(cfg)
    gyms = _gym(cfg)
    params_text = [str(g.get("data_prep_params") or "") for g in gyms]
    collect_text = [str(g.get("collect_rollout_params") or "") for g in gyms]
    add("gym-task", len(gyms) >= 1, f"{len(gyms)} nemo_gym parameter blocks")
    tasks = _get(cfg, "evaluation.tasks") or []
    names = [t.get("name") for t in tasks if isinstance(t, dict)]
    add("single-task", names == ["nemo_gym"], f"tasks {names}")
    strings = [v for d in _walk(cfg) for v in d.values() if isinstance(v, str)]
    add("no-blank", not any("???" in s for s in strings), "no ??? left")

    if "variant" in exp:
        texts = params_text + collect_text
        found = {m for t in texts for m in re.findall(r"config_n3_\w+\.yaml", t)}
        add("variant", found == {exp["variant"]} and params_text and collect_text, f"{found}")
    if "max_model_len" in exp:
        mml = _int(flags.get("--max-model-len"))
        add("max-model-len", mml in exp["max_model_len"], f"{mml}, want {exp['max_model_len']}")
    if "allow_long" in exp:
        value = (_get(cfg, "deployment.env_vars") or {}).get("VLLM_ALLOW_LONG_MAX_MODEL_LEN")
        ok = (str(value) == "lit:1") if exp["allow_long"] else value is None
        add("long-context-override", ok, f"VLLM_ALLOW_LONG_MAX_MODEL_LEN={value}")
    if "kv_fp8" in exp:
        kv = flags.get("--kv-cache-dtype")
        is_fp8 = isinstance(kv, str) and kv.startswith("fp8")
        add("kv-cache-dtype", is_fp8 == exp["kv_fp8"], f"--kv-cache-dtype {kv}")
    if "expert_parallel" in exp:
        has = "--enable-expert-parallel" in flags
        add("expert-parallel", has == exp["expert_parallel"], f"present={has}")
    if exp.get("trust_remote_code"):
        add("trust-remote-code", "--trust-remote-code" in flags, "")
    if exp.get("reasoning_parser"):
        parser = flags.get("--reasoning-parser")
        add("reasoning-parser", parser == exp["reasoning_parser"], f"{parser}")
    if "thinking" in exp:
        on = any(
            d["chat_template_kwargs"].get(k) is True
            for d in _walk(cfg.get("evaluation"))
            if isinstance(d.get("chat_template_kwargs"), dict)
            for k in ("enable_thinking", "thinking")
        )
        add("thinking", on == exp["thinking"], f"thinking on={on}")
    if "nodes" in exp:
        nodes = _int(_get(cfg, "execution.num_nodes"), 1)
        inst = _int(_get(cfg, "execution.num_instances"), 1)
        add("nodes", nodes == exp["nodes"] and inst == exp["nodes"], f"{nodes} nodes, {inst} inst")
    if "gpus_per_node" in exp:
        tp = _int(flags.get("--tensor-parallel-size"), 1)
        dp = _int(flags.get("--data-parallel-size"), 1)
        pp = _int(flags.get("--pipeline-parallel-size"), 1)
        # nel 0.2.6 configs/execution/slurm/default.yaml: gres gpu:8 unless the config says.
        gres = str(_get(cfg, "execution.gres") or "gpu:8")
        gpus = _int(gres.rsplit(":", 1)[-1])
        ok = tp * dp * pp == exp["gpus_per_node"] == gpus
        add("gpus", ok, f"TP {tp} x DP {dp} x PP {pp}, gres {gres}")
        if "min_tp" in exp:
            add("tp-fits", tp >= exp["min_tp"], f"TP {tp}, smallest that fits {exp['min_tp']}")
        if "fit" in exp:
            fit = {int(k): v for k, v in exp["fit"].items()}.get(tp, 0)
            par = _int(
                next(
                    (d["parallelism"] for d in _walk(cfg.get("evaluation")) if "parallelism" in d),
                    None,
                )
            )
            inst = _int(_get(cfg, "execution.num_instances"), 1)
            mns = _int(flags.get("--max-num-seqs"))
            per = math.ceil(par / (inst * dp)) if par else None
            running = min(x for x in (per, mns) if x is not None) if (per or mns) else None
            ok = running is not None and running <= fit
            add("no-preemption", ok, f"{running} sequences per replica, {fit} fit at full length")
    if exp.get("uncapped"):
        caps = [d["max_new_tokens"] for d in _walk(cfg.get("evaluation")) if "max_new_tokens" in d]
        nulls = all("max_output_tokens=null" in t for t in collect_text) and collect_text
        numeric = any(re.search(r"max_output_tokens=\d", t) for t in collect_text)
        ok = all(c is None for c in caps) and nulls and not numeric
        add("output-uncapped", ok, f"max_new_tokens {caps}")
    if "gym_image" in exp:
        images = [t.get("container") for t in tasks if isinstance(t, dict)]
        add("gym-image", images == [exp["gym_image"]], f"{images}")
    if "checkpoint_path" in exp:
        path = _get(cfg, "deployment.checkpoint_path")
        add("checkpoint-path", path == exp["checkpoint_path"], f"{path}")
    if "gym_commit" in exp:
        commits = [(g.get("install_on_the_fly") or {}).get("commit") for g in gyms]
        add("gym-commit", commits and set(commits) == {exp["gym_commit"]}, f"{commits}")
    if exp.get("use_caching_off"):
        values = [
            d["adapter_config"].get("use_caching")
            for d in _walk(cfg.get("evaluation"))
            if isinstance(d.get("adapter_config"), dict)
        ]
        add("response-cache-off", values and all(v is False for v in values), f"{values}")
    if exp.get("gym_params_no_comment"):
        texts = [
            str(g.get(k) or "")
            for g in gyms
            for k in ("data_prep_params", "collect_rollout_params", "common_params")
        ]
        add("gym-params-no-comment", not any(re.search(r"(^|\s)#", t) for t in texts), "")
    if exp.get("gym_command_no_brace"):
        add("gym-command-no-brace", not any("${" in str(g.get("command") or "") for g in gyms), "")
    if exp.get("walltime_string"):
        wall = _get(cfg, "execution.walltime")
        ok = isinstance(wall, str) and re.fullmatch(r"(\d+-)?\d+:\d\d:\d\d", wall)
        add("walltime-string", ok, f"{wall!r}")
    for key, want in exp.get("values", {}).items():
        got = _get(cfg, key)
        add(f"value {key}", got == want, f"{got!r}, want {want!r}")
    for flag in exp.get("flags_present", []):
        add(f"flag {flag}", flag in flags, "reaches vllm serve" if flag in flags else "dropped")
    return out


def check_config(folder: Path, exp: dict) -> list[Check]:
    path = folder / "out" / "config.yaml"
    try:
        cfg = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        return [("deliverable", False, f"out/config.yaml: {type(exc).__name__}")]
    if not isinstance(cfg, dict):
        return [("deliverable", False, "out/config.yaml is not a mapping")]
    return _check_config(cfg, exp)


def _word(value):
    """A verdict word as the request spells it ("Let it run" and "let-it-run" count)."""
    return re.sub(r"[\s-]+", "_", value.strip().lower()) if isinstance(value, str) else value


def _verdict(folder: Path) -> dict | str:
    try:
        doc = json.loads((folder / "out" / "verdict.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return f"out/verdict.json: {type(exc).__name__}"
    return doc if isinstance(doc, dict) else "out/verdict.json is not an object"


def _run_ids(folder: Path) -> tuple[str, str]:
    """The invocation id (the run directory's 16-hex suffix) and the SLURM job id."""
    (task,) = sorted((folder / "run").glob("*/nemo_gym.0"))
    job = (task / ".slurm_job_id.list").read_text().split()[-1]
    return task.parent.name.rsplit("-", 1)[-1], job


def cancels(command: str, invocation: str, job: str) -> bool:
    """`nel kill ID` (the invocation id, a prefix of at least 8 characters, or its task
    `ID.0`), through nel or the gym wrapper, or `scancel JOB`."""
    for m in re.finditer(r"(?:\bnel|nel-gym\.sh)\s+kill\s+(\S+)", command or ""):
        ident = m.group(1).strip("'\"`").split(".")[0]
        if len(ident) >= 8 and invocation.startswith(ident):
            return True
    return bool(re.search(rf"\bscancel\b[^\n]*\b{re.escape(job)}\b", command or ""))


def check_running(folder: Path, exp: dict) -> list[Check]:
    doc = _verdict(folder)
    if isinstance(doc, str):
        return [("deliverable", False, doc)]
    out: list[Check] = []
    verdict = _word(doc.get("verdict"))
    out.append(("verdict", verdict in exp["verdict"], f"{verdict}, want {exp['verdict']}"))
    command = doc.get("cancel_command")
    if "stop" in exp["verdict"]:
        invocation, job = _run_ids(folder)
        ok = isinstance(command, str) and cancels(command, invocation, job)
        out.append(("cancel-command", ok, f"{command!r} (invocation {invocation}, job {job})"))
    else:
        out.append(("no-cancel", not command, f"{command!r}"))
    if "finishes_in_time" in exp:
        got = doc.get("finishes_in_time")
        out.append(("finishes-in-time", got is exp["finishes_in_time"], f"{got}"))
    return out


def check_gate(folder: Path, exp: dict) -> list[Check]:
    doc = _verdict(folder)
    if isinstance(doc, str):
        return [("deliverable", False, doc)]
    verdict, cause = _word(doc.get("verdict")), _word(doc.get("cause"))
    return [
        ("verdict", verdict in exp["verdict"], f"{verdict}, want {exp['verdict']}"),
        ("cause", cause in exp["cause"], f"{cause}, want {exp['cause']}"),
    ]


CHECKERS = {fn.__name__: fn for fn in (check_config, check_running, check_gate)}


def check(manifest: dict, folder: Path) -> list[Check]:
    """Run the checker the manifest names (`proto_checks.py:NAME`) on its folder."""
    name = manifest["checker"].rsplit(":", 1)[-1]
    return CHECKERS[name](folder, manifest["expect"])
