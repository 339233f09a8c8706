"""MLflow export tags disagree with the sampling parameters.

## What it does
Compares `export.mlflow.tags.{temperature,top_p,max_new_tokens}` with
`evaluation.nemo_evaluator_config.config.params` as strings (`1.0` <-> `'1.0'`). A null
`max_new_tokens` (MRCR) must have no tag.

## Why is this bad
The tags are the only record of the sampling settings in MLflow; a stale tag makes two
runs look comparable when they are not, or the reverse.

Severity: error, the recorded settings misdescribe the run, so comparisons built on them
are wrong.

## Example
```yaml
params: {temperature: 0.6}
export: {mlflow: {tags: {temperature: '1.0'}}}
```

## Use instead
Tags equal to the params: `temperature: '0.6'`.
"""

from evalkit.preflight.registry import Hit, rule

KEYS = ("temperature", "top_p", "max_new_tokens")


def as_tag(value) -> str:
    return str(value)


@rule("NEL501", "export-tags-vs-params", "error")
def check(ctx):
    cfg = ctx.cfg
    tags = cfg.get(("export", "mlflow", "tags"))
    params = cfg.get(cfg.params_path)
    if not isinstance(tags, dict) or not isinstance(params, dict):
        return
    for key in KEYS:
        param, tag = params.get(key), tags.get(key)
        if param == "???" or tag == "???":
            continue
        path = ("export", "mlflow", "tags", key)
        if param is None and tag is not None and key in tags:
            yield Hit(path, f"tag {key}={tag!r} but the param is null", fix=f"remove the {key} tag")
        elif param is not None and tag is None:
            yield Hit(
                ("export", "mlflow", "tags"),
                f"no {key} tag; the param is {param!r}",
                fix=f"add {key}: '{as_tag(param)}'",
            )
        elif param is not None and as_tag(tag) != as_tag(param):
            yield Hit(
                path,
                f"tag {key}={tag!r} but the param is {param!r}",
                fix=f"set the tag to '{as_tag(param)}'",
            )
