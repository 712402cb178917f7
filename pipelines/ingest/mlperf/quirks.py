"""Layout quirks of the published MLPerf Training result trees, and facts the logs get wrong.

Every function here answers one question about a real tree without raising for bad content;
mlperf.tree (lenient mode) turns the answers into rows that say why an entry has no score.

Benchmarks whose name stayed while the model changed are kept apart by ``benchmark_model`` (domain.mlperf):
``ssd`` is SSD-ResNet34 up to v1.1 and RetinaNet from v2.0 (renamed ``retinanet`` in v5.0, same
model); ``dlrm`` (v0.7-v2.1) and ``dlrm_dcnv2`` (v3.0 on) are different models on the same data;
``gnn`` (v4.0, v4.1) and ``rgat`` (v5.0 on) stay apart as the rounds name them. The report, which
compares instances on one benchmark name, counts v2.0-v4.1 ``ssd`` as ``retinanet`` and v4.0-v4.1
``gnn`` as ``rgat`` (``report_benchmark``, domain.mlperf).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from pipelines.domain.mllog import TOKEN, mllog_lines
from pipelines.domain.mlperf import benchmark_name

_RESULT_FILE = re.compile(r"^result_.*\.txt$")


def natural_key(path: Path) -> tuple:
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", path.name))


def dirs(folder: Path) -> list[Path]:
    try:
        return sorted((p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")), key=natural_key)
    except OSError:
        return []


def result_files(folder: Path) -> list[Path]:
    """result_*.txt directly in the folder (job-id names included), in natural order."""
    try:
        files = [p for p in folder.iterdir() if _RESULT_FILE.match(p.name) and p.is_file()]
    except OSError:
        return []
    return sorted(files, key=natural_key)


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in result_files(folder))


def benchmark_folders(system_dir: Path, round_: str) -> list[tuple[Path, str | None, str | None]]:
    """(folder, benchmark or None = read it from the logs, quirk note) for one system folder."""
    found: list[tuple[Path, str | None, str | None]] = []
    if result_files(system_dir):
        found.append((system_dir, None, "result files directly in the system folder; benchmark read from the logs"))
    for child in dirs(system_dir):
        name = benchmark_name(child.name, round_)
        if name is not None:
            found.append((child, name, None))
        elif result_files(child):
            found.append((child, None, f"folder {child.name!r} is not a benchmark name; benchmark read from the logs"))
        for grandchild in dirs(child):
            nested = benchmark_name(grandchild.name, round_)
            if nested is not None and result_files(grandchild):
                found.append((grandchild, nested, f"benchmark folder misplaced inside {child.name}/"))
    return found


def logged_benchmark(files: list[Path], round_: str) -> tuple[str | None, str | None]:
    """(benchmark named by the logs' submission_benchmark lines, None) or (None, why not)."""
    if not files:
        return None, "no result_*.txt files"
    named = set()
    for path in files:
        value = _first_value(path, "submission_benchmark")
        if value is not None:
            named.add(str(value))
    if not named:
        return None, "the folder is not named after a benchmark and no log names one (submission_benchmark)"
    if len(named) > 1:
        return None, f"the logs name different benchmarks: {', '.join(sorted(named))}"
    value = named.pop()
    name = benchmark_name(value, round_)
    if name is None:
        return None, f"the logs name benchmark {value!r}, which is not part of MLPerf Training {round_}"
    return name, None


def _first_value(path: Path, key: str) -> object:
    needle = f'"{key}"'
    try:
        with open(path, "rb") as handle:
            # the needle anywhere on the line (a cheap test), the record after its last token
            for _, line in mllog_lines(handle, containing=needle.encode("latin-1")):
                try:
                    record = json.loads(line[len(TOKEN):])
                except ValueError:
                    continue
                if isinstance(record, dict) and record.get("key") == key:
                    return record.get("value")
    except OSError:
        return None
    return None


def status_class(status: str | None) -> str:
    """Availability as the systems JSON states it, in one of a few classes.

    Real values: onprem, on-premise, "Available on-premise", "available on premise", cloud,
    "Available cloud", "Available in cloud", Cloud, available, preview, Preview, research, rdi.
    """
    text = (status or "").strip().lower()
    if "cloud" in text:
        return "cloud"
    if "prem" in text:
        return "on-premise"
    if "preview" in text:
        return "preview"
    if "research" in text or text == "rdi":
        return "research"
    if "available" in text:
        return "available"
    return "unknown"
