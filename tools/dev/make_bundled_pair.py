"""Write the bundled baseline/candidate pair under tests/data/suite/ (see PROVENANCE.md there).

    python tools/dev/make_bundled_pair.py --sdist nemo_gym-0.7.0.tar.gz [--out tests/data/suite]

Needs, beside the repository's test extra: the `nemo-gym` 0.7.0 sdist (`pip download
nemo-gym==0.7.0 --no-deps --no-binary :all: --ignore-requires-python`), pandas and
orjson (Gym's aggregation runs on pandas and Gym writes the file with orjson), and the
real `nel` 0.2.6 beside this interpreter. Deterministic: a fixed seed, fixed invocation
ids and times; a second run writes the same bytes.

What is real: MRCR rewards, prefix_matched and seq_match_ratio come from Gym's own
`_grade`; the aggregate file from Gym's `compute_aggregate_metrics` with the MRCR server's
`compute_metrics`/`get_key_metrics`, written as Gym's rollout collection writes it; each
run.sub is the launcher's own dry-run rendering of its config (configs/: per side the
shipped MRCR template filled, standalone, and a GPQA config without Gym's parts). What is
synthetic: the item texts, the model responses and the log contents. GPQA's results.yml,
eval_factory_metrics.json and per-item databases come from nemo-evaluator + simple-evals
run against a loopback stub (bundled_pair_gpqa.py), when --harness names their venv's
python; a third run, candidate-reasoning (GPQA only), is the candidate's model behind a
broken reasoning setup.
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import bundled_pair_gpqa as gpqa
import yaml
from bundled_pair_gym import aggregate, load_gym

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "recipes/examples/gym/example_mrcr.yaml"
GYM = "nemo_gym-0.7.0"
SEED = 2025
N_PER_STRATUM = 30  # items per needle count: a 90-rollout canary
NEEDLES = (2, 4, 8)
AGENT = "mrcr_n3_1m_benchmark_simple_agent"
# Each side is a folder of invocations, as the skill runs them: the MRCR canary standalone
# in one invocation, GPQA in another. Per side: its checkpoint, which hit rates its
# responses follow (the candidate loses on 8-needle items only), and per invocation its
# launcher directory name (time and 16-hex id) and SLURM job id.
SIDES = {
    "baseline": ("model-bf16", 0),
    "candidate": ("model-nvfp4", 1),
    # The candidate's model served with a broken reasoning setup: GPQA only.
    "candidate-reasoning": ("model-nvfp4", 1),
}
INVOCATIONS = {
    ("baseline", "mrcr"): ("20261130_101500-b5e1a7c04d2f9e63", 5100001),
    ("baseline", "gpqa"): ("20261130_103000-a3c5e7f9b1d20468", 5100011),
    ("candidate", "mrcr"): ("20261201_091200-c7d30b9e58a1f426", 5100002),
    ("candidate", "gpqa"): ("20261201_092700-e8f0a2c4d6b81357", 5100012),
    ("candidate-reasoning", "gpqa"): ("20261202_081000-d4e6f8a0b2c41357", 5100003),
}
HIT_RATE = {0: {2: 0.98, 4: 0.98, 8: 0.98}, 1: {2: 0.98, 4: 0.98, 8: 0.78}}
FILL = {  # the template's `???` blanks, obviously fake
    "hostname": "login.cluster.invalid",
    "account": "fake-account",
    "partition": "fake-partition",
    "output_dir": "/lustre/fake/evals",
    "served_model_name": "served-model",
    "reasoning_parser": "nemotron_v3",
    "kv_cache_dtype": "auto",
    "container": "registry.invalid/fake/nemo-gym-git:a431501",
}

_VOCABULARY = (
    "amber basalt cedar delta ember fjord gravel harbor iris juniper kelp lantern meadow "
    "nectar orchard pebble quarry river saffron thicket umber valley willow yarrow zephyr "
    "the a of under over beside across toward while quietly slowly and we they remember"
)
WORDS = tuple(_VOCABULARY.split())
TOPICS = ("kites", "tides", "bakeries", "comets", "violins", "beehives", "lanterns", "ferries")
FORMS = ("poem", "short story", "letter", "riddle", "song")


# ---- items and responses (synthetic texts) ----------------------------------------------


def prose(rng: random.Random, words: int) -> str:
    lines = []
    while words > 0:
        n = min(words, rng.randint(5, 9))
        lines.append(" ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + ".")
        words -= n
    return "\n".join(lines)


def make_items(rng: random.Random) -> list[dict]:
    """MRCR-shaped items (the shape of Gym's resources_servers/mrcr example rollouts): a
    chat of asks and answers, then an ask to repeat the k-th answer to one ask, prefixed."""
    items = []
    for needles in NEEDLES:
        for _ in range(N_PER_STRATUM):
            topic, form = rng.choice(TOPICS), rng.choice(FORMS)
            turns, needle_answers = [], []
            for i in range(needles + rng.randint(2, 5)):
                is_needle = i < needles
                t, f = (topic, form) if is_needle else (rng.choice(TOPICS), rng.choice(FORMS))
                answer = prose(rng, rng.randint(40, 120))
                turns += [
                    {"role": "user", "content": f"Write a {f} about {t}."},
                    {"role": "assistant", "content": answer},
                ]
                if is_needle:
                    needle_answers.append(len(turns) - 1)
            order = list(range(0, len(turns), 2))  # shuffle whole ask/answer pairs
            rng.shuffle(order)
            turns = [turn for start in order for turn in turns[start : start + 2]]
            needle_turns = [
                i
                for i, turn in enumerate(turns)
                if turn["content"] == f"Write a {form} about {topic}."
            ]
            k = rng.randrange(needles)
            prefix = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(10))
            target = turns[needle_turns[k] + 1]["content"]
            ordinal = {1: "1st", 2: "2nd", 3: "3rd"}.get(k + 1, f"{k + 1}th")
            ask = (
                f"Prepend {prefix} to the {ordinal} {form} about {topic}. "
                "Do not include any other text."
            )
            turns.append({"role": "user", "content": ask})
            items.append(
                {
                    "input": turns,
                    "answer": prefix + target,
                    "prefix": prefix,
                    "n_needles": needles,
                    "n_tokens": sum(len(t["content"].split()) for t in turns) * 4 // 3,
                    "others": [
                        turns[i + 1]["content"] for i in needle_turns if i != needle_turns[k]
                    ],
                    "known": rng.random() < 0.85,  # the item is within reach of either model
                    "wrong": rng.randrange(needles - 1) if rng.random() < 0.7 else None,
                }
            )
    return items


def _slips(rng: random.Random, text: str) -> str:
    words = text.split(" ")
    for _ in range(rng.randint(1, 2)):  # a slip or two, so no two sides share bytes
        words[rng.randrange(len(words))] = rng.choice(WORDS)
    return " ".join(words)


def respond(rng: random.Random, item: dict, hit_rate: float) -> str:
    """A synthetic answer: the right turn copied with a few slips; else, as the item
    decides, another needle's turn (a partial ratio) or an answer without the prefix (0)."""
    if item["known"] and rng.random() < hit_rate:
        return item["prefix"] + _slips(rng, item["answer"][len(item["prefix"]) :])
    if item["wrong"] is not None:
        return item["prefix"] + _slips(rng, item["others"][item["wrong"]])
    return _slips(rng, item["answer"][len(item["prefix"]) :])  # Gym's gate scores it 0


def rollout(gym, rng: random.Random, item: dict, text: str, task: int, model: str) -> dict:
    response_text = text.strip()  # Gym's verify() reads response.output_text.strip()
    reward = gym.app._grade(response_text, item["answer"], item["prefix"])
    in_tok = item["n_tokens"] + 24
    out_tok = len(text.split()) * 4 // 3 + rng.randint(200, 900)  # reasoning tokens too
    msg = {"annotations": [], "text": text, "type": "output_text", "logprobs": None}
    return {
        "responses_create_params": {
            "input": item["input"],
            "max_output_tokens": None,
            "temperature": 1.0,
            "top_p": 0.95,
        },
        "response": {
            "id": f"resp_{rng.getrandbits(64):016x}",
            "created_at": 1796000000 + task * 37 + rng.randint(0, 30),
            "error": None,
            "incomplete_details": None,
            "metadata": {},
            "model": model,
            "object": "response",
            "output": [
                {
                    "id": f"msg_{rng.getrandbits(48):012x}",
                    "content": [msg],
                    "role": "assistant",
                    "status": "completed",
                    "type": "message",
                }
            ],
            "status": "completed",
            "usage": {
                "input_tokens": in_tok,
                "output_tokens": out_tok,
                "total_tokens": in_tok + out_tok,
            },
        },
        "expected_answer": item["answer"],
        "random_string_to_prepend": item["prefix"],
        "n_needles": item["n_needles"],
        "n_tokens": item["n_tokens"],
        "reward": reward,
        "prefix_matched": response_text.startswith(item["prefix"]),
        "seq_match_ratio": reward,
        "_ng_task_index": task,
        "_ng_rollout_index": 0,
        "agent_ref": {"type": "responses_api_agents", "name": AGENT},
    }


# ---- the launcher's own run.sub ---------------------------------------------------------


def filled_template(checkpoint: str, limit: int | None) -> str:
    """The shipped template with each `???` filled and, for the canary, its item limit."""
    text = TEMPLATE.read_text()
    for key, value in {**FILL, "checkpoint_path": f"/lustre/fake/checkpoints/{checkpoint}"}.items():
        text, n = re.subn(rf"^(\s*(?:- )?{key}: )\?\?\?$", rf"\g<1>{value}", text, flags=re.M)
        assert n == 1, key
    assert not re.search(r": \?\?\?$", text, flags=re.M)
    if limit is not None:
        text = text.replace("limit_samples: null", f"limit_samples: {limit}")
    return text


def mrcr_config(checkpoint: str) -> str:
    """The MRCR canary's config: the shipped template, filled, 90 items, nothing added."""
    text = filled_template(checkpoint, N_PER_STRATUM * len(NEEDLES))
    return text.replace("$schema=../../../schemas/", "$schema=../../../../schemas/", 1)


def gpqa_config(checkpoint: str) -> str:
    """GPQA's own config: the same cluster, server and generation settings as the MRCR
    config (so both invocations judge one served model), without anything Gym's: no
    `evaluation.pre_cmd` (it installs into /opt/Gym/.venv, which the simple-evals image
    has not), no `params.extra.nemo_gym`, and the GPQA task alone. The settings the GPQA
    harness files were produced with are kept: simple-evals' own 16384-token cap (a null
    is skipped when nemo-evaluator merges onto the framework defaults, so it would apply
    anyway; written, it shows), one request at a time (nemo-evaluator rounds its running
    token averages at every response, so with concurrency the bytes depend on arrival
    order), and adapter caching on (nemo-evaluator's default, which the MRCR template
    turns off for Gym; only with it on does the adapter keep every response, which gives
    each item its finish_reason)."""
    data = yaml.safe_load(filled_template(checkpoint, None))
    evaluation = data["evaluation"]
    del evaluation["pre_cmd"]
    params = evaluation["nemo_evaluator_config"]["config"]["params"]
    del params["extra"]
    params.update(max_new_tokens=gpqa.MAX_NEW_TOKENS, parallelism=1)
    adapter = evaluation["nemo_evaluator_config"]["target"]["api_endpoint"]["adapter_config"]
    adapter["use_caching"] = True
    evaluation["tasks"] = [{"name": "simple_evals.gpqa_diamond"}]
    head = (
        "# yaml-language-server: $schema=../../../../schemas/nel-0.2.6-config.schema.json\n"
        "# GPQA-Diamond on simple-evals, standalone: written by tools/dev/make_bundled_pair.py\n"
        "# from recipes/examples/gym/example_mrcr.yaml with everything Gym's taken out.\n"
    )
    return head + yaml.safe_dump(data, sort_keys=False, width=100, allow_unicode=True)


def dry_run(config: Path) -> dict[str, str]:
    """The real `nel run --dry-run` (0.2.6): {task dir name: run.sub text}."""
    nel = Path(sys.executable).parent / "nel"
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(config.parent),
        "USER": "fake-user",
        "HF_TOKEN": "hf_fake_token",
        "NEMO_EVALUATOR_TRUST_PRE_CMD": "1",
        "NEMO_EVALUATOR_TRUST_UNLISTED_TASKS": "1",
        "NO_PROXY": "*",
    }
    proc = subprocess.run(
        [str(nel), "run", "--config", str(config), "--dry-run"],
        cwd=config.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"nel dry-run failed:\n{proc.stderr[-2000:]}")
    scripts = {}
    for chunk in proc.stdout.split("#!/bin/bash")[1:]:
        body = chunk.split("To submit jobs, run the executor without --dry-run")[0]
        body = body.split("----------- Secrets (redacted)")[0]
        task_dir = re.search(r'^TASK_DIR="?([^"\n]+)"?$', body, flags=re.M).group(1)
        scripts[Path(task_dir).name] = "#!/bin/bash" + body.rstrip("\n") + "\n"
    return scripts


