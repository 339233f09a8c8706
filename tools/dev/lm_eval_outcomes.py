"""An lm-eval task run for real, for the outcome reader's fixture: nemo-evaluator 0.2.8's
`run_eval` with nvidia-lm-eval 26.3 (type `gsm8k_cot_zeroshot`, chat endpoint) against a
loopback stub that answers each item in one of five ways.

The task is the harness's own machinery on a tiny local task (`--include_path` to a task
YAML whose data is a local JSON file: no network, no gated data): prompting, the
adapter's interceptors (response cache, response and reasoning stats), the regex filter,
exact-match scoring, the samples file, results.yml and eval_factory_metrics.json are all
written by the real code. Only the stub's replies are made here:

  item % 5 == 0  right answer            -> scored (1)
  item % 5 == 1  wrong answer            -> scored (0)
  item % 5 == 2  cut at max_tokens       -> finish_reason "length", no answer line
  item % 5 == 3  content null, reasoning_content holds the answer (reasoning_only)
  item % 5 == 4  a finished reply with no answer line (unparsed: "[invalid]")

With --failing, item 7 is answered HTTP 400 "maximum context length" every time: lm-eval
retries it, then the run aborts (no results.yml, no samples file).

Usage: python tools/dev/lm_eval_outcomes.py --harness HARNESS/bin/python --out DIR
where HARNESS is a venv with `nemo-evaluator==0.2.8 nvidia-lm-eval==26.3`.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

N_ITEMS = 20
TASK = "evalkit_tiny_math"
TASK_YAML = f"""task: {TASK}
dataset_path: json
dataset_kwargs:
  data_files:
    test: DATA
test_split: test
output_type: generate_until
doc_to_text: "Question: {{{{question}}}}\\nEnd with 'The answer is N'."
doc_to_target: "{{{{answer}}}}"
generation_kwargs:
  until: []
  max_gen_toks: 64
filter_list:
  - name: strict-match
    filter:
      - function: regex
        regex_pattern: "The answer is (\\\\-?[0-9]+)"
      - function: take_first
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
"""
_NUMBER = re.compile(r"Question: what is (\d+) plus (\d+)\?")


def reply(prompt: str) -> tuple[str | None, str | None, str]:
    """(content, reasoning_content, finish_reason) for one prompt."""
    found = _NUMBER.search(prompt)
    if not found:
        return "I do not know.", None, "stop"
    a, b = int(found.group(1)), int(found.group(2))
    kind = a % 5
    if kind == 0:
        return f"Adding them gives {a + b}. The answer is {a + b}", None, "stop"
    if kind == 1:
        return f"Adding them gives {a + b + 1}. The answer is {a + b + 1}", None, "stop"
    if kind == 2:
        return f"Let me add {a} and {b} step by step, carrying the digits one", None, "length"
    if kind == 3:
        return None, f"{a} plus {b} is {a + b}. The answer is {a + b}", "stop"
    return f"{a} and {b} together make a number I would rather not state.", None, "stop"


class _Handler(BaseHTTPRequestHandler):
    budget = [50 * N_ITEMS]  # bounded: lm-eval retries a failed request
    failing = [False]  # --failing: item 7 is refused as too long, every time

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.budget[0] -= 1
        prompt = "\n".join(str(m.get("content") or "") for m in body.get("messages", []))
        if self.failing[0] and "what is 7 plus 10?" in prompt:
            # vLLM's 400 for a prompt plus max_tokens over the context (its wording, as
            # far as this stub knows it: a guess, not copied from a server)
            data = json.dumps(
                {
                    "object": "error",
                    "message": "This model's maximum context length is 64 tokens. However, "
                    "you requested 94 tokens (30 in the messages, 64 in the completion). "
                    "Please reduce the length of the messages or completion.",
                    "type": "BadRequestError",
                    "code": 400,
                }
            ).encode()
            self.send_response(400)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        content, reasoning, finish = reply(prompt)
        message = {"role": "assistant", "content": content}
        if reasoning is not None:
            message["reasoning_content"] = reasoning
        tokens = 64 if finish == "length" else 12
        out = {
            "id": f"chatcmpl-{abs(hash(prompt)) % 10**8}",
            "object": "chat.completion",
            "created": 1796000000,
            "model": body.get("model", "served-model"),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": 30,
                "completion_tokens": tokens,
                "total_tokens": 30 + tokens,
            },
        }
        data = json.dumps(out).encode()
        self.send_response(200 if self.budget[0] >= 0 else 503)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_args) -> None:
        pass


KEEP = ("results.yml", "eval_factory_metrics.json", "run_config.yml", "cache/responses/cache.db")
URL = "http://127.0.0.1:5009/v1/chat/completions"  # the launcher's proxy, as in run.sub


def keep(results: Path, out: Path, url: str) -> None:
    """Copy what evalkit reads, with the stub's URL and the temporary output directory
    written back as the launcher's (`/results`), as the bundled pair does."""
    if out.exists():
        shutil.rmtree(out)
    files = [results / name for name in KEEP] + sorted(results.glob("*/samples_*.jsonl"))
    for src in files:
        if not src.is_file():
            continue
        dest = out / "artifacts" / src.relative_to(results)
        dest.parent.mkdir(parents=True, exist_ok=True)
        if src.suffix in (".yml", ".json", ".jsonl"):
            text = src.read_text().replace(url, URL).replace(str(results), "/results")
            dest.write_text(text.replace(str(results.parent), "/tmp/harness-run"))
        else:
            shutil.copyfile(src, dest)


