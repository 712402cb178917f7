"""report.toml: the report's title, its comparisons, the benchmarks and the price date.

    title = "..."
    benchmarks = ["resnet", "bert"]
    price_date = "2022-02-08"          # optional; default: the newest price snapshot
    [regions]                          # the region priced for each provider
    aws = "us-east-1"
    [[comparisons]]
    id = "a100-vs-v100"
    title = "..."
    baseline = "aws/p3.16xlarge"       # provider/instance_type, one of `instances`
    instances = ["aws/p4d.24xlarge", "aws/p3.16xlarge"]
    benchmarks = ["resnet"]            # optional; default: the report's benchmarks
    mlperf_trees = ["/data/training_results_v1.0"]  # optional: more MLPerf result trees on disk,
                                       # besides RAW_DIR/mlperf/ (relative paths: to RAW_DIR)
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from pipelines.errors import InputError
from pipelines.ingest.csv_table import read_text
from pipelines.ingest.tables import PROVIDERS

_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")


@dataclass(frozen=True)
class Instance:
    provider: str
    instance_type: str

    @property
    def key(self) -> str:
        return f"{self.provider}/{self.instance_type}"


@dataclass(frozen=True)
class Comparison:
    id: str
    title: str
    baseline: Instance
    instances: tuple[Instance, ...]
    benchmarks: tuple[str, ...]
    description: str = ""


@dataclass(frozen=True)
class ReportConfig:
    title: str
    subtitle: str
    author: str
    benchmarks: tuple[str, ...]
    regions: dict[str, str]
    comparisons: tuple[Comparison, ...]
    price_date: date | None
    mlperf_trees: tuple[Path, ...] = ()


def _instance(path: Path, where: str, text: object) -> Instance:
    if not isinstance(text, str) or text.count("/") != 1:
        raise InputError(path, where, f"{text!r} is not of the form provider/instance_type")
    provider, instance_type = text.split("/")
    if provider not in PROVIDERS:
        raise InputError(path, where, f"provider {provider!r} is not one of {', '.join(PROVIDERS)}")
    return Instance(provider, instance_type.strip())


def _str_list(path: Path, where: str, value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise InputError(path, where, "must be a non-empty list of names")
    return tuple(value)


def parse_report_config(path: Path) -> ReportConfig:
    try:
        data = tomllib.loads(read_text(path))
    except tomllib.TOMLDecodeError as exc:
        # Python 3.11's message ends with "(at line N, column M)": the line goes where it belongs
        message = str(exc)
        at = re.search(r"\s*\(at line (\d+), column (\d+)\)$", message)
        if at:
            message = f"{message[:at.start()]} (column {at.group(2)})"
        raise InputError(path, at.group(1) if at else None, f"is not valid TOML: {message}") from None

    def need(key: str, kind: type, where: str = "") -> object:
        if key not in data:
            raise InputError(path, where or key, "is missing")
        if not isinstance(data[key], kind):
            raise InputError(path, where or key, f"must be a {kind.__name__}")
        return data[key]

    title = need("title", str)
    if not title.strip():
        raise InputError(path, "title", "is empty")
    benchmarks = _str_list(path, "benchmarks", need("benchmarks", list))
    regions = need("regions", dict)
    for provider, region in regions.items():
        if provider not in PROVIDERS or not isinstance(region, str):
            raise InputError(path, f"regions.{provider}", "must map aws, gcp or azure to a region name")

    price_date = data.get("price_date")
    if price_date is not None:
        if isinstance(price_date, str):
            try:
                price_date = date.fromisoformat(price_date)
            except ValueError:
                raise InputError(path, "price_date", f"{price_date!r} is not a date (YYYY-MM-DD)") from None
        if not isinstance(price_date, date) or isinstance(price_date, datetime):
            raise InputError(path, "price_date", "must be a date (YYYY-MM-DD)")
        if price_date > date.today():
            raise InputError(path, "price_date", f"{price_date} lies in the future")

    raw_comparisons = need("comparisons", list)
    if not raw_comparisons:
        raise InputError(path, "comparisons", "must list at least one comparison")
    comparisons, seen = [], set()
    for i, item in enumerate(raw_comparisons):
        where = f"comparisons[{i}]"
        if not isinstance(item, dict):
            raise InputError(path, where, "must be a table")
        cid = item.get("id")
        if not isinstance(cid, str) or not _ID.match(cid) or cid in seen:
            raise InputError(path, f"{where}.id", f"{cid!r} must be a unique lower-case id (a-z, 0-9, -)")
        seen.add(cid)
        if not isinstance(item.get("title"), str):
            raise InputError(path, f"{where}.title", "is missing")
        instances = tuple(_instance(path, f"{where}.instances[{j}]", t)
                          for j, t in enumerate(_str_list(path, f"{where}.instances", item.get("instances"))))
        if len(set(instances)) != len(instances):
            raise InputError(path, f"{where}.instances", "lists an instance twice")
        baseline = _instance(path, f"{where}.baseline", item.get("baseline"))
        if baseline not in instances:
            raise InputError(path, f"{where}.baseline", f"{baseline.key} is not one of the comparison's instances")
        for inst in instances:
            if inst.provider not in regions:
                raise InputError(path, "regions", f"has no region for provider {inst.provider} (used by {where})")
        own = item.get("benchmarks")
        comp_benchmarks = _str_list(path, f"{where}.benchmarks", own) if own is not None else benchmarks
        unknown = [b for b in comp_benchmarks if b not in benchmarks]
        if unknown:
            raise InputError(path, f"{where}.benchmarks", f"{', '.join(unknown)} not in the report's benchmarks")
        comparisons.append(Comparison(cid, item["title"], baseline, instances, comp_benchmarks,
                                      str(item.get("description", ""))))

    trees = data.get("mlperf_trees", [])
    if not isinstance(trees, list) or not all(isinstance(t, str) and t for t in trees):
        raise InputError(path, "mlperf_trees", "must be a list of folder paths")

    return ReportConfig(
        title=title,
        subtitle=str(data.get("subtitle", "")),
        author=str(data.get("author", "cost-to-train pipeline")),
        benchmarks=benchmarks,
        regions=dict(regions),
        comparisons=tuple(comparisons),
        price_date=price_date,
        mlperf_trees=tuple((path.parent / t).resolve() for t in trees),
    )


def mlperf_tree_roots(raw: Path) -> list[Path]:
    """The MLPerf result trees the report reads: each folder under RAW_DIR/mlperf/
    (training_results_vX.Y), then report.toml's mlperf_trees."""
    local = sorted(p for p in (raw / "mlperf").iterdir() if p.is_dir() and not p.name.startswith(".")) \
        if (raw / "mlperf").is_dir() else []
    config = raw / "report.toml"
    extra = list(parse_report_config(config).mlperf_trees) if config.exists() else []
    return local + extra