def fix_ids(text: str, invocation_dir: str, workdir: Path) -> str:
    """The dry-run draws a fresh invocation id and time and random 4-hex suffixes for the
    secret variables, and records the config's temporary path: pin each of them, inside
    the base64 payloads too, so a second run writes the same bytes."""
    found = re.search(r"/lustre/fake/evals/(\d{8}_\d{6}-([0-9a-f]{16}))", text)
    pins = {found.group(1): invocation_dir, found.group(2): invocation_dir.split("-")[1]}
    pins[str(workdir)] = "/home/fake-user/configs"
    suffixes = re.findall(r"(?<=[A-Z])_([0-9a-f]{4})_(?=[A-Z])", text)
    for n, suffix in enumerate(dict.fromkeys(suffixes)):  # numbered in order of appearance
        pins[f"_{suffix}_"] = f"_{n:04d}_"

    def pin(chunk: str) -> str:
        for old, new in pins.items():
            chunk = chunk.replace(old, new)
        return chunk

    def pin_blob(match: re.Match) -> str:
        decoded = base64.b64decode(match.group(1)).decode()
        return f'echo "{base64.b64encode(pin(decoded).encode()).decode()}"'

    return pin(re.sub(r'echo "([A-Za-z0-9+/=]{16,})"', pin_blob, text))


