"""Shared benchmark helpers: run a command or a Python callable in a fresh process, N times.

Every row module (bench/*_bench.py) can use these; `python -m bench` only needs each module's
``measure(repeats: int = 3) -> list[dict]`` returning rows with the keys in ``ROW_KEYS``.

What is measured, per run, always in a NEW process (so import costs and memory are honest):
  - wall time: ``time.perf_counter()`` around start-to-exit of the child (interpreter start,
    imports and work included);
  - peak memory (MiB): the larger of
      a) the kernel's peak resident set size of the child, from ``os.wait4`` (Linux counts the
         child and its waited-for descendants: the biggest single process of the tree), and
      b) with ``sample_tree=True`` (for commands that start workers), the sum of the proportional
         set sizes (PSS) of the whole process tree sampled from /proc every 100 ms (what a
         multiprocess run really holds at once, pages shared by forked workers counted once);
  - CPU time (user + system, the child and its waited-for descendants, from ``os.wait4``): less
    sensitive than wall time to other load on a shared machine.
Subject and reference are run alternately (A B A B ...), so load from other work on the
machine falls on both alike, and the ratio is taken from medians measured in the same run.

Helpers:
  run_command(cmd, env=..., cwd=...)          -> Sample(seconds, peak_mib)   one fresh process
  run_callable("pkg.mod:func", *args, env=...) -> Sample                     callable in a fresh process
  repeat(fn, repeats, setup=None)             -> list[Sample]
  compare(subject, reference, repeats, ...)   -> (subject samples, reference samples), interleaved
  row(name, subject, reference_name, reference, **extra) -> dict in the common row format
  stats(values)                               -> (median, spread = max - min)
  bench_env(**paths)                          -> os.environ copy with RAW_DIR/REPORTS_DIR/... set
  machine()                                   -> CPU model, cores, memory, date, versions
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Sequence

REPO = Path(__file__).resolve().parents[1]
PYTHON = sys.executable

_EXEC = "--exec"
ROW_KEYS = ("name", "median_s", "spread_s", "peak_mib", "reference", "ref_median_s", "ref_spread_s", "ref_peak_mib")


class BenchError(RuntimeError):
    """A measured process failed: the row cannot be trusted."""


class Skipped(Exception):
    """A module cannot run here (an input it needs is absent); `make bench` notes why and goes on."""


@dataclass(frozen=True)
class Sample:
    seconds: float
    peak_mib: float
    cpu_s: float = 0.0  # user + system CPU time of the process and its waited-for children


def _tree_pids(root: int) -> list[int]:
    """root and all its descendants, read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as f:
                stat = f.read()
            ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
            children.setdefault(ppid, []).append(int(entry.name))
        except (OSError, ValueError, IndexError):
            continue
    pids, stack = [], [root]
    while stack:
        pid = stack.pop()
        pids.append(pid)
        stack.extend(children.get(pid, ()))
    return pids


def _tree_pss_kib(root: int, at_least: int = 0) -> int:
    """Memory (KiB) of root and all its descendants (0 if gone): the sum of their proportional set
    sizes, where a page shared by n processes counts 1/n in each. Summed RSS would count a forked
    worker's pages shared with its parent twice (the atlas's scoring workers: 890 MiB of RSS for
    about half that in memory); a process without smaps_rollup counts its RSS.

    Reading smaps_rollup walks every page of the process (12 ms of CPU for a 600 MiB one, taken from
    the command measured), so it is read only when the tree's summed RSS (PSS <= RSS, from statm: a
    few microseconds) could beat `at_least`; otherwise `at_least` is returned."""
    pids = _tree_pids(root)
    if sum(_rss_kib(pid) for pid in pids) <= at_least:
        return at_least
    return sum(_pss_kib(pid) for pid in pids)


def _rss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as f:  # statm field 2 = resident pages
            return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
    except (OSError, ValueError, IndexError):
        return 0


def _pss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as f:
            for line in f:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return _rss_kib(pid)


class _TreeSampler(threading.Thread):
    def __init__(self, pid: int, interval: float = 0.1):
        super().__init__(daemon=True)
        self.pid, self.interval, self.peak_kib = pid, interval, 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            self.peak_kib = _tree_pss_kib(self.pid, at_least=self.peak_kib)
            self.stop.wait(self.interval)


def run_command(cmd: Sequence[str], env: dict | None = None, cwd: Path | str = REPO, timeout: float = 1800,
                sample_tree: bool = False) -> Sample:
    """Run one command in a fresh process; its wall time, peak memory and CPU time.

    The command is started by a small wrapper process (this file run as a script, standard
    library only) that times it and reads its rusage: Linux carries the high-water RSS of the
    process that forked over an exec into the child's ru_maxrss, so a command started directly
    from a big parent (pytest, a notebook) would report the parent's memory as its own.
    ``sample_tree``: also sample the summed RSS of the process tree (for commands that start
    worker processes; it costs the sampling thread some CPU, so it is off by default).
    Non-zero exit -> BenchError.
    """
    fd, result_name = tempfile.mkstemp(prefix="bench_sample_", suffix=".json")
    os.close(fd)
    result = Path(result_name)
    wrapper = [PYTHON, str(Path(__file__).resolve()), _EXEC, str(result), "--", *map(str, cmd)]
    try:
        proc = subprocess.Popen(wrapper, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True)
        sampler = _TreeSampler(proc.pid) if sample_tree else None
        if sampler:
            sampler.start()
        output = bytearray()
        reader = threading.Thread(target=lambda: output.extend(proc.stdout.read()), daemon=True)
        reader.start()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()
        if sampler:
            sampler.stop.set()
            sampler.join()
        reader.join(timeout=5)
        measured = json.loads(result.read_text()) if result.stat().st_size else None
    finally:
        result.unlink(missing_ok=True)
    if proc.returncode != 0 or measured is None:
        tail = output.decode(errors="replace")[-3000:]
        raise BenchError(f"{' '.join(map(str, cmd))[:200]} exited {proc.returncode}:\n{tail}")
    peak_kib = max(measured["maxrss_kib"], sampler.peak_kib if sampler else 0)  # Linux: KiB
    return Sample(measured["seconds"], peak_kib / 1024, measured["cpu_s"])


