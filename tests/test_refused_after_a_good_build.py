"""After a good `make report`, bad input in any input file is refused by the next one: one line naming the file, the
place and the problem, exit status 2, and the published report byte for byte as it was.

`make report` builds only what Dagster reports stale (pipelines/freshness.py), so a refusal there depends on the
check that judges an input running when that input changed, also when the check belongs to another asset and reads
the input only through its additional dependencies (comparisons_are_covered reads mappings.csv's table but belongs
to stg_comparisons: an unknown system in mappings.csv was published). tests/test_bad_inputs.py refuses every case on
a fresh build; this is the incremental path, one case per input file and kind of fault.

The small data set (tests/small_raw.py) with a file of every input kind of its own (published runs, accelerator
aliases, carbon factors, an MLPerf result tree), built once per session through the command line; each case
corrupts one file of a copy and runs the command line's `report` in process (its import cost paid once).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from pipelines.config import BUNDLED_RAW
from tests.pipeline_runner import REPO, environment
from tests.shared_builds import built_once, copy_tree, unchanged
from tests.small_raw import write_small_raw

OUTPUTS = ("REPORTS_DIR", "WAREHOUSE", "DAGSTER_HOME", "ATLAS_ROUNDS_DIR", "PIPELINE_KILL_AT")
TREE = Path(__file__).resolve().parent / "published_mlperf" / "training_results_v0.7"
RESULTS = "mlperf/training_results_v0.7/DellEMC/results/C4140/transformer"


def _env(raw: Path) -> dict[str, str]:
    """The command line's environment for the data set `raw`, its outputs inside it (the default)."""
    return {k: v for k, v in os.environ.items() if k not in OUTPUTS} | {
        "RAW_DIR": str(raw), "SOURCE_DATE_EPOCH": "1764374400"}


def write_data_set(raw: Path) -> Path:
    """The small data set, with its own file of every input kind the pipeline reads."""
    write_small_raw(raw)
    shutil.copy(BUNDLED_RAW / "published_runs.csv", raw / "published_runs.csv")
    shutil.copy(BUNDLED_RAW / "mlperf_precision.csv", raw / "mlperf_precision.csv")
    shutil.copytree(BUNDLED_RAW / "carbon", raw / "carbon")
    (raw / "accelerator_aliases.csv").write_text(
        "name_regex,memory_gb,form_factor,cloud_model,note\n^A100$,40,SXM,A100-SXM-40GB,the small set's A100\n")
    shutil.copytree(TREE, raw / "mlperf" / TREE.name)
    return raw