def config_ef(run_sub: str) -> str:
    """The nemo-evaluator config that run.sub hands the task container (base64)."""
    blob = re.search(r'echo "([A-Za-z0-9+/=]{40,})" \| base64 -d > config_ef\.yaml', run_sub)
    return base64.b64decode(blob.group(1)).decode()


# ---- writing one side -------------------------------------------------------------------


def log_names(run_sub: str, job: int) -> list[str]:
    """Log file names from run.sub's `--output` patterns: %A the job, ${g} the instance,
    %t the task in its srun (one per instance)."""
    instances = (
        int(re.search(r"for \(\(g=0; g<(\d+); g\+\+\)\)", run_sub).group(1))
        if "g<" in run_sub
        else 0
    )
    names = []
    for pattern in re.findall(r"--output \S*/logs/(\S+)", run_sub):
        if "${g}" in pattern:
            names += [pattern.replace("${g}", str(g)) for g in range(instances)]
        else:
            names.append(pattern)
    return sorted({n.replace("%A", str(job)).replace("%t", "0") for n in names})


def write_invocation(gym, out: Path, side: str, kind: str, items, scripts, workdir, run_gpqa):
    """One invocation of one side: its task directories as the launcher lays them out."""
    inv_dir, job = INVOCATIONS[(side, kind)]
    rng = random.Random(f"{SEED}-{side}")  # the MRCR draws, as before the split
    for task, script in scripts.items():
        script = fix_ids(script, inv_dir, workdir)
        task_dir = out / side / inv_dir / task
        (task_dir / "artifacts").mkdir(parents=True)
        (task_dir / "logs").mkdir()
        (task_dir / "run.sub").write_text(script)
        ef = config_ef(script)
        (task_dir / "artifacts" / "run_config.yml").write_text(ef)
        names = log_names(script, job)
        if kind == "mrcr":
            write_mrcr(gym, task_dir, rng, items, HIT_RATE[SIDES[side][1]], names, job)
        else:
            write_gpqa(task_dir, run_gpqa(side, ef), names, job)


