"""Shape tests the fixers share: an edit by lines is safe only on block-style YAML."""

from __future__ import annotations


def key_line(doc, path) -> int | None:
    span = doc.doc.spans.get(tuple(path))
    return None if span is None else (span.key_line or span.line)


def block_mapping(doc, path) -> bool:
    """A non-empty mapping written one key per line below its own key (not `{...}`)."""
    value = doc.value(tuple(path))
    own = key_line(doc, path)
    if not isinstance(value, dict) or not value or own is None:
        return False
    return all((key_line(doc, tuple(path) + (k,)) or own) > own for k in value)


def addable(doc, path) -> bool:
    """Textedit.Doc.add can add a child here: a block mapping, or an empty `{}`/null."""
    value = doc.value(tuple(path))
    return doc.has(path) and (block_mapping(doc, path) or value in ({}, None))
