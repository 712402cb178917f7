"""Run the official MLPerf result summarizer (mlperf-logging 4.1.68) the way MLCommons runs it.

One process per submitter folder (`python -m mlperf_logging.result_summarizer <folder> training
<X.Y.0> --csv out.csv`, run in a process forked from a server that has imported the tool), on a COPY of the folder: the tool writes scaling.json (RCP
normalisation) into every benchmark folder it reads and removes published ones, so a second run
on the same folder gives other scores. The copy holds what the tool reads (systems/ and
results/); result files are hard links when the file system allows it (the tool only reads them),
everything else (scaling.json above all) is a real copy, so the source tree is never written.

What comes back per submitter folder (``FolderVerdict``): the scores of its CSV,
``{(system, benchmark): minutes or None}`` for every row it wrote (a system it skipped has no
row), the result files it dropped with the reason it printed ("Compliance check failed",
"Parse error", ...), the checker messages it logged on stderr, and whether it crashed (a crash
leaves no CSV: nothing of that folder is scored by the official tool).

Where the tool stops on a benchmark folder, ``scoring_function`` calls its scoring function
(``_compute_strong_score_standalone``, which its summary calls per benchmark folder and which
reads no systems JSON) directly on the folder: the score the project gives by the rules where the
tool stops on a field of its table only (mlperf.tree's ``score_basis`` "rules") must equal it.
"""

from __future__ import annotations

import contextlib
import csv
import io
import math
import os
import re
import runpy
import shutil
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from pipelines import forkserver

# Columns of the summarizer's CSV that are not benchmarks.
SPEC_COLUMNS = frozenset({
    "division", "availability", "submitter", "system", "number_of_nodes", "host_processor_model_name",
    "host_processors_count", "accelerator_model_name", "accelerators_count", "framework", "notes",
    "private_id", "details_url", "code_url",
})
_DROPPED = re.compile(r"^(?P<reason>[^\n]+?) in (?P<path>/[^\n]*/result_[^/\n]*\.txt)$", re.M)


@dataclass
class FolderVerdict:
    round: str
    folder: str
    returncode: int
    seconds: float
    scores: dict = field(default_factory=dict)  # (system, benchmark) -> minutes or None
    details: dict = field(default_factory=dict)  # (system, benchmark) -> (GBS, samples_to_converge), detailed CSV
    divisions: dict = field(default_factory=dict)  # system -> division column
    dropped: dict = field(default_factory=dict)  # result file relative to the round's parent -> reason
    stdout: str = ""
    stderr: str = ""
    path: str = ""

    @property
    def crashed(self) -> bool:
        return self.returncode != 0


def ruleset(round_: str) -> str:
    return round_.removeprefix("v") + ".0"


def _link_or_copy(src: str, dst: str) -> None:
    if os.path.basename(src).startswith("result_") and src.endswith(".txt"):
        try:
            os.link(src, dst)
            return
        except OSError:
            pass
    shutil.copy2(src, dst)


def copy_folder(submitter_dir: Path, dest_round: Path) -> Path:
    """systems/ and results/ of one submitter folder under dest_round; the copy's path."""
    target = dest_round / submitter_dir.name
    for part in ("systems", "results"):
        if (submitter_dir / part).is_dir():
            shutil.copytree(submitter_dir / part, target / part, copy_function=_link_or_copy, symlinks=False)
    return target


def submitter_folders(round_dir: Path) -> list[Path]:
    return sorted(p for p in round_dir.iterdir() if p.is_dir() and (p / "results").is_dir())


def _read_csv(path: Path) -> tuple[dict, dict, dict]:
    """(scores, divisions, details) of the tool's CSV and its _detailed.csv (GBS -1 read as None)."""
    scores: dict = {}
    divisions: dict = {}
    details: dict = {}
    if not path.is_file():
        return scores, divisions, details
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            system = row["details_url"].rsplit("/", 1)[1].removesuffix(".json")
            divisions[system] = row["division"]
            for column, value in row.items():
                if column not in SPEC_COLUMNS and ":" not in column:
                    scores[(system, column)] = float(value) if value else None
    detailed = path.with_name(path.stem + "_detailed.csv")  # not written when no system was summarized
    if not detailed.is_file():
        return scores, divisions, details
    with open(detailed, newline="") as handle:
        for row in csv.DictReader(handle):
            system = row["details_url"].rsplit("/", 1)[1].removesuffix(".json")
            for column, value in row.items():
                benchmark, _, metric = column.partition(":")
                if metric in ("GBS", "samples_to_converge"):
                    gbs, samples = details.get((system, benchmark), (None, None))
                    number = float(value) if value and float(value) != -1 else None
                    details[(system, benchmark)] = (number, samples) if metric == "GBS" else (gbs, number)
    return scores, divisions, details


