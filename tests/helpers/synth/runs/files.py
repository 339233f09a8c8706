"""What every synthetic run directory shares: the clock its names start from and how its
JSON lines and JSON files are written."""

from __future__ import annotations

import json
import math
from datetime import datetime

BASE_TIME = datetime(2026, 11, 30, 10, 15, 0)


def dump_line(obj: dict) -> bytes:
    """One JSONL line, compact and raw UTF-8 (as orjson writes it)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def json_safe(obj):
    """OBJ with NaN as null (what the aggregate file holds where a statistic has none)."""
    if isinstance(obj, float) and math.isnan(obj):
        return None
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [json_safe(v) for v in obj]
    return obj