def _exec_and_measure(result: str, cmd: list[str]) -> int:
    """In the wrapper: run cmd, write its wall time, peak RSS and CPU time to `result` as JSON."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    Path(result).write_text(json.dumps({"seconds": seconds, "maxrss_kib": usage.ru_maxrss,
                                        "cpu_s": usage.ru_utime + usage.ru_stime}))
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code


def run_callable(target: str, *args, env: dict | None = None, cwd: Path | str = REPO, timeout: float = 1800,
                 sample_tree: bool = False) -> Sample:
    """Run ``target`` ("package.module:function") with JSON-able args in a fresh interpreter."""
    return run_command([PYTHON, "-m", "bench.harness", target, json.dumps(list(args))], env=env, cwd=cwd,
                       timeout=timeout, sample_tree=sample_tree)


def repeat(run: Callable[[], Sample], repeats: int, setup: Callable[[], None] | None = None) -> list[Sample]:
    samples = []
    for _ in range(repeats):
        if setup:
            setup()
        samples.append(run())
    return samples


def compare(subject: Callable[[], Sample], reference: Callable[[], Sample], repeats: int,
            subject_setup: Callable[[], None] | None = None,
            reference_setup: Callable[[], None] | None = None) -> tuple[list[Sample], list[Sample]]:
    """Run subject and reference alternately, ``repeats`` times each (setups are not timed)."""
    ours, theirs = [], []
    for _ in range(repeats):
        if subject_setup:
            subject_setup()
        ours.append(subject())
        if reference_setup:
            reference_setup()
        theirs.append(reference())
    return ours, theirs


def stats(values: Sequence[float]) -> tuple[float, float]:
    """Median and spread (max - min)."""
    return statistics.median(values), (max(values) - min(values)) if values else 0.0


def row(name: str, subject: Sequence[Sample], reference_name: str, reference: Sequence[Sample], **extra) -> dict:
    """A row in the common format; peak memory is the highest of the repeats."""
    median, spread = stats([s.seconds for s in subject])
    ref_median, ref_spread = stats([s.seconds for s in reference])
    out = {
        "name": name,
        "median_s": round(median, 3), "spread_s": round(spread, 3),
        "peak_mib": round(max(s.peak_mib for s in subject), 1),
        "reference": reference_name,
        "ref_median_s": round(ref_median, 3), "ref_spread_s": round(ref_spread, 3),
        "ref_peak_mib": round(max(s.peak_mib for s in reference), 1),
        "runs": len(subject),
    }
    if all(s.cpu_s for s in subject) and all(s.cpu_s for s in reference):
        out["cpu_median_s"] = round(stats([s.cpu_s for s in subject])[0], 2)
        out["ref_cpu_median_s"] = round(stats([s.cpu_s for s in reference])[0], 2)
        out["cpu_ratio"] = round(out["cpu_median_s"] / out["ref_cpu_median_s"], 2)
    out.update(extra)
    return out


def bench_env(raw_dir: Path | None = None, reports_dir: Path | None = None, warehouse: Path | None = None,
              dagster_home: Path | None = None, **more: str) -> dict:
    """The current environment with the pipeline's paths pointed at the given (temporary) places."""
    env = dict(os.environ)
    for key, value in (("RAW_DIR", raw_dir), ("REPORTS_DIR", reports_dir), ("WAREHOUSE", warehouse),
                       ("DAGSTER_HOME", dagster_home)):
        if value is not None:
            env[key] = str(value)
    env.update({k: str(v) for k, v in more.items()})
    return env


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine() -> dict:
    mem_kib = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem_kib = int(line.split()[1])
    except OSError:
        pass
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "memory_gib": round(mem_kib / 1024 / 1024, 1),
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "python": platform.python_version(),
        "os": f"{platform.system()} {platform.release()}",
    }


def _call(target: str, args_json: str) -> None:
    import importlib

    module, _, func = target.partition(":")
    getattr(importlib.import_module(module), func)(*json.loads(args_json))


if __name__ == "__main__":
    if sys.argv[1] == _EXEC:  # the wrapper of run_command: harness.py --exec RESULT -- cmd ...
        sys.exit(_exec_and_measure(sys.argv[2], sys.argv[4:]))
    # python -m bench.harness pkg.mod:func '[args]'  (what run_callable starts)
    _call(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "[]")
