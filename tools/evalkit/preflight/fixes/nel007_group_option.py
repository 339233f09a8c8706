"""NEL007 (unsafe): a `defaults:` option 0.2.6 does not bundle gets the one it does.

The options are the launcher's own files (nemo-evaluator-launcher 0.2.6 configs/<group>/,
restated in tools/evalkit/data/nel-0.2.6-groups.yaml and compared with the installed
launcher by tests/preflight/test_groups_data.py). An option is renamed only when exactly
one bundled option of its group matches it: the directory it names holds one option
(`execution: slurm` -> `slurm/default`, the only file in configs/execution/slurm/; Hydra
wants the file, not the directory), or it is the same name spelt with `-` or capitals
(`deployment: vllm-ray` -> `vllm_ray`). Unsafe: the group's bundled values then compose
under its key (`execution.partition: batch`, `gres: gpu:8`, ...), which the proof lets
change because the fix owns that section. Refuses a group 0.2.6 does not have and a name
that matches none or several options (the finding lists them: which one is your choice).
"""

from evalkit.config.groups import bundled_groups, parse_defaults
from evalkit.preflight.fixes import fixer

SOURCE = "nemo-evaluator-launcher 0.2.6 configs/"


def _norm(name: str) -> str:
    return name.lower().replace("-", "_")


def successor(group: str, option: str) -> str | None:
    """The one bundled option of `group` that `option` names, or None."""
    options = sorted(bundled_groups().get(group, {}))
    if option in options:
        return None
    fits = [o for o in options if o.startswith(option.rstrip("/") + "/")]
    if not fits:
        fits = [o for o in options if _norm(o) == _norm(option)]
    return fits[0] if len(fits) == 1 else None


@fixer("NEL007", unsafe=True)
def fix(doc, hit, ctx):
    path = tuple(hit.path)
    if len(path) != 2 or "Could not find" not in hit.message:
        return False
    entries, _ = parse_defaults(doc.value(("defaults",)))
    entry = next((e for e in entries if e.index == path[1]), None)
    item = doc.value(path)
    if entry is None or entry.group is None or not isinstance(item, dict) or len(item) != 1:
        return False
    ((key, option),) = item.items()
    new = successor(entry.group, str(option))
    if new is None or not doc.has(path + (key,)):
        return False
    doc.set(path + (key,), new)
    doc.claim(entry.target)  # the group's bundled values now compose under its key
    return (
        f"defaults {entry.group}: {option} -> {new}: the one option 0.2.6 bundles there "
        f"({SOURCE}{entry.group}/{new}.yaml); its defaults now compose under "
        f"`{'.'.join(entry.target) or '<root>'}`"
    )
