"""NEL501: MLflow export tags that contradict the sampling params follow the params.

A tag that differs is set to the param's value (as a string, `'0.6'`); a missing tag is
added under `export.mlflow.tags`; a tag whose param is null (MRCR's `max_new_tokens`) is
removed. The params are the run's real settings, so the tags are the side to change.
Refuses when the tags or the params are not written in this file (a bundled default or
a `-o` override would be edited in the wrong place).
"""

from evalkit.preflight.fixes import fixer
from evalkit.preflight.fixes.blocks import block_mapping
from evalkit.preflight.rules.nel501_export_tags import KEYS, as_tag

TAGS = ("export", "mlflow", "tags")


def _target(hit):
    if hit.path[-1] in KEYS:
        return hit.path[-1]
    # "no <key> tag": the hit names the tags mapping; the message names the key
    return next((k for k in KEYS if f"no {k} tag" in hit.message), None)


@fixer("NEL501")
def fix(doc, hit, ctx):
    params_path = ctx.cfg.params_path
    tags, params = doc.value(TAGS), doc.value(params_path)
    if not doc.has(TAGS) or not doc.has(params_path):
        return False
    if not isinstance(tags, dict) or not isinstance(params, dict):
        return False
    key = _target(hit)
    if key is None or key not in params:
        return False
    param = params[key]
    if param is None:
        if key not in tags or not block_mapping(doc, TAGS):
            return False
        doc.delete(TAGS + (key,), with_comments=False)
    elif key in tags:
        doc.set(TAGS + (key,), as_tag(param))
    else:
        if not block_mapping(doc, TAGS):
            return False  # a flow mapping: no line of its own to add
        doc.add(TAGS, key, as_tag(param))
    return True
