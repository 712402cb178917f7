"""Whether the report `make report` would build is the one already published: then it builds nothing.

A report is a function of the data set's files, the project's code and the day it says it was generated.
After each successful `make report` the command line keeps, beside the warehouse
(`<warehouse name>_report.json`), a key over all three and the stored folder it published; the next
`make report` computes the key again and, when it is the same and that folder is still the one published
for its date, says so and stops before Dagster is even imported (`--force` builds anyway). A run from the
UI, the sensor or the schedule keeps no key, so the next `make report` after one builds again (from the
caches: quick). Standard library only, as the command line's start must stay light.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

from pipelines.config import BUNDLED_RAW, REPO_ROOT, Paths, build_day
from pipelines.fingerprint import file_sha256, named_sha256, stat_text, walk

# The project's code and public facts: what the report is computed, drawn and printed with
CODE = ("pipelines", "sql", "templates", "config")
SKIPPED = ("__pycache__",)


def stamp_path(paths: Paths) -> Path:
    return paths.report_stamp


def _outputs_within(root: Path, outputs: tuple[Path, ...]) -> tuple[Path, ...]:
    """The outputs strictly inside `root`: only these can be left out of its files. An output folder that is `root`
    or holds it (a warehouse in the folder above the data set) leaves nothing out: its own files are named one
    by one in `outputs` (config.Paths.outputs)."""
    return tuple(out for out in outputs if out != root and out.is_relative_to(root))


def _files(root: Path, outputs: tuple[Path, ...]) -> list[Path]:
    """Every file under root, hidden ones too (unlike the readers' input_files: a file nobody reads costs a
    build, one left out could serve a stale report), but caches of Python and the pipeline's outputs."""
    within = _outputs_within(root, outputs)
    return [p for p in walk(root, skip=lambda parts: bool(set(parts) & set(SKIPPED)))
            if p.is_file() and not any(p == out or p.is_relative_to(out) for out in within)]


def _tree(label: str, root: Path, outputs: tuple[Path, ...], contents: bool = True) -> Iterator[tuple[str, str]]:
    """Names and contents (or, for a large tree outside the data set, names, sizes and modification times) of the
    files under `root`, but the pipeline's own outputs."""
    for path in _files(root, outputs):
        yield f"{label}/{path.relative_to(root)}", file_sha256(path) if contents else stat_text(path)


def inputs_key(paths: Paths) -> str:
    """One hash over the data set's files, the MLPerf trees its report.toml names outside it, the project's code
    and public facts, the installed packages and the generation day. Every file under those folders counts but
    the pipeline's outputs, named one by one, so no arrangement of the settings can hide an input."""
    outputs = tuple(out.resolve() for out in paths.outputs())
    return named_sha256([
        ("python", sys.version), ("day", build_day().isoformat()),
        *(line for name in CODE for line in _tree(f"code:{name}", REPO_ROOT / name, outputs)),
        # the public facts a data set without its own falls back to (the bundled data set's outputs are beside it)
        *_tree("bundled", BUNDLED_RAW, outputs),
        *_tree("raw", paths.raw_dir, outputs),
        *(line for tree in _outside_trees(paths.raw_dir)
          for line in _tree(f"tree:{tree}", tree, outputs, contents=False)),
        ("packages", installed_packages())])


def installed_packages() -> str:
    """Every installed distribution and its version, one a line: a new package version can change a report."""
    return "\n".join(sorted(f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions()))


def _outside_trees(raw: Path) -> list[Path]:
    """report.toml's mlperf_trees outside RAW_DIR (a bad report.toml: none; the run will say what is wrong)."""
    try:
        from pipelines.ingest.report_config import mlperf_tree_roots

        return [tree for tree in mlperf_tree_roots(raw) if tree.is_dir() and not tree.is_relative_to(raw)]
    except Exception:  # noqa: BLE001 - any problem is the run's to report, in its words
        return []


def published_unchanged(paths: Paths, key: str) -> Path | None:
    """The published report's folder when the last `make report` published it from `key` and it is still the one
    linked for its date, with its HTML, PDF and data; else None."""
    try:
        kept = json.loads(stamp_path(paths).read_text(encoding="utf-8"))
        dated, stored = Path(kept["dated"]), Path(kept["stored"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if kept.get("key") != key or not paths.warehouse.is_file() or dated.resolve() != stored:
        return None
    if not all((stored / name).exists() for name in ("report.html", "report.pdf", "data")):
        return None
    return dated


def remember(paths: Paths, key: str, dated: Path) -> None:
    """After a successful `make report`: what it published, from which key."""
    from pipelines.publish.store import write_atomic

    write_atomic(stamp_path(paths), json.dumps({"key": key, "dated": str(dated), "stored": str(dated.resolve())},
                                               indent=1).encode())
