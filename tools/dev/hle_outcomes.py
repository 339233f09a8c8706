"""The HLE outcome fixture, run for real: nemo-evaluator 0.2.8's `run_eval` with
nvidia-hle 26.3 (type `hle`) against loopback stubs of the served model, of the judge
and of the judge's OAuth token endpoint.

The harness's data set (`cais/hle`) is gated and this machine has no network, so its
`load_dataset("cais/hle", split="test")` is answered, in HF offline mode, from a local
`datasets` cache built with `datasets`' own JSON builder from ten made-up rows (the
columns the harness reads: id, question, image, answer, answer_type). The judge is the
harness's own Azure OpenAI client (`hle_eval/utils.py: chat_parse_async_openai_azure`)
pointed at the stub by `AZURE_OPENAI_ENDPOINT`, with a stub token from
`OPENAI_TOKEN_URL` (`hle_eval/nv_utils.py`); the fake OAuth values are not secrets.
Prompting, the adapter's interceptors (response cache, statistics), the judge's
structured output and every written file are the real code's.

Question n: 0-3 answered (0 and 1 judged correct), 4 cut at max tokens (finish_reason
length), 5 answered but the judge call fails (HTTP 400: api_error, scored "no"), 6 an
empty answer, 7-8 content null with the answer in reasoning_content (nemo-evaluator's
endpoint interceptor turns null into "", so the harness keeps and judges them), 9 a
request that fails (HTTP 500: the harness drops the question).

Usage: python tools/dev/hle_outcomes.py --harness HARNESS/bin/python --out DIR
where HARNESS is a venv with `nemo-evaluator==0.2.8 nvidia-hle==26.3`.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

N = 10
CACHE_SCRIPT = """
import shutil, sys
from pathlib import Path
from datasets.packaged_modules.json.json import Json
cache, rows = Path(sys.argv[1]), sys.argv[2]
b = Json(cache_dir=str(cache / "build"), dataset_name="cais___hle",
         config_name="default", hash="0000000000000000", data_files={"test": rows})
