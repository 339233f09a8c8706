"""The GPQA task of the bundled pair, run for real: nemo-evaluator 0.2.8's `run_eval` with
nvidia-simple-evals 26.3's `gpqa_diamond`, against the loopback stub of bundled_pair_stub.

GPQA-Diamond is a gated Hugging Face dataset and this machine has no network, so the
harness's own `load_dataset("Idavidrein/gpqa", "gpqa_diamond")` is served from a local
`datasets` cache (HF offline mode) that holds synthetic GPQA-shaped items. Everything
after that (prompting, the adapter's interceptors, answer extraction, scoring,
results.yml and eval_factory_metrics.json) is the harness's own code. The run's clock
readings, temporary paths and the stub's port are normalised afterwards (PROVENANCE.md).
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
from pathlib import Path

import yaml
from bundled_pair_stub import Stub

N_ITEMS = 198  # GPQA-Diamond's size
KNOWN = 0.78  # share of items within reach of either side (shared by both)
HIT_RATE = {"baseline": 0.97, "candidate": 0.93}
# The third run is the candidate's model behind a broken reasoning setup (the stub's
# "broken" serving): same answers, returned where the harness does not read them.
STUB_SIDE = {
    "baseline": "baseline",
    "candidate": "candidate",
    "candidate-reasoning": "candidate/broken",
}
MAX_NEW_TOKENS = 16384  # simple-evals' own default; the MRCR template's null breaks it
URL = "http://127.0.0.1:5009/v1/chat/completions"  # the launcher's proxy, as in run.sub
CLOCK = "2026-11-30T10:20:00"
_NOUNS = ("isotope", "ligand", "lattice", "enzyme", "orbital", "operator", "catalyst", "gene")
_VERBS = ("stabilises", "splits", "binds", "inverts", "shields", "couples")

_CACHE_SCRIPT = """
import shutil, sys
from pathlib import Path
from datasets.packaged_modules.json.json import Json
cache, rows = Path(sys.argv[1]), sys.argv[2]
b = Json(cache_dir=str(cache / "build"), dataset_name="Idavidrein___gpqa",
         config_name="gpqa_diamond", hash="0000000000000000", data_files={"train": rows})
