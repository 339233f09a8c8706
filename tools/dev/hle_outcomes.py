"""The HLE outcome fixture: NOT a run of the harness (a guess at its content, real in shape).

nvidia-hle 26.3 cannot run here: its data set is gated and its judge signs in to Azure
OpenAI with OAuth (`hle_eval/nv_utils.py`). So this script writes the files the harness
would, in the shapes its own code writes them (`hle_eval/run_model_predictions.py`:
`hle_<model>.json`; `run_judge_results.py`: `judged_hle_<model>.json` and
`results_hle_<model>.json`, all `json.dump(..., indent=4)`), and fills the adapter's
response cache with nemo-evaluator 0.2.8's own `adapters.caching.diskcaching.Cache`
(the real sqlite format), keyed as its caching interceptor keys a request.

Ten questions asked (`limit_samples: 10`): 0-3 scored (0 and 1 judged correct), 4
truncated (finish_reason length), 5 a failed judge call (api_error, scored "no"), 6 an
empty response, 7-8 never answered: content None with the answer in reasoning_content
(the harness drops them) and 9 a failed request (no response cached).

Usage: HARNESS/bin/python tools/dev/hle_outcomes.py OUT_TASK_DIR
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from nemo_evaluator.adapters.caching.diskcaching import Cache

MODEL = "served-model"


def response(content, finish="stop", reasoning=None) -> bytes:
    message = {"role": "assistant", "content": content}
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    tokens = 8192 if finish == "length" else 40
    return json.dumps(
        {
            "id": "chatcmpl-fixture",
            "object": "chat.completion",
            "created": 1796000000,
            "model": MODEL,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {
                "prompt_tokens": 90,
                "completion_tokens": tokens,
                "total_tokens": 90 + tokens,
            },
        }
    ).encode()


def main(out: Path) -> None:
    art = out / "artifacts"
    art.mkdir(parents=True)
    cache = Cache(directory=str(art / "cache" / "responses"))
    predictions, judged = {}, {}
    for n in range(10):
        qid = f"66fixture{n:04d}"
        if n in (7, 8):
            body = response(None, reasoning=f"Working it out: the answer is {n}.")
        elif n == 9:
            continue  # the request failed: nothing cached, nothing written
        else:
            text = "" if n == 6 else f"Explanation: it follows.\nExact Answer: {n}\nConfidence: 80%"
            if n == 4:
                text = "Explanation: first, consider the case where"
            body = response(text, "length" if n == 4 else "stop")
            usage = json.loads(body)["usage"]
            predictions[qid] = {"model_name": MODEL, "response": text, "usage": usage}
            judge = {
                "correct_answer": str(n),
                "model_answer": str(n),
                "reasoning": "compared",
                "correct": "yes" if n in (0, 1) else "no",
                "confidence": 80,
                "api_error": False,
            }
            if n == 5:
                judge.update(
                    model_answer="$ERROR$",
                    reasoning="$ERROR$",
                    correct="no",
                    confidence=100,
                    api_error=True,
                )
            judged[qid] = {**predictions[qid], "judge_response": judge}
        request = {"messages": [{"role": "user", "content": f"question {n}"}], "model": MODEL}
        key = hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()
        cache[key] = body
    (art / f"hle_{MODEL}.json").write_text(json.dumps(predictions, indent=4))
    (art / f"judged_hle_{MODEL}.json").write_text(json.dumps(judged, indent=4))
    results = {
        "results": {
            "accuracy": {
                "value": 0.2,
                "stats": {
                    "confidence_half_width": 24.79,
                    "calibration_error": None,
                    "api_error_fraction": 1 / 7,
                },
            }
        }
    }
    (art / f"results_hle_{MODEL}.json").write_text(json.dumps(results, indent=4))
    # results.yml as nemo-evaluator writes core_evals/hle/output.py's parse_output
    (art / "results.yml").write_text(
        "results:\n  tasks:\n    hle:\n      metrics:\n        accuracy:\n          scores:\n"
        "            accuracy:\n              stats: {}\n              value: 0.2\n"
    )
    (art / "run_config.yml").write_text(
        "config:\n  type: hle\n  output_dir: /results\n  params:\n    limit_samples: 10\n"
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]))