b.download_and_prepare()
dest = cache / "cais___hle" / "default" / "0.0.0" / "0000000000000000"
dest.parent.mkdir(parents=True)
shutil.move(b.cache_dir, dest)
(dest / "cais___hle-test.arrow").rename(dest / "hle-test.arrow")
"""
_Q = re.compile(r"fixture question (\d+)")


def model_reply(n: int) -> tuple[int, dict]:
    usage = {"prompt_tokens": 90, "completion_tokens": 40, "total_tokens": 130}
    msg = {
        "role": "assistant",
        "content": f"Explanation: it follows.\nExact Answer: {n}\nConfidence: 80%",
    }
    finish = "stop"
    if n == 4:
        msg["content"], finish = "Explanation: first, consider the case where", "length"
        usage["completion_tokens"] = 64
    if n == 6:
        msg["content"] = ""
    if n in (7, 8):
        msg = {"role": "assistant", "content": None, "reasoning_content": f"the answer is {n}"}
    if n == 9:
        return 500, {"error": {"message": "stub: internal error"}}
    return 200, {
        "id": f"c{n}",
        "object": "chat.completion",
        "created": 1796000000,
        "model": "served-model",
        "choices": [{"index": 0, "message": msg, "finish_reason": finish}],
        "usage": usage,
    }


def judge_reply(prompt: str) -> tuple[int, dict]:
    n = int(_Q.search(prompt).group(1))
    if n == 5:
        return 400, {"error": {"message": "stub: judge refused", "type": "invalid_request_error"}}
    verdict = {
        "extracted_final_answer": str(n),
        "reasoning": "compared",
        "correct": "yes" if n in (0, 1) else "no",
        "confidence": 80,
        "strict": True,
    }
    return 200, {
        "id": f"j{n}",
        "object": "chat.completion",
        "created": 1796000000,
        "model": "gpt-4o",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": json.dumps(verdict)},
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }


class H(BaseHTTPRequestHandler):
    budget = [200]

    def _send(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):  # noqa: N802
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.budget[0] -= 1
        if self.budget[0] < 0:
            return self._send(503, {"error": {"message": "budget"}})
        if self.path.startswith("/token"):
            return self._send(200, {"access_token": "fixture-token", "expires_in": 3600})
        body = json.loads(raw)
        prompt = "\n".join(str(m.get("content")) for m in body.get("messages", []))
        if "/deployments/" in self.path:
            return self._send(*judge_reply(prompt))
        n = int(_Q.search(prompt).group(1))
        return self._send(*model_reply(n))

    def log_message(self, *a):
        pass


KEEP = (
    "results.yml",
    "eval_factory_metrics.json",
    "run_config.yml",
    "cache/responses/cache.db",
    "hle_served-model.json",
    "judged_hle_served-model.json",
    "results_hle_served-model.json",
)
URL = "http://127.0.0.1:5009/v1/chat/completions"  # the launcher's proxy, as in run.sub


def scrub(text: str, base: str, work: Path, harness: Path) -> str:
    text = text.replace(f"{base}/v1/chat/completions", URL).replace(base, "http://127.0.0.1:5010")
    text = text.replace(str(work / "results"), "/results").replace(str(work), "/tmp/harness-run")
    text = text.replace(str(harness.parent.parent), "/harness")
    return re.sub(r"/tmp/tmp\w+", "/tmp/tmpdir", text)


def main(harness: Path, out: Path) -> None:
    work = Path(tempfile.mkdtemp(prefix="hle-outcomes-"))
    rows = work / "rows.jsonl"
    rows.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"66fixture{n:04d}",
                    "question": f"fixture question {n}: what number?",
                    "image": "",
                    "answer": str(n),
                    "answer_type": "exactMatch",
                }
            )
            + "\n"
            for n in range(N)
        )
    )
    env = {
        "PATH": f"{harness.parent}:/usr/bin:/bin",
        "HOME": str(work),
        "HF_DATASETS_CACHE": str(work / "hf"),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "NEMO_EVALUATOR_TELEMETRY_LEVEL": "0",
        "NO_PROXY": "127.0.0.1,localhost",
        "TZ": "UTC",
    }
    subprocess.run(
        [str(harness), "-c", CACHE_SCRIPT, str(work / "hf"), str(rows)],
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), H)
    timer = threading.Timer(600, server.shutdown)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    timer.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    env.update(
        {
            "OPENAI_TOKEN_URL": f"{base}/token",
            "OPENAI_CLIENT_ID": "fixture",
            "OPENAI_CLIENT_SECRET": "fixture",
            "OPENAI_SCOPE": "fixture",
            "AZURE_OPENAI_ENDPOINT": base,
            "OPENAI_API_VERSION": "2024-08-01-preview",
        }
    )
    results = work / "results"
    config = {
        "config": {
            "type": "hle",
            "output_dir": str(results),
            "params": {
                "limit_samples": N,
                "parallelism": 1,
                "max_retries": 1,
                "request_timeout": 30,
            },
        },
        "target": {
            "api_endpoint": {
                "url": f"{base}/v1/chat/completions",
                "model_id": "served-model",
                "type": "chat",
            }
        },
    }
    (work / "run_config.yaml").write_text(json.dumps(config))
    proc = subprocess.run(
        [
            str(harness.parent / "nemo-evaluator"),
            "run_eval",
            "--run_config",
            str(work / "run_config.yaml"),
        ],
        env=env,
        cwd=work,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    timer.cancel()
    server.shutdown()
    if proc.returncode != 0:
        raise SystemExit(f"run_eval failed:\n{proc.stderr[-3000:]}")
    if out.exists():
        shutil.rmtree(out)
    for name in KEEP:
        src, dest = results / name, out / "artifacts" / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        if src.suffix == ".db":
            shutil.copyfile(src, dest)
        else:
            dest.write_text(scrub(src.read_text(), base, work, harness))
    log = out / "logs" / "client-5100001.log"
    log.parent.mkdir(parents=True)
    log.write_text(scrub(proc.stdout + proc.stderr, base, work, harness))


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--harness", type=Path, required=True, help="the harness venv's python")
    parser.add_argument("--out", type=Path, required=True, help="the task directory to write")
    args = parser.parse_args()
    main(args.harness, args.out)