def write_logs(task_dir: Path, names: list[str], client: str, job: int) -> None:
    for name in names:
        if name.startswith("client-"):
            text = client
        elif name.startswith("slurm-"):
            text = f"Submitted as SLURM job {job} (synthetic log)\n"
        else:
            text = (
                "INFO Started server process (synthetic log)\nINFO Application startup complete.\n"
            )
        (task_dir / "logs" / name).write_text(text)


def write_mrcr(gym, task_dir, rng, items, hit_rate, names, job) -> None:
    records = []
    for task, item in enumerate(items):
        draw = random.Random(f"{rng.random()}-{task}")
        records.append(
            rollout(
                gym,
                draw,
                item,
                respond(draw, item, hit_rate[item["n_needles"]]),
                task,
                "served-model",
            )
        )
    arts = task_dir / "artifacts"
    (arts / "evaluator_rollouts_aggregate_metrics.json").write_bytes(aggregate(gym, records))
    order = list(records)
    rng.shuffle(order)  # completion order
    (arts / "evaluator_rollouts.jsonl").write_bytes(
        b"".join(
            json.dumps(r, ensure_ascii=False, separators=(",", ":")).encode() + b"\n" for r in order
        )
    )
    client = (
        "=== NeMo Gym commit ===\na431501aa294f3237d472aaf58dd1e5026156ea8\n"
        "=== NeMo Gym version ===\na431501aa294f3237d472aaf58dd1e5026156ea8\n"
        f"Collecting rollouts: {len(records)} rows (synthetic log)\n"
    )
    write_logs(task_dir, names, client, job)


