"""Typed access to parsed JSON that raises InputError with the JSON path, never KeyError/TypeError.

Provider pages are read with json.loads; a page whose shape is wrong (a list where an object
belongs, a number where text belongs) must still end as one InputError naming where.
"""

from __future__ import annotations

from pathlib import Path

from pipelines.domain.errors import InputError


def as_dict(value: object, path: Path, where: str) -> dict:
    if not isinstance(value, dict):
        raise InputError(path, where, f"expected a JSON object, found {_kind(value)}")
    return value


def as_list(value: object, path: Path, where: str) -> list:
    if not isinstance(value, list):
        raise InputError(path, where, f"expected a JSON array, found {_kind(value)}")
    return value


def as_text(value: object, path: Path, where: str) -> str:
    """A non-empty string."""
    if not isinstance(value, str) or not value.strip():
        raise InputError(path, where, f"expected non-empty text, found {_kind(value)}")
    return value.strip()


def opt_text(value: object) -> str:
    """A string field used only for filtering: anything else reads as empty, never an error."""
    return value.strip() if isinstance(value, str) else ""


def key(name: str) -> str:
    """A JSON path step: `.name` for plain names, `["name"]` for keys with dots or spaces."""
    return f".{name}" if name.replace("_", "a").isalnum() else f'["{name}"]'


def _kind(value: object) -> str:
    return {dict: "an object", list: "an array", str: "text", bool: "true/false", type(None): "null"}.get(
        type(value), "a number"
    )