_SUMMARIZER = "mlperf_logging.result_summarizer"


def _summarize(args: list[str], cwd: Path, out: Path, err: Path) -> None:
    """In a forked process: what `python -m mlperf_logging.result_summarizer <args>` does in `cwd`, its stdout
    and stderr to files, exiting with the status the interpreter would (a traceback and 1 on an exception)."""
    os.chdir(cwd)
    for fd, path in ((1, out), (2, err)):
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(handle, fd)
        os.close(handle)
    sys.argv = [_SUMMARIZER, *args]
    code = 0
    try:
        runpy.run_module(_SUMMARIZER, run_name="__main__", alter_sys=True)
    except SystemExit as stop:
        if stop.code is None or isinstance(stop.code, int):
            code = stop.code or 0
        else:
            print(stop.code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


# Each run is its own fresh process, forked from the fork server (pipelines/forkserver.py), which imported the
# tool once: without paying the 1.2 s import of pandas and the checkers each time.
forkserver.preload(f"{_SUMMARIZER}.result_summarizer")


def _start(args: list[str], cwd: Path, out: Path, err: Path):
    proc = forkserver.context().Process(target=_summarize, args=(args, cwd, out, err), daemon=True)
    proc.start()
    return proc


def run_folders(folders: list[tuple[str, Path]], work: Path, jobs: int = 2, timeout: float = 3600,
                names: bool = False) -> list[FolderVerdict]:
    """Run the summarizer on copied submitter folders [(round, copy)], ``jobs`` at a time.

    The copies must sit in ``training_results_<round>/<folder>`` so that dropped-file paths can be
    reported relative to the round's parent, as the project's run rows are.
    """
    work.mkdir(parents=True, exist_ok=True)
    pending = sorted(folders, key=lambda f: -_size(f[1]))  # largest first: the pool ends together
    running: list = []
    verdicts: list[FolderVerdict] = []
    while pending or running:
        while pending and len(running) < jobs:
            round_, folder = pending.pop(0)
            name = f"{round_}_{folder.name}" + (f"_{len(verdicts) + len(running)}" if names else "")
            args = [str(folder), "training", ruleset(round_), "--csv", str(work / f"{name}.csv")]
            proc = _start(args, work, work / f"{name}.out", work / f"{name}.err")
            running.append((round_, folder, name, proc, time.monotonic()))
        time.sleep(0.2)
        for job in list(running):
            round_, folder, name, proc, started = job
            if proc.exitcode is None:
                if time.monotonic() - started > timeout:
                    proc.kill()
                continue
            running.remove(job)
            returncode = proc.exitcode
            proc.close()
            stdout = (work / f"{name}.out").read_text(errors="replace")
            stderr = (work / f"{name}.err").read_text(errors="replace")
            verdict = FolderVerdict(round_, folder.name, returncode, time.monotonic() - started,
                                    stdout=stdout, stderr=stderr, path=str(folder))
            if not verdict.crashed:
                verdict.scores, verdict.divisions, verdict.details = _read_csv(work / f"{name}.csv")
            base = folder.parent.parent
            for match in _DROPPED.finditer(verdict.stdout):
                path = Path(match["path"])
                rel = path.relative_to(base).as_posix() if path.is_relative_to(base) else str(path)
                verdict.dropped[rel] = match["reason"]
            verdicts.append(verdict)
    return verdicts


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("result_*.txt"))


@dataclass(frozen=True)
class Official:
    """The official tool's answer on one entry: minutes (None: no score), or the error it stopped with."""

    minutes: float | None
    crash: str | None = None
    global_batch_size: float | None = None  # the detailed CSV's GBS and samples_to_converge
    samples_to_converge: float | None = None
    scoring_function: float | None = None  # where it stops: its scoring function's score of the folder


def scoring_function(benchmark_folder: Path, round_: str) -> float | None:
    """The official tool's scoring function called directly on one benchmark folder, as its summary
    calls it (benchmark alias, power logs, usage, ruleset): the score, None for none or if it raises."""
    from mlperf_logging.result_summarizer import result_summarizer as tool

    folder = str(benchmark_folder)
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # it prints every run it drops
            score, _, _ = tool._compute_strong_score_standalone(
                tool._benchmark_alias(benchmark_folder.name), benchmark_folder.parent.name, tool._has_power(folder),
                folder, "training", ruleset(round_))
    except Exception:  # noqa: BLE001 - a folder it cannot score (power logs it divides by zero on)
        return None
    return score


