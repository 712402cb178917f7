"""Parse an MLPerf systems JSON (``<Submitter>/systems/<system>.json``) as submitters write it.

Real files differ from the schema in ways the report must survive: every value is a string, counts
included ("8"); ``other_software_stack`` is a dict for some submitters and a string for others;
unfilled fields hold placeholders ("TODO", "", "N/A"); ``system_name`` ("8xV100") can differ from
the file name (gpu-v100-8-TF2.0), and results are filed under the file name, so ``system`` is the
file stem. Placeholders become None so the report shows "unknown" instead of "TODO". The counts
the cost model multiplies by (number_of_nodes, accelerators_per_node) must be whole numbers:
missing or non-numeric -> InputError naming the JSON path.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl

from pipelines.domain.errors import InputError

# "CPUName" and "core_count" are template text left in real files (Google v0.7).
PLACEHOLDERS = frozenset({"", "todo", "tbd", "n/a", "na", "none", "null", "unknown", "-", "?", "cpuname", "core_count"})

_TEXT_FIELDS = (
    "system_name", "submitter", "division", "status", "accelerator_model_name",
    "accelerator_memory_capacity", "host_processor_model_name", "host_memory_capacity",
    "framework", "operating_system",
)
_COUNT = re.compile(r"^\+?(\d+)(?:\.0*)?$")


def _is_placeholder(value: object) -> bool:
    return value is None or (isinstance(value, str) and value.strip().lower() in PLACEHOLDERS)


def _text(desc: dict, key: str, path: Path) -> str | None:
    value = desc.get(key)
    if _is_placeholder(value):
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise InputError(path, f"$.{key}", f"expected text, got {type(value).__name__}")
    return " ".join(str(value).split())


def _count(desc: dict, key: str, path: Path, *, required: bool, minimum: int) -> int | None:
    value = desc.get(key)
    if _is_placeholder(value):
        if required:
            raise InputError(path, f"$.{key}", "missing count" if key not in desc else f"count is a placeholder ({value!r})")
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
        number = int(value)  # a JSON number 1.0 (MosaicML v2.0, Ailiverse v3.1)
    else:
        match = _COUNT.match(value.strip()) if isinstance(value, str) else None
        if match is None:
            raise InputError(path, f"$.{key}", f"expected a whole number, got {value!r}")
        number = int(match.group(1))
    if number < minimum:
        raise InputError(path, f"$.{key}", f"expected at least {minimum}, got {number}")
    return number


def _software(desc: dict, path: Path) -> str | None:
    """other_software_stack as one readable string, whatever shape the submitter used."""
    stack = desc.get("other_software_stack")
    if isinstance(stack, dict):
        parts = [f"{name}: {' '.join(str(v).split())}" for name, v in stack.items()
                 if not _is_placeholder(v) and isinstance(v, (str, int, float)) and not isinstance(v, bool)]
        return "; ".join(parts) or None
    if isinstance(stack, list):
        parts = [" ".join(str(v).split()) for v in stack if not _is_placeholder(v) and isinstance(v, (str, int, float))]
        return "; ".join(parts) or None
    return _text(desc, "other_software_stack", path)


# What parse_system_json returns, in this order and these types: the report's stg_systems as it is
# stored, and the systems JSON part of the atlas's rows (mlperf.corpus.SYSTEMS_SCHEMA).
SYSTEM_SCHEMA = {
    "system": pl.Utf8, "system_name": pl.Utf8, "submitter": pl.Utf8, "division": pl.Utf8, "status": pl.Utf8,
    "number_of_nodes": pl.Int64, "accelerators_per_node": pl.Int64, "accelerators_total": pl.Int64,
    "accelerator_model_name": pl.Utf8, "accelerator_memory_capacity": pl.Utf8, "host_processor_model_name": pl.Utf8,
    "host_processors_per_node": pl.Int64, "host_memory_capacity": pl.Utf8, "framework": pl.Utf8, "software": pl.Utf8,
    "operating_system": pl.Utf8, "file": pl.Utf8,
}


# The node count's field: the schema's spelling, then the one DellEMC v0.7 wrote (its four systems).
NODE_FIELDS = ("number_of_nodes", "number of nodes")


def parse_system_json(path: Path, *, nodes_required: bool = True) -> dict:
    """One systems JSON -> a flat dict of the fields the report uses (see module docstring).

    ``nodes_required=False`` (the atlas, which fills a missing count from elsewhere, mlperf.gaps):
    a file without a node count gives number_of_nodes and accelerators_total None."""
    return system_fields(load_system_json(path), Path(path), nodes_required=nodes_required)


def load_system_json(path: Path) -> dict:
    """The JSON object of a systems JSON file; unreadable, not UTF-8, not JSON or not an object -> InputError."""
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except OSError as error:
        raise InputError(path, None, f"cannot read systems JSON: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise InputError(path, f"byte {error.start}", "systems JSON is not UTF-8") from None
    try:
        desc = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(path, f"line {error.lineno} column {error.colno}", f"invalid JSON: {error.msg}") from None
    except RecursionError:
        raise InputError(path, "$", "invalid JSON: nested too deeply") from None
    if not isinstance(desc, dict):
        raise InputError(path, "$", f"expected a JSON object, got {type(desc).__name__}")
    return desc


def nodes_field(desc: dict) -> str | None:
    """The field of NODE_FIELDS that holds the node count (a placeholder holds none), or None."""
    return next((key for key in NODE_FIELDS if not _is_placeholder(desc.get(key))), None)


def system_fields(desc: dict, path: Path, *, nodes_required: bool = True) -> dict:
    """The fields the report uses of a loaded systems JSON (see parse_system_json)."""
    key = nodes_field(desc) or NODE_FIELDS[0]
    nodes = _count(desc, key, path, required=nodes_required, minimum=1)
    per_node = _count(desc, "accelerators_per_node", path, required=True, minimum=0)
    result: dict = {"system": path.stem}
    result.update({key: _text(desc, key, path) for key in _TEXT_FIELDS})
    result.update(
        number_of_nodes=nodes,
        accelerators_per_node=per_node,
        accelerators_total=nodes * per_node if nodes is not None else None,  # type: ignore[operator]
        host_processors_per_node=_count(desc, "host_processors_per_node", path, required=False, minimum=0),
        software=_software(desc, path),
        file=str(path),
    )
    return {key: result[key] for key in SYSTEM_SCHEMA}