def write_gpqa(task_dir: Path, files: dict[str, bytes], names: list[str], job: int) -> None:
    """The harness's files as it wrote them (normalised): results.yml,
    eval_factory_metrics.json and the per-item databases (gpqa.KEPT)."""
    for name, data in files.items():
        path = task_dir / "artifacts" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    write_logs(task_dir, names, "Evaluating gpqa_diamond: 198 samples (synthetic log)\n", job)


def gpqa_runner(harness: Path | None, work: Path):
    """With --harness, run the task for real per side; without it, reuse the bundled
    harness output, read now, before --out (often the bundle itself) is rewritten."""
    if harness is None:
        saved = {}
        for side in SIDES:
            found = sorted((ROOT / "tests/data/suite" / side).glob("*/simple_evals.gpqa_diamond.*"))
            arts = found[0] / "artifacts"
            saved[side] = {name: (arts / name).read_bytes() for name in gpqa.KEPT}
        return lambda side, _ef: saved[side]
    rows = gpqa.make_bank(SEED)
    cache = gpqa.write_cache(harness, rows, work)
    return lambda side, ef: gpqa.run_side(harness, cache, rows, side, ef, work)


CONFIGS = {"mrcr": mrcr_config, "gpqa": gpqa_config}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sdist", type=Path, required=True, help=f"{GYM}.tar.gz")
    parser.add_argument("--out", type=Path, default=ROOT / "tests/data/suite")
    parser.add_argument(
        "--harness",
        type=Path,
        help="python of a venv with nemo-evaluator 0.2.8 and nvidia-simple-evals 26.3; "
        "without it the bundled GPQA harness files (results.yml, metrics, the per-item "
        "databases) are reused",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bundled-pair-") as tmp:
        work = Path(tmp)
        gym = load_gym(args.sdist, work)
        items = make_items(random.Random(SEED))
        run_gpqa = gpqa_runner(args.harness, work)
        configs = args.out / "configs"
        if configs.exists():
            shutil.rmtree(configs)
        configs.mkdir(parents=True)
        for side in SIDES:
            if (args.out / side).exists():
                shutil.rmtree(args.out / side)
        for side, kind in INVOCATIONS:
            name = f"{side}-{kind}.yaml"
            text = CONFIGS[kind](SIDES[side][0])
            (work / name).write_text(text)
            (configs / name).write_text(text)
            scripts = dry_run(work / name)
            write_invocation(gym, args.out, side, kind, items, scripts, work, run_gpqa)
    return 0


if __name__ == "__main__":
    sys.exit(main())