def _official(verdict: FolderVerdict, key: tuple[str, str]) -> Official:
    return Official(verdict.scores[key], None, *verdict.details.get(key, (None, None)))


def _last_error(verdict: FolderVerdict) -> str:
    lines = [line for line in verdict.stderr.strip().splitlines() if line and not line.startswith(" ")]
    return lines[-1] if lines else f"exit status {verdict.returncode}"


def _subset(folder: Path, dest: Path, system: str, benchmark: str | None = None) -> Path:
    """A copy of a published submitter folder with one system (and one benchmark folder of it)."""
    target = dest / folder.parent.name / folder.name
    (target / "results").mkdir(parents=True)
    if (folder / "systems").is_dir():
        shutil.copytree(folder / "systems", target / "systems", copy_function=_link_or_copy)
    source = folder / "results" / system
    if benchmark is None:
        shutil.copytree(source, target / "results" / system, copy_function=_link_or_copy)
    else:
        (target / "results" / system).mkdir()
        shutil.copytree(source / benchmark, target / "results" / system / benchmark, copy_function=_link_or_copy)
    return target


def official_entries(round_dir: Path, work: Path, jobs: int = 2, only: list[str] | None = None
                     ) -> tuple[dict, list[FolderVerdict]]:
    """{(folder, system, benchmark): Official} for a published round folder, and the folder runs.

    Each submitter folder is summarized on a fresh copy. Where the tool stops with an error (and so
    answers nothing for the folder), it is run again on one system at a time, and on one benchmark
    folder at a time where a system still stops it: the entries it stops on get ``crash``, every
    other entry the answer the tool gives without them. Entries are keyed by the benchmark as the
    tool names its column (the folder name, ``mask`` read as maskrcnn).
    """
    round_ = round_dir.name.removeprefix("training_results_")
    work.mkdir(parents=True, exist_ok=True)
    copies = Path(tempfile.mkdtemp(prefix="copy_", dir=work))
    try:
        folders = [(round_, copy_folder(d, copies / round_dir.name)) for d in submitter_folders(round_dir)
                   if only is None or d.name in only]
        verdicts = run_folders(folders, work / "out", jobs=jobs)
        entries: dict = {}
        systems: list[tuple[str, Path, str, str]] = []  # (round, subset copy, folder, system)
        for verdict in verdicts:
            if not verdict.crashed:
                entries.update({(verdict.folder, *key): _official(verdict, key) for key in verdict.scores})
                continue
            source = round_dir / verdict.folder  # not the copy: the tool rewrote its scaling.json files
            for system in sorted(p.name for p in (source / "results").iterdir() if p.is_dir()):
                systems.append((round_, _subset(source, copies / f"s{len(systems)}", system), verdict.folder, system))
        benchmarks: list[tuple[str, Path, str, str]] = []
        for verdict, (_, copy, folder, system) in zip(_run_in_order(systems, work / "out_systems", jobs), systems):
            if not verdict.crashed:
                entries.update({(folder, *key): _official(verdict, key) for key in verdict.scores})
                continue
            source = round_dir / folder
            for bench in sorted(p.name for p in (source / "results" / system).iterdir() if p.is_dir()):
                benchmarks.append((round_, _subset(source, copies / f"b{len(benchmarks)}", system, bench), folder, bench))
        for verdict, (_, copy, folder, bench) in zip(_run_in_order(benchmarks, work / "out_benchmarks", jobs), benchmarks):
            system = next((copy / "results").iterdir()).name
            name = "maskrcnn" if bench == "mask" else bench
            if verdict.crashed:
                published = round_dir / folder / "results" / system / bench  # not the copy (see above)
                entries[(folder, system, name)] = Official(None, _last_error(verdict),
                                                           scoring_function=scoring_function(published, round_))
            elif (system, name) in verdict.scores:
                entries[(folder, system, name)] = _official(verdict, (system, name))
        return entries, verdicts
    finally:
        shutil.rmtree(copies, ignore_errors=True)


def _run_in_order(jobs_list: list[tuple], work: Path, jobs: int) -> list[FolderVerdict]:
    """run_folders on [(round, copy, ...)], answers in the order of the list."""
    if not jobs_list:
        return []
    verdicts = run_folders([(r, c) for r, c, *_ in jobs_list], work, jobs=jobs, names=True)
    by_path = {v.path: v for v in verdicts}
    return [by_path[str(c)] for _, c, *_ in jobs_list]