b.download_and_prepare()
# Where load_dataset's offline fallback looks: <namespace>___<name>/<config>/<version>/<hash>
dest = cache / "Idavidrein___gpqa" / "gpqa_diamond" / "0.0.0" / "0000000000000000"
dest.parent.mkdir(parents=True)
shutil.move(b.cache_dir, dest)
(dest / "idavidrein___gpqa-train.arrow").rename(dest / "gpqa-train.arrow")
"""


def make_bank(seed: int) -> list[dict]:
    """Synthetic GPQA-shaped rows (the dataset's column names), none from GPQA."""
    rng = random.Random(f"{seed}-gpqa")
    rows = []
    for n in range(N_ITEMS):
        noun, verb = rng.choice(_NOUNS), rng.choice(_VERBS)
        options = rng.sample(range(10, 99), 4)
        rows.append(
            {
                "Record ID": f"recSynthetic{n:03d}",
                "Question": f"(Synthetic item {n}) Which {noun} {verb} at step {n % 7 + 2}?",
                "Correct Answer": f"the {noun} of class {options[0]}",
                "Incorrect Answer 1": f"the {noun} of class {options[1]}",
                "Incorrect Answer 2": f"the {noun} of class {options[2]}",
                "Incorrect Answer 3": f"the {noun} of class {options[3]}",
                "known": rng.random() < KNOWN,
            }
        )
    return rows


def write_cache(python: Path, rows: list[dict], work: Path) -> Path:
    """A `datasets` cache that answers load_dataset("Idavidrein/gpqa", "gpqa_diamond")."""
    cache = work / "hf-datasets"
    data = work / "gpqa_rows.jsonl"
    data.write_text(
        "".join(json.dumps({k: v for k, v in r.items() if k != "known"}) + "\n" for r in rows)
    )
    subprocess.run(
        [str(python), "-c", _CACHE_SCRIPT, str(cache), str(data)],
        env=_env(python, cache),
        check=True,
        capture_output=True,
        timeout=300,
    )
    return cache


def _env(python: Path, cache: Path) -> dict[str, str]:
    return {
        "PATH": f"{python.parent}:/usr/bin:/bin",
        "HOME": str(cache.parent),
        "HF_DATASETS_CACHE": str(cache),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "NEMO_EVALUATOR_TELEMETRY_LEVEL": "0",  # no network calls from the harness
        "DUMMY_API_KEY": "dummy",
        "NO_PROXY": "127.0.0.1,localhost",
        "TZ": "UTC",
    }


# The harness files kept per side (under artifacts/): the headline files and the two
# per-item databases, simple-evals' own (one row per item) and the adapter's response
# cache (finish_reason per response). PROVENANCE.md lists what is dropped.
KEPT = (
    "results.yml",
    "eval_factory_metrics.json",
    "gpqa_diamond/cache/cache.sqlite/cache.db",
    "cache/responses/cache.db",
)
STORED = 1796000000.0  # the fixed clock written into the databases' time columns


def run_side(
    python: Path,
    cache: Path,
    rows: list[dict],
    side: str,
    ef: str,
    work: Path,
    budget: int | None = None,
    may_fail: bool = False,
):
    """Run the task on one side; returns {path under artifacts/: bytes} for KEPT (those
    written). `budget` caps the stub's answers (then 503s); `may_fail` keeps the files of
    a run the harness aborted."""
    out = work / f"gpqa-{side}"
    config = yaml.safe_load(ef)
    config.pop("metadata", None)
    config["config"]["output_dir"] = str(out)
    items = {row["Question"]: row for row in rows}
    model = STUB_SIDE[side].split("/")[0]
    budget = 3 * N_ITEMS if budget is None else budget
    with Stub(items, STUB_SIDE[side], HIT_RATE[model], max_requests=budget) as stub:
        config["target"]["api_endpoint"]["url"] = stub.url
        path = work / f"gpqa-{side}.yaml"
        path.write_text(yaml.safe_dump(config))
        proc = subprocess.run(
            [str(python.parent / "nemo-evaluator"), "run_eval", "--run_config", str(path)],
            env=_env(python, cache),
            cwd=work,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
    if proc.returncode != 0 and not may_fail:
        raise SystemExit(f"nemo-evaluator run_eval failed ({side}):\n{proc.stderr[-3000:]}")
    files = {}
    if may_fail:  # what the harness printed: in a launcher run, the client log
        files["stdout"] = pin_output(proc.stdout, python, work)
    if (out / "results.yml").is_file():
        results = (out / "results.yml").read_text()
        files["results.yml"] = results.replace(stub.url, URL).replace(str(out), "/results").encode()
    if (out / "eval_factory_metrics.json").is_file():
        metrics = json.loads((out / "eval_factory_metrics.json").read_text())
        text = json.dumps(normalise_metrics(metrics), indent=2) + "\n"
        files["eval_factory_metrics.json"] = text.encode()
    for name in KEPT[2:]:
        if (out / name).is_file():
            files[name] = normalise_db(out / name, work / f"{side}-{name.replace('/', '_')}")
    return files


def pin_output(text: str, python: Path, work: Path) -> bytes:
    """The harness's stdout with this machine's paths and the adapter's random port
    replaced by fixed stand-ins."""
    base = Path(os.path.realpath(python)).parent.parent  # the interpreter the venv is made of
    text = text.replace(str(python.parent.parent), "/opt/harness").replace(str(work), "/work")
    text = text.replace(str(base), "/usr/local")
    return re.sub(r"localhost:\d+", "localhost:3825", text).encode()


def normalise_db(path: Path, scratch: Path) -> bytes:
    """A harness database with its clock columns pinned and its pages compacted.

    Rows, keys and their order (the order the harness stored them: completion order) are
    kept. simple-evals' html fragment is cut to its Results section (the extracted answer
    and score; the prompt and reply it repeats are in the row's convo), which halves the
    file. The bytes still depend on the SQLite library that wrote them (its version is in
    the file header), so a re-run on another machine compares rows, not bytes."""
    shutil.copyfile(path, scratch)
    con = sqlite3.connect(scratch)
    with con:
        con.execute("UPDATE Cache SET store_time = ?, access_time = ?", (STORED, STORED))
        if path.parent.name == "cache.sqlite":
            for rowid, value in con.execute("SELECT rowid, value FROM Cache").fetchall():
                row = json.loads(value)
                html = row.get("html") or ""
                if "<h3>Results</h3>" in html:
                    row["html"] = html[html.index("<h3>Results</h3>") :]
                con.execute(
                    "UPDATE Cache SET value = ? WHERE rowid = ?",
                    (json.dumps(row).encode(), rowid),
                )
    con.execute("PRAGMA journal_mode = DELETE")
    con.execute("VACUUM")
    con.close()
    return scratch.read_bytes()


def normalise_metrics(doc: dict) -> dict:
    """Pin what the run measured from the clock or the process (times, latencies,
    memory); every count, token figure and reasoning statistic is left as written."""
    stats = doc.get("response_stats", {})
    for key in ("avg_latency_ms", "max_latency_ms", "inference_time"):
        if key in stats:
            stats[key] = 0.0
    if "last_request_time" in stats:
        stats["last_request_time"] = 1796000000.0
    for run in stats.get("inference_run_times", {}).values():
        for key in ("run_start", "first_request_time", "last_request_time"):
            run[key] = CLOCK
        run["inference_time"] = 0.0
        run["time_to_first_request_seconds"] = 0.0
    ev = doc.get("evaluation", {})
    for key in list(ev):
        if key.endswith(("_time", "_seconds", "_bytes")):
            ev[key] = CLOCK + "Z" if key.endswith("_time") else 0
    return doc
