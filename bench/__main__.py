"""`make bench`: run every benchmark in one run and write the table to BENCHMARKS.md.

    .venv/bin/python -m bench                      # everything (what `make bench` runs)
    .venv/bin/python -m bench --only pipeline      # one or more modules (comma-separated)
    .venv/bin/python -m bench --quick              # 1 repeat, small sizes: for fast iteration
    .venv/bin/python -m bench --repeats 5 --no-write

Each module bench/<name>_bench.py provides ``measure(repeats: int = 3, ...) -> list[dict]`` with
rows {name, median_s, spread_s, peak_mib, reference, ref_median_s, ref_spread_s, ref_peak_mib}
(bench/harness.py has the shared helpers). Its reference is measured in the same run, so the
ratio (median / reference median) compares like with like on this machine at this moment. A
module that is missing or raises is skipped with a note; the others still run. Keyword
arguments a module's measure() accepts are passed when given here: ``quick``, and a size in GB
(``size_gb``; `make bench` uses the sizes the issues ask for, 1 GB for the AWS price list).

BENCHMARKS.md is rewritten above the line ``<!-- notes below are kept by make bench -->``; what
is written below that line (analysis, profiles) is kept.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import sys
import time
import traceback
from pathlib import Path

from bench.harness import REPO, ROW_KEYS, Skipped, machine

MODULES = ["pipeline", "mlperf", "aws_price", "catalog_fetch", "render", "atlas", "web"]  # bench/<name>_bench.py
REPEATS = {"mlperf": 3, "aws_price": 3, "catalog_fetch": 3, "pipeline": 3, "render": 3, "atlas": 1, "web": 3}
SIZE_GB = {"aws_price": 1.0}
QUICK_SIZE_GB = 0.05
OUTPUT = REPO / "BENCHMARKS.md"
KEEP_MARKER = "<!-- notes below are kept by make bench -->"


def _kwargs(measure, name: str, repeats: int, quick: bool) -> dict:
    params = inspect.signature(measure).parameters
    kwargs = {"repeats": repeats} if "repeats" in params else {}
    if "quick" in params:
        kwargs["quick"] = quick
    if "size_gb" in params and (quick or name in SIZE_GB):
        kwargs["size_gb"] = QUICK_SIZE_GB if quick else SIZE_GB[name]
    return kwargs


def run_module(name: str, repeats: int, quick: bool) -> tuple[list[dict], str | None, float]:
    """(rows, note if skipped or failed, seconds taken)."""
    start = time.perf_counter()
    try:
        module = importlib.import_module(f"bench.{name}_bench")
    except ModuleNotFoundError as exc:
        if exc.name == f"bench.{name}_bench":
            return [], f"bench/{name}_bench.py is missing: skipped", 0.0
        return [], f"bench/{name}_bench.py could not be imported: {exc}", time.perf_counter() - start
    except Exception as exc:  # noqa: BLE001 - one broken module must not stop the others
        return [], f"bench/{name}_bench.py could not be imported: {type(exc).__name__}: {exc}", 0.0
    measure = getattr(module, "measure", None)
    if measure is None:
        return [], f"bench/{name}_bench.py has no measure(): skipped", 0.0
    try:
        rows = measure(**_kwargs(measure, name, repeats, quick))
    except Skipped as exc:
        return [], f"bench/{name}_bench.py skipped: {exc}", time.perf_counter() - start
    except Exception as exc:  # noqa: BLE001
        traceback.print_exc()
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        return [], f"bench/{name}_bench.py failed: {type(exc).__name__}: {first[:300]}", time.perf_counter() - start
    bad = [r for r in rows if not all(k in r for k in ROW_KEYS)]
    if bad:
        return [], f"bench/{name}_bench.py returned rows without {', '.join(k for k in ROW_KEYS if k not in bad[0])}", \
            time.perf_counter() - start
    for r in rows:
        r.setdefault("module", name)
    return rows, None, time.perf_counter() - start


def ratio(r: dict) -> float | None:
    try:
        return r["median_s"] / r["ref_median_s"] if r["ref_median_s"] else None
    except (TypeError, KeyError):
        return None


def _goal(r: dict) -> str:
    goal = r.get("goal_ratio")
    if r.get("goal_memory_ratio") is not None:  # a memory goal: peak against the reference's, and a ceiling
        value = r["peak_mib"] / r["ref_peak_mib"]
        met = value <= r["goal_memory_ratio"] and r["peak_mib"] < r["goal_memory_mib"]
        return (f"peak ≤ {r['goal_memory_ratio']:g}x and < {r['goal_memory_mib']:g} MiB "
                f"({value:.2f}x): {'met' if met else 'missed'}")
    if r.get("goal_seconds") is not None:  # an absolute goal: the median itself
        return f"< {r['goal_seconds']:g} s: {'met' if r['median_s'] < r['goal_seconds'] else 'missed'}"
    if goal is None:
        return ""
    value = ratio(r)
    return f"≤ {goal:g}x: {'met' if value is not None and value <= goal else 'missed'}"


HEADER = ["benchmark", "median s", "spread s", "peak MiB", "reference", "ref median s", "ref spread s",
          "ref peak MiB", "ratio", "goal"]


def table_rows(rows: list[dict]) -> list[list[str]]:
    out = []
    for r in rows:
        value = ratio(r)
        out.append([
            r["name"], f"{r['median_s']:.2f}", f"{r['spread_s']:.2f}", f"{r['peak_mib']:.0f}", r["reference"],
            f"{r['ref_median_s']:.2f}", f"{r['ref_spread_s']:.2f}", f"{r['ref_peak_mib']:.0f}",
            f"{value:.2f}x" if value is not None else "–", _goal(r),
        ])
    return out


def text_table(rows: list[dict]) -> str:
    body = table_rows(rows)
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(HEADER)]
    widths[0] = min(widths[0], 60)
    widths[4] = min(widths[4], 48)

    def line(cells):
        return "  ".join(c[:w].ljust(w) if i in (0, 4, 9) else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    return "\n".join([line(HEADER), line(["-" * w for w in widths])] + [line(b) for b in body])


def markdown(rows: list[dict], notes: list[str], info: dict, command: str, seconds: float) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    lines = [
        "# Benchmarks",
        "",
        f"Generated by `{command}` on {info['date']} in {seconds / 60:.1f} min.",
        "",
        f"- Machine: {info['cpu']}, {info['cores']} cores ({info['usable_cores']} usable), "
        f"{info['memory_gib']} GiB RAM; {info['os']}; Python {info['python']}",
        f"- Load average at start / end: {info['load_start']} / {info['load_end']} "
        "(other work on the machine slows subject and reference alike: runs alternate)",
        "- Every run is a fresh process; time is wall time of the whole process unless a row says "
        "otherwise; spread = max - min over the runs; peak memory = highest peak RSS over the runs "
        "(for multiprocess rows, the process tree's summed PSS, shared pages counted once); ratio = median / reference median, both measured in this run.",
        "",
        "| " + " | ".join(HEADER) + " |",
        "|" + "|".join("---" if i in (0, 4, 9) else "---:" for i in range(len(HEADER))) + "|",
    ]
    lines += ["| " + " | ".join(cell(c) for c in b) + " |" for b in table_rows(rows)]
    extra = []
    for r in rows:
        more = {k: v for k, v in r.items() if k not in ROW_KEYS and k not in (
            "module", "ratio", "verdict", "goal_ratio", "goal_seconds", "goal_memory_ratio", "goal_memory_mib")}
        if more:
            extra.append(f"- {r['name']}: " + "; ".join(f"{k} = {v}" for k, v in more.items()))
    if extra:
        lines += ["", "Details per row:", "", *extra]
    if notes:
        lines += ["", "Skipped or failed:", "", *[f"- {n}" for n in notes]]
    return "\n".join(lines) + "\n"


def write_markdown(text: str, path: Path = OUTPUT) -> None:
    kept = ""
    if path.exists():
        old = path.read_text(encoding="utf-8")
        if KEEP_MARKER in old:
            kept = old[old.index(KEEP_MARKER):]
    if not kept:
        kept = KEEP_MARKER + "\n"
    tmp = path.with_suffix(".md.tmp")
    tmp.write_text(text + "\n" + kept, encoding="utf-8")
    os.replace(tmp, path)


def _load() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--only", help=f"comma-separated modules among {', '.join(MODULES)}")
    parser.add_argument("--quick", action="store_true", help="one repeat and small sizes (fast iteration)")
    parser.add_argument("--repeats", type=int, help="runs per measurement (default: per module, 3)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave BENCHMARKS.md alone")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args(argv)

    names = MODULES if not args.only else [n.strip().removesuffix("_bench") for n in args.only.split(",") if n.strip()]
    info = machine() | {"load_start": _load()}
    print(f"bench: {info['cpu']}, {info['cores']} cores, {info['date']}; modules: {', '.join(names)}", flush=True)
    start = time.perf_counter()
    rows, notes = [], []
    for name in names:
        repeats = args.repeats or (1 if args.quick else REPEATS.get(name, 3))
        print(f"bench: {name} ({repeats} repeat(s)) ...", flush=True)
        got, note, seconds = run_module(name, repeats, args.quick)
        if note:
            print(f"bench: note: {note}", flush=True)
            notes.append(note)
        else:
            print(f"bench: {name}: {len(got)} row(s) in {seconds:.0f} s", flush=True)
        rows += got
    seconds = time.perf_counter() - start
    info["load_end"] = _load()
    print()
    print(text_table(rows) if rows else "(no rows)")
    for n in notes:
        print(f"note: {n}")
    command = "python -m bench" + (" " + " ".join(argv if argv is not None else sys.argv[1:])).rstrip()
    if args.json:
        args.json.write_text(json.dumps({"machine": info, "rows": rows, "notes": notes}, indent=2, default=str))
    if not args.no_write:
        write_markdown(markdown(rows, notes, info, command.strip(), seconds), args.output)
        print(f"\nwritten: {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