def _build(folder: Path) -> None:
    raw = write_data_set(folder / "raw")
    done = subprocess.run([sys.executable, "-m", "pipelines.cli", "report"], cwd=REPO, env=_env(raw),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.fixture
def good_build(tmp_path_factory, tmp_path) -> Path:
    """A copy of the small data set after a good `make report` (its outputs, warehouse and run history inside it)."""
    built = built_once(tmp_path_factory, "small_reported", _build)
    try:
        yield copy_tree(built, tmp_path / "data") / "raw"
    finally:
        unchanged(tmp_path_factory, "small_reported")


def published(raw: Path) -> dict[str, str]:
    """Every published file and link under the reports folder, by content (links by target)."""
    reports = raw / "reports"
    return {str(p.relative_to(reports)): (os.readlink(p) if p.is_symlink() else
                                          hashlib.sha256(p.read_bytes()).hexdigest())
            for p in sorted(reports.rglob("*")) if p.is_symlink() or p.is_file()}


def _replace(relative: str, old: str, new: str, count: int = 1) -> Callable[[Path], None]:
    def change(raw: Path) -> None:
        path = raw / relative
        text = path.read_text(encoding="utf-8")
        assert old in text, f"{relative} holds no {old!r}"
        path.write_text(text.replace(old, new, count), encoding="utf-8")
    return change


def _append(relative: str, line: str) -> Callable[[Path], None]:
    def change(raw: Path) -> None:
        path = raw / relative
        path.write_text(path.read_text(encoding="utf-8") + line + "\n", encoding="utf-8")
    return change


def _write(relative: str, text: str) -> Callable[[Path], None]:
    def change(raw: Path) -> None:
        (raw / relative).write_text(text, encoding="utf-8")
    return change


def _cut(relative: str, keep: float) -> Callable[[Path], None]:
    def change(raw: Path) -> None:
        path = raw / relative
        data = path.read_bytes()
        path.write_bytes(data[: int(len(data) * keep)])
    return change


@dataclass(frozen=True)
class Case:
    name: str
    change: Callable[[Path], None]
    error: str  # a regex the one line must match: the file, the place, the problem


CASES = [
    # mappings.csv: names, read only by the coverage check of stg_comparisons
    Case("mappings_unknown_system", _replace("mappings.csv", "aws,big.8x,resnet,sysA", "aws,big.8x,resnet,no_such_system"),
         r"mappings\.csv:2 column system: unknown system 'no_such_system'"),
    Case("mappings_unknown_instance", _replace("mappings.csv", "aws,big.8x,resnet,", "aws,huge.8x,resnet,"),
         r"mappings\.csv:2 column instance: unknown instance 'aws/huge\.8x'"),
    Case("mappings_unknown_benchmark", _replace("mappings.csv", "aws,big.8x,resnet,", "aws,big.8x,resnet50,"),
         r"mappings\.csv:2 column benchmark: unknown benchmark 'resnet50'; did you mean 'resnet'"),
    Case("mappings_duplicate_key", _append("mappings.csv", "aws,big.8x,resnet,sysB,again"),
         r"mappings\.csv:6: duplicate key .*also on line\(s\) 2"),
    # instances.csv and the accelerator catalogs
    Case("instances_text_in_number", _replace("instances.csv", ",96,1152,", ",abc,1152,"),
         r"instances\.csv:2 column vcpus: .*'abc'"),
    Case("instances_unknown_accelerator_model", _replace("instances.csv", ",A100-SXM-40GB,instance", ",A100-SXM-99GB,instance"),
         r"instances\.csv:2 column accelerator_model: .*A100-SXM-99GB"),
    Case("instances_duplicate_key", _append("instances.csv", "aws,big.8x,NVIDIA A100-SXM4-40GB,8,40,96,1152,,A100-SXM-40GB,instance"),
         r"instances\.csv:4: duplicate key"),
    Case("accelerators_bad_regex", _replace("accelerators.csv", "a100 sxm4? 40gb", "a100 (sxm4"),
         r"accelerators\.csv:2 column name_regex: "),
    Case("aliases_unknown_cloud_model", _replace("accelerator_aliases.csv", ",A100-SXM-40GB,", ",A100-SXM-99GB,"),
         r"accelerator_aliases\.csv:2 column cloud_model: 'A100-SXM-99GB' is no cloud_model"),
    # prices/
    Case("prices_text_in_number", _replace("prices/p2.csv", ",24.0,", ",abc,"), r"p2\.csv:2 column usd_per_hour: .*'abc'"),
    Case("prices_conflicting_duplicate", _append("prices/p2.csv", "aws,us-east-1,big.8x,25.0,2024-06-01,list C"),
         r"p2\.csv:3: conflicting prices for the same instance and date"),
    # results/ and systems/
    Case("results_text_in_number", _replace("results/summary.csv", ",20.0,30.0,", ",abc,30.0,"),
         r"summary\.csv:2 column bert: .*'abc'"),
    Case("systems_truncated_json", _cut("systems/sysA.json", 0.5), r"sysA\.json:line 1 column \d+: invalid JSON"),
    # a log cut off is a dropped run, as the official summarizer drops it (tests/test_bad_inputs.py); a scaling
    # factor that is no number is refused
    Case("mlperf_scaling_not_a_number", _write(f"{RESULTS}/scaling.json", '{"scaling_factor": "abc"}'),
         r"transformer/scaling\.json:\$\.scaling_factor"),
    # throughput/
    Case("throughput_unknown_system", _replace("throughput/t.csv", "sysA,resnet,", "sysZ,resnet,"),
         r"t\.csv:2 column system: unknown system 'sysZ'"),
    Case("throughput_text_in_number", _replace("throughput/t.csv", ",1000,", ",abc,"),
         r"t\.csv:2 column samples_per_second: .*'abc'"),
    # report.toml
    Case("toml_syntax_error", _replace("report.toml", 'title = "Small"', 'title = "Small'), r"report\.toml:\d+: "),
    Case("toml_unknown_instance", _replace("report.toml", '"aws/big.8x", "aws/small.8x"]', '"aws/big.9x", "aws/small.8x"]'),
         r"report\.toml:comparisons\[0\]\.instances\[0\]: unknown instance 'aws/big\.9x'"),
    Case("toml_unknown_benchmark", _replace("report.toml", '"resnet", "bert"]', '"resnet", "bertt"]'),
         r"report\.toml:benchmarks\[1\]: .*'bertt'"),
    Case("toml_duplicate_key", _replace("report.toml", 'title = "Small"\n', 'title = "Small"\ntitle = "Again"\n'),
         r"report\.toml:\d+: "),
    # the public facts a data set may bring: published runs, carbon factors
    Case("published_runs_text_in_number", _replace("published_runs.csv", ",1460000,", ",abc,"),
         r"published_runs\.csv:2 column published_gpu_hours: .*'abc'"),
    Case("mlperf_precision_unknown", _replace("mlperf_precision.csv", ",int8,config,", ",int7,config,"),
         r"mlperf_precision\.csv:2 column precision: 'int7' is not a precision"),
    Case("carbon_text_in_number", lambda raw: _number_to_text(raw / "carbon" / "grid_intensity.csv"),
         r"grid_intensity\.csv:2 column "),
]


# The cases whose next run is refused too: one of each way a refusal is made (a blocking check reading a file through
# another asset, a staging step, the settings, an MLPerf result tree); which file was bad does not change that run
REFUSED_AGAIN = {"mappings_unknown_system", "prices_text_in_number", "toml_syntax_error", "mlperf_scaling_not_a_number"}


def _number_to_text(path: Path) -> None:
    """The first data row's first number as 'abc'."""
    lines = path.read_text(encoding="utf-8").splitlines()
    cells = lines[1].split(",")
    at = next(i for i, cell in enumerate(cells) if re.fullmatch(r"-?\d+(\.\d+)?", cell))
    lines[1] = ",".join([*cells[:at], "abc", *cells[at + 1:]])
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_after_a_good_build_is_refused_and_publishes_nothing(case, good_build, capsys):
    from pipelines.cli import main

    before = published(good_build)
    case.change(good_build)
    with environment(_env(good_build)):
        status = main(["report"])
    out, err = capsys.readouterr()
    assert status == 2, f"{case.name}: exit status {status}: {out}{err}"
    assert out == "", out
    assert err.count("\n") == 1 and err.startswith("error: bad input: "), err[:3000]
    assert re.search(case.error, err), f"{case.name}: {err!r} does not match {case.error!r}"
    assert published(good_build) == before, f"{case.name}: the published report changed"
    if case.name in REFUSED_AGAIN:  # by the next run, with the same line: the failure is run again, not taken as passed
        with environment(_env(good_build)):
            assert main(["report"]) == 2
        assert capsys.readouterr().err == err


def test_every_input_kind_is_corrupted():
    """Every raw input the pipeline observes has a case here (a new input kind needs one)."""
    assert REFUSED_AGAIN <= {case.name for case in CASES}
    from pipelines.defs.automation import RAW_INPUTS

    files = {"raw_mappings": "mappings", "raw_instances": "instances", "raw_accelerators": "accelerators",
             "raw_accelerator_aliases": "aliases", "raw_prices": "prices", "raw_results": "results",
             "raw_systems": "systems", "raw_mlperf": "mlperf", "raw_throughput": "throughput",
             "raw_report_config": "toml", "raw_published_runs": "published_runs", "raw_carbon": "carbon",
             "raw_mlperf_precision": "mlperf_precision"}
    assert set(files) == set(RAW_INPUTS)
    for kind in files.values():
        assert any(case.name.startswith(kind + "_") for case in CASES), kind