@dataclass
class Comparison:
    """Our entries against the official answers: counts, and every difference in words."""

    equal_scores: int = 0
    equal_no_score: int = 0
    equal_crash: int = 0
    equal_rules: int = 0  # where the tool stops, scored by the rules: equal to its scoring function's score
    equal_convergence: int = 0  # entries whose GBS and samples_to_converge equal the detailed CSV's
    equal_batch_sizes: int = 0  # of those, entries with a batch size (not both empty)
    differences: list[str] = field(default_factory=list)

    @property
    def entries(self) -> int:
        return self.equal_scores + self.equal_no_score + self.equal_crash + self.equal_rules + len(self.differences)

    @property
    def equal(self) -> int:
        return self.entries - len(self.differences)

    def __str__(self) -> str:
        return (f"{self.equal} of {self.entries} entries equal to the official summarizer ({self.equal_scores} "
                f"scores to the last digit, {self.equal_no_score} without a score, {self.equal_crash} where it "
                f"stops, {self.equal_rules} where it stops scored by the rules to the last digit of its scoring "
                f"function), {len(self.differences)} different")


def entry_key(row: dict) -> tuple[str, str, str]:
    """(folder, system, benchmark) as the official tool names the entry: the benchmark folder's name
    (``mask`` read as maskrcnn); an entry in a folder the tool does not read as a benchmark folder
    (nested deeper, or files directly in the system folder) by its path below the system folder."""
    inside = row["benchmark_path"].split("/")[4:]  # round/folder/results/system/...
    name = "/".join(inside) or "."
    return row["folder"], row["system"], "maskrcnn" if name == "mask" else name


def compare(entries: dict, rows: list[dict]) -> Comparison:
    """Every row of our scores against ``official_entries``; exact float equality for scores."""
    result = Comparison()
    ours = {}
    for row in rows:
        key = entry_key(row)
        ours[key] = row
        official = entries.get(key, Official(None))
        mine = row["time_to_train_minutes"]
        own_crash = row["official_crash"] and not row["official_crash"].startswith("the official summarizer stops on this submitter folder")
        if official.crash is not None and row.get("score_basis") == "rules":
            if own_crash and mine is not None and mine == official.scoring_function:
                result.equal_rules += 1
            else:
                result.differences.append(f"{key}: the official tool stops here ({official.crash}), its scoring "
                                          f"function gives {official.scoring_function!r}; we give {mine!r} by the rules")
        elif official.crash is not None:
            if mine is None and own_crash:
                result.equal_crash += 1
            else:
                result.differences.append(f"{key}: the official tool stops here ({official.crash}); we give {mine} ({row['reason']})")
        elif own_crash:
            result.differences.append(f"{key}: we say the official tool stops ({row['official_crash']}); it gives {official.minutes}")
        elif official.minutes is None and mine is None:
            result.equal_no_score += 1
        elif official.minutes is not None and mine == official.minutes:
            result.equal_scores += 1
        else:
            result.differences.append(f"{key}: official {official.minutes!r}, ours {mine!r} ({row['reason']})")
        if official.crash is None and not own_crash:
            _compare_convergence(result, key, official, row)
    for key, official in entries.items():
        if key not in ours and (official.minutes is not None or official.crash is not None):
            result.differences.append(f"{key}: official {official}, we have no entry")
    return result


def _compare_convergence(result: Comparison, key: tuple, official: Official, row: dict) -> None:
    """GBS exactly; samples_to_converge to 1e-12 (the tool averages with numpy's pairwise sum)."""
    gbs, samples = row.get("global_batch_size"), row.get("summarizer_samples_to_converge")
    same_gbs = gbs == official.global_batch_size
    same_samples = (samples is None and official.samples_to_converge is None) or (
        samples is not None and official.samples_to_converge is not None
        and math.isclose(samples, official.samples_to_converge, rel_tol=1e-12))
    if same_gbs and same_samples:
        result.equal_convergence += 1
        result.equal_batch_sizes += gbs is not None
    else:
        result.differences.append(f"{key}: official GBS {official.global_batch_size!r} and samples_to_converge "
                                  f"{official.samples_to_converge!r}, ours {gbs!r} and {samples!r}")


def dropped_runs(verdicts: list[FolderVerdict]) -> dict[str, str]:
    """{run file: the official tool's reason} over the folders it finished."""
    return {path: reason for v in verdicts if not v.crashed for path, reason in v.dropped.items()}