def run(harness: Path, out: Path, failing: bool = False) -> None:
    _Handler.failing[0] = failing
    work = Path(tempfile.mkdtemp(prefix="lmeval-outcomes-"))
    data = work / "tiny.jsonl"
    data.write_text(
        "".join(
            json.dumps({"question": f"what is {n} plus {n + 3}?", "answer": str(2 * n + 3)}) + "\n"
            for n in range(N_ITEMS)
        )
    )
    tasks = work / "tasks"
    tasks.mkdir()
    (tasks / f"{TASK}.yaml").write_text(TASK_YAML.replace("DATA", str(data)))
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    timer = threading.Timer(600, server.shutdown)  # stops by itself
    threading.Thread(target=server.serve_forever, daemon=True).start()
    timer.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1/chat/completions"
    results = work / "results"
    config = {
        "config": {
            "type": "gsm8k_cot_zeroshot",
            "output_dir": str(results),
            "params": {
                "task": TASK,
                "parallelism": 1,
                "max_new_tokens": 64,
                "limit_samples": None,
                "extra": {"args": f"--include_path {tasks}", "num_fewshot": 0},
            },
        },
        "target": {"api_endpoint": {"url": url, "model_id": "served-model", "type": "chat"}},
    }
    path = work / "run_config.yaml"
    path.write_text(json.dumps(config))
    env = {
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_OFFLINE": "1",
        "PATH": f"{harness.parent}:/usr/bin:/bin",
        "HOME": str(work),
        "HF_HOME": str(work / "hf"),
    }
    proc = subprocess.run(
        [str(harness.parent / "nemo-evaluator"), "run_eval", "--run_config", str(path)],
        env=env,
        cwd=work,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    timer.cancel()
    server.shutdown()
    keep(results, out, url)
    # The launcher sends the harness's output to the client log; kept the same way here.
    log = out / "logs" / "client-5100001.log"
    log.parent.mkdir(parents=True)
    text = (proc.stdout + proc.stderr).replace(url, URL).replace(str(results), "/results")
    text = text.replace(str(work), "/tmp/harness-run")
    text = text.replace(str(harness.parent.parent), "/harness")
    log.write_text(re.sub(r"/tmp/tmp\w+", "/tmp/tmpdir", text))
    if proc.returncode != 0 and not failing:
        raise SystemExit(f"run_eval failed, see {log}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--harness", type=Path, required=True, help="the harness venv's python")
    parser.add_argument("--out", type=Path, required=True, help="the task directory to write")
    parser.add_argument("--failing", action="store_true", help="item 7 gets HTTP 400 (context)")
    args = parser.parse_args()
    run(args.harness, args.out, args.failing)


if __name__ == "__main__":
    main()
