"""NEL009: a bare task name several harnesses define is qualified as `<harness>.<task>`.

The harness is taken from what the file itself says: the harnesses its other tasks name
(`simple_evals.mmlu_pro`) and the images its tasks run (`.../simple-evals:25.09` is
`simple_evals`). When exactly one of the launcher's candidates is among them, the name
becomes that candidate. Refuses, and the finding lists the candidates, when none or
several fit: which harness's scoring you want is your choice. (Sampling params do not
decide it: the generated 0.2.6 catalog lists task names per harness, not their params.)

Where the config states an endpoint type (the task's `endpoint_type`, or a chat or
completions target URL with `deployment: none`), the candidate must serve it in 0.2.6's
task registry: the launcher accepts `lm-evaluation-harness.mmlu_pro` (completions only)
beside a chat URL and sends completions requests to it, so another task's harness is no
evidence then. Such a name is left to `--unsafe-fixes` (which picks by endpoint type) or
the user; the finding lists the candidates with the types each serves.
"""

from evalkit.config.task_history import endpoint_type, endpoint_types
from evalkit.config.tasks import catalog, refusal
from evalkit.preflight.fixes import fixer


def _norm(name: str) -> str:
    return name.lower().replace("_", "-")


def _image_harness(image: str, harnesses) -> str | None:
    repo = image.rsplit("/", 1)[-1].split("@", 1)[0].split(":", 1)[0]
    return next((h for h in harnesses if _norm(h) == _norm(repo)), None)


def evidence(cfg, skip: int) -> set[str]:
    """Harnesses the file's other tasks name or run."""
    harnesses = set(catalog().harnesses)
    found = set()
    for index, task in cfg.tasks:
        if index == skip:
            continue
        name = task.get("name")
        if isinstance(name, str) and name.count(".") == 1 and name.split(".")[0] in harnesses:
            found.add(name.split(".")[0])
        container = task.get("container")
        if isinstance(container, str):
            found.add(_image_harness(container, harnesses))
    found.discard(None)
    return found


@fixer("NEL009")
def fix(doc, hit, ctx):
    path = tuple(hit.path)
    if len(path) != 4 or path[-1] != "name" or not doc.has(path):
        return False
    name = doc.value(path)
    if not isinstance(name, str) or "." in name:
        return False
    found = refusal(name, None)
    if found is None or len(found.choices) < 2:
        return False
    known = evidence(ctx.cfg, path[2])
    fits = [c for c in found.choices if c.split(".", 1)[0] in known]
    if len(fits) != 1 or not _serves_stated_type(ctx.cfg, path, name, fits[0]):
        return False
    doc.set(path, fits[0])
    return True


def _serves_stated_type(cfg, path, name, choice) -> bool:
    """True unless the config states an endpoint type that CHOICE is not known to serve.
    (When every candidate serves it, so does CHOICE: the harness evidence decides.)"""
    task = cfg.get(path[:-1])
    kind, _ = endpoint_type(cfg, task if isinstance(task, dict) else {})
    return kind is None or kind in endpoint_types(name).get(choice, ())
