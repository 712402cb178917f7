"""report.toml: the report's title, its comparisons, the benchmarks and the price date.

    title = "..."
    benchmarks = ["resnet", "bert"]
    price_date = "2022-02-08"          # optional; default: the newest price snapshot
    [regions]                          # the region priced for each provider (an instance may name
                                       # its own: "azure/Standard_ND96isr_MI300X_v5@eastus2")
    aws = "us-east-1"
    [[comparisons]]
    id = "a100-vs-v100"
    title = "..."
    baseline = "aws/p3.16xlarge"       # provider/instance_type, one of `instances`
    instances = ["aws/p4d.24xlarge", "aws/p3.16xlarge"]
                                       # "provider/instance_type@region": priced in that region
                                       # instead of [regions]' (an instance not sold there)
    benchmarks = ["resnet"]            # optional; default: the report's benchmarks
    whole_market = true                # optional: also every other priced offer with the accelerators
                                       # (model and count) of a listed instance, each in its region
                                       # ([regions], else its cheapest) (pipelines/metrics/market.py)
    mlperf_trees = ["/data/training_results_v1.0"]  # optional: more MLPerf result trees on disk,
                                       # besides RAW_DIR/mlperf/ (relative paths: to RAW_DIR)

How the report prices (all optional; pipelines/metrics/pricing_options.py defines the spellings):

    pricing_models = ["on_demand", "spot", "commitment_1y", "commitment_3y"]   # the default
                                       # which options the report shows, in this order; also
                                       # reserved_1y/_3y, savings_plan_1y/_3y, committed_use_1y/_3y
    baseline_pricing = "on_demand"     # savings are against the baseline at this option (one of
                                       # pricing_models)
    runs_per_month = [1, 100, 1000]    # the break-even table's "cheapest at N runs a month"
    stale_after_days = 365             # a price older than this at the price date is marked stale
    spot_stale_after_days = 7          # a spot price older than this is no current price: marked stale, and
                                       # never the answer's cheapest or fastest (pipelines/metrics/price_age.py)
    exclude_offer_kinds = ["auction"]  # optional: kinds of offer left out of the report and the atlas
                                       # (list, spot, commitment, quote, marketplace, auction; default: none)
    headline_offer_kinds = ["list", "spot", "commitment", "quote"]  # the default: the kinds the answer's
                                       # "cheapest" considers; auction and marketplace offers are shown
                                       # apart, labelled (pipelines/domain/offers.py says what each is)
    [[discounts]]                      # the user's negotiated price: percent off a pricing model
    provider = "aws"
    instance = "p4d.24xlarge"          # optional: this instance only (wins over the provider's)
    pricing_model = "on_demand"        # on_demand, spot, reserved, savings_plan, committed_use
    percent = 12

A team's own workload: its throughput rows (throughput/*.csv, benchmark = the workload's name)
give the time to train, samples / samples_per_second. A comparison may list it in its own
`benchmarks` without the report listing it, so other comparisons need no mapping for it:

    [workloads.ourmodel]
    title = "Our model"                # the section's heading
    samples = 12_000_000               # training samples in one run (epochs x dataset size)
    runs_per_month = 4                 # optional: adds the monthly cost
    description = "..."                # optional: what a run is, shown with its section

A model described by its size and tokens, priced on every offer from MLPerf's measured LLM throughput
(pipelines/metrics/model_estimates.py):

    [models.my_8b]
    title = "An 8B dense transformer on 15T tokens"
    parameters = 8.03e9                # a dense model's; a mixture of experts gives active_parameters and total_parameters
    tokens = 15.6e12
    sequence_length = 8192
    layers = 32                        # optional, with hidden_size: the attention FLOPs
    hidden_size = 4096
    attention = "gqa"                  # optional: mha, gqa (widths = hidden_size) or mla (with qk_width and v_width)
    flops_per_token = 6.1e10           # optional: stated, it replaces the computed figure
    accelerators = 1024                # the cluster size to price (or deadline_days)
    kind = "pretrain"                  # optional: pretrain (default) or lora (the LoRA benchmark's measurements)
    deadline_days = 30                 # optional: the smallest cluster that finishes in time (accelerators: at most)
    precision = "bf16"                 # optional: bf16 (default), fp8 or fp4: the precision it trains in
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

from pipelines.config import today as calendar_today
from pipelines.domain.errors import InputError
from pipelines.domain.llm import ATTENTIONS, GQA, MLA, KINDS as _MODEL_KINDS, DescribedModel as Model
from pipelines.domain.precision import DEFAULT as DEFAULT_PRECISION, PRECISIONS, normalize as normalize_precision
from pipelines.ingest.csv_table import read_text
from pipelines.domain.mlperf import MLPERF_BENCHMARKS
from pipelines.ingest.names import (WELL_KNOWN_PROVIDERS, did_you_mean, nearest, not_one_of, provider_problem,
                                    unknown_name)
from pipelines.domain.offers import DEFAULT_SPOT_STALE_AFTER_DAYS, HEADLINE_DEFAULT, OFFER_KINDS
from pipelines.domain.pricing import (DEFAULT_BASELINE_PRICING, DEFAULT_PRICING_MODELS, DEFAULT_STALE_AFTER_DAYS,
                                      OPTION_SPELLINGS as PRICING_OPTIONS, PRICING_MODELS, parse_option)
from pipelines.domain.report_settings import DEFAULT_AUTHOR, DEFAULT_RUNS_PER_MONTH

_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_NAME = re.compile(r"^[a-z0-9][a-z0-9_]*$")
_REGION = re.compile(r"^[A-Za-z][A-Za-z0-9-]*[A-Za-z0-9]$")  # GPU clouds write CANADA-1, FIN-03


@dataclass(frozen=True)
class Instance:
    """provider/instance_type, optionally @region: an instance not sold in its provider's [regions]
    region is priced where it is sold ("azure/Standard_ND96isr_MI300X_v5@eastus2"). The region is not
    part of the identity: an instance is listed once per comparison, and the baseline names it with
    or without its region."""

    provider: str
    instance_type: str
    region: str | None = field(default=None, compare=False)

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
    whole_market: bool = False


@dataclass(frozen=True)
class Discount:
    """The user's negotiated price: `percent` off a provider's (or one instance's) `pricing_model`."""

    provider: str
    instance_type: str | None
    pricing_model: str
    percent: float


@dataclass(frozen=True)
class Workload:
    """A team's own training run: how many samples it trains, so measured throughput gives its time."""

    name: str
    title: str
    samples: float
    runs_per_month: int | None = None
    description: str = ""


@dataclass(frozen=True)
class ReportConfig:
    """report.toml as parsed: every key given or defaulted by parse_report_config (the defaults:
    pipelines/domain/report_settings.py, whose ReportSettings the stored settings are read back as)."""

    title: str
    subtitle: str
    author: str
    benchmarks: tuple[str, ...]
    regions: dict[str, str]
    comparisons: tuple[Comparison, ...]
    price_date: date | None
    mlperf_trees: tuple[Path, ...]
    pricing_models: tuple[str, ...]
    baseline_pricing: str
    discounts: tuple[Discount, ...]
    runs_per_month: tuple[int, ...]
    stale_after_days: int
    spot_stale_after_days: int
    workloads: tuple[Workload, ...]
    exclude_offer_kinds: tuple[str, ...]
    headline_offer_kinds: tuple[str, ...]
    models: tuple[Model, ...]

    @property
    def all_benchmarks(self) -> tuple[str, ...]:
        """The report's benchmarks, then the workloads it does not list: the order of every section."""
        return self.benchmarks + tuple(w.name for w in self.workloads if w.name not in self.benchmarks)


_DISCOUNT_KEYS = {"provider", "instance", "pricing_model", "percent"}
_KEYS = ("title", "subtitle", "author", "benchmarks", "price_date", "regions", "comparisons", "mlperf_trees",
         "pricing_models", "baseline_pricing", "runs_per_month", "stale_after_days", "spot_stale_after_days",
         "discounts", "workloads",
         "exclude_offer_kinds", "headline_offer_kinds", "models")
_COMPARISON_KEYS = ("id", "title", "description", "baseline", "instances", "benchmarks", "whole_market")


def _offer_kinds(path: Path, data: dict, key: str, default: list[str]) -> list[str]:
    """A list of offer kinds (domain/offers.py), each checked."""
    kinds = data.get(key, default)
    if not isinstance(kinds, list) or not all(isinstance(k, str) for k in kinds):
        raise InputError(path, key, f"must be a list of offer kinds ({', '.join(OFFER_KINDS)})")
    for i, kind in enumerate(kinds):
        if kind not in OFFER_KINDS:
            raise InputError(path, f"{key}[{i}]", f"{kind!r} is not an offer kind ({', '.join(OFFER_KINDS)})"
                             + did_you_mean(kind, OFFER_KINDS))
    return kinds


def _known_keys(path: Path, where: str, table: dict, keys: tuple[str, ...]) -> None:
    """A key report.toml does not know would be ignored without a word (`pricing_model = [...]` for
    pricing_models): it is an error naming the key meant."""
    for key in table:
        if key not in keys:
            raise InputError(path, f"{where}{key}", f"is not a key of {'report.toml' if not where else where.rstrip('.')}"
                             f"{did_you_mean(key, keys)} (its keys: {', '.join(keys)})")


def _days(path: Path, data: dict, key: str, default: int) -> int:
    """A number of days (stale_after_days, spot_stale_after_days): a whole number, 0 or more."""
    days = data.get(key, default)
    if not isinstance(days, int) or isinstance(days, bool) or days < 0:
        raise InputError(path, key, f"{days!r} must be a whole number of days (0 or more)")
    return days


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _pricing(path: Path, data: dict) -> tuple[tuple[str, ...], str]:
    """pricing_models and baseline_pricing: known spellings, no repeats, the baseline's among them."""
    models = data.get("pricing_models", list(DEFAULT_PRICING_MODELS))
    models = _str_list(path, "pricing_models", models)
    for i, option in enumerate(models):
        if parse_option(option) is None:
            raise InputError(path, f"pricing_models[{i}]", f"{option!r} is not a pricing option (on_demand, spot, "
                             f"reserved_1y, savings_plan_3y, committed_use_1y, commitment_3y, ...)"
                             f"{did_you_mean(option, PRICING_OPTIONS)}")
    if len(set(models)) != len(models):
        raise InputError(path, "pricing_models", "lists a pricing option twice")
    baseline = data.get("baseline_pricing", DEFAULT_BASELINE_PRICING)
    if not isinstance(baseline, str) or parse_option(baseline) is None:
        raise InputError(path, "baseline_pricing", f"{baseline!r} is not a pricing option"
                         f"{did_you_mean(baseline, PRICING_OPTIONS)}")
    if baseline not in models:
        raise InputError(path, "baseline_pricing", f"{baseline} is not one of pricing_models ({', '.join(models)})")
    return models, baseline


def _tables(path: Path, key: str, value: object) -> list[tuple[str, dict]]:
    """An array of tables ([[key]]) as (where, table) pairs: "comparisons[0]", {...}."""
    if not isinstance(value, list):
        raise InputError(path, key, f"must be an array of tables ([[{key}]])")
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise InputError(path, f"{key}[{i}]", "must be a table")
    return [(f"{key}[{i}]", item) for i, item in enumerate(value)]


def _discounts(path: Path, data: dict) -> tuple[Discount, ...]:
    out, seen = [], set()
    for where, item in _tables(path, "discounts", data.get("discounts", [])):
        unknown = sorted(set(item) - _DISCOUNT_KEYS)
        if unknown:
            raise InputError(path, f"{where}.{unknown[0]}", "is not a discount key (provider, instance, "
                             f"pricing_model, percent){did_you_mean(unknown[0], _DISCOUNT_KEYS)}")
        provider = item.get("provider")
        problem = provider_problem(provider)
        if problem:
            raise InputError(path, f"{where}.provider", problem)
        instance = item.get("instance")
        if instance is not None and (not isinstance(instance, str) or not instance.strip()):
            raise InputError(path, f"{where}.instance", "must be an instance type name")
        model = item.get("pricing_model")
        if model not in PRICING_MODELS:
            raise InputError(path, f"{where}.pricing_model", not_one_of(model, PRICING_MODELS))
        percent = item.get("percent")
        if not _is_number(percent) or not 0 < percent < 100:
            raise InputError(path, f"{where}.percent", f"{percent!r} must be a number above 0 and below 100")
        key = (provider, instance, model)
        if key in seen:
            raise InputError(path, where, "repeats a discount for the same provider, instance and pricing model")
        seen.add(key)
        out.append(Discount(provider, instance.strip() if instance else None, model, float(percent)))
    return tuple(out)


_WORKLOAD_KEYS = {"title", "samples", "runs_per_month", "description"}


def _workloads(path: Path, data: dict) -> tuple[Workload, ...]:
    tables = data.get("workloads", {})
    if not isinstance(tables, dict):
        raise InputError(path, "workloads", "must be tables of the form [workloads.<name>]")
    out = []
    for name, item in tables.items():
        where = f"workloads.{name}"
        if not _NAME.match(name):
            raise InputError(path, where, f"{name!r} must be a lower-case name (a-z, 0-9, _)")
        if name in MLPERF_BENCHMARKS:
            raise InputError(path, where, f"{name!r} is an MLPerf benchmark; name the workload otherwise")
        if not isinstance(item, dict):
            raise InputError(path, where, "must be a table")
        unknown = sorted(set(item) - _WORKLOAD_KEYS)
        if unknown:
            raise InputError(path, f"{where}.{unknown[0]}", "is not a workload key (title, samples, runs_per_month, "
                             f"description){did_you_mean(unknown[0], _WORKLOAD_KEYS)}")
        title = item.get("title")
        if not isinstance(title, str) or not title.strip():
            raise InputError(path, f"{where}.title", "is missing")
        samples = item.get("samples")
        if not _is_number(samples) or not samples > 0 or samples == float("inf"):
            raise InputError(path, f"{where}.samples", f"{samples!r} must be a positive number of training samples")
        runs = item.get("runs_per_month")
        if runs is not None and not (isinstance(runs, int) and not isinstance(runs, bool) and runs > 0):
            raise InputError(path, f"{where}.runs_per_month", f"{runs!r} must be a positive whole number")
        out.append(Workload(name, title.strip(), float(samples), runs, str(item.get("description", ""))))
    return tuple(out)


_MODEL_KEYS = ("title", "parameters", "active_parameters", "total_parameters", "tokens", "sequence_length", "layers",
               "hidden_size", "attention", "qk_width", "v_width", "flops_per_token", "accelerators", "kind", "precision",
               "deadline_days", "description")


def _positive(value: object, whole: bool = False) -> bool:
    if whole:
        return isinstance(value, int) and not isinstance(value, bool) and value > 0
    return _is_number(value) and 0 < value < float("inf")


def _model(path: Path, name: str, item: object) -> Model:
    """One [models.<name>] table; every bad value is one line naming its key."""
    where = f"models.{name}"
    if not _NAME.match(name):
        raise InputError(path, where, f"{name!r} must be a lower-case name (a-z, 0-9, _)")
    if not isinstance(item, dict):
        raise InputError(path, where, "must be a table")
    _known_keys(path, f"{where}.", item, _MODEL_KEYS)
    title = item.get("title")
    if not isinstance(title, str) or not title.strip():
        raise InputError(path, f"{where}.title", "is missing")
    if "parameters" in item and "active_parameters" in item:
        raise InputError(path, f"{where}.active_parameters", "give parameters (a dense model) or active_parameters "
                                                             "(a mixture of experts), not both")
    size_key = "active_parameters" if "active_parameters" in item else "parameters"
    if ("active_parameters" in item) != ("total_parameters" in item):
        raise InputError(path, f"{where}.{'total_parameters' if 'active_parameters' in item else 'active_parameters'}",
                         "is missing: a mixture of experts gives active_parameters and total_parameters")
    numbers = {size_key: False, "tokens": False, "sequence_length": True}
    for key, whole in numbers.items():
        if key not in item:
            raise InputError(path, f"{where}.{key}", "is missing")
        if not _positive(item[key], whole):
            raise InputError(path, f"{where}.{key}", f"{item[key]!r} must be a positive "
                             + ("whole number" if whole else "number"))
    for key in ("layers", "hidden_size", "accelerators", "qk_width", "v_width"):
        if key in item and not _positive(item[key], whole=True):
            raise InputError(path, f"{where}.{key}", f"{item[key]!r} must be a positive whole number")
    for key in ("total_parameters", "flops_per_token"):
        if key in item and not _positive(item[key]):
            raise InputError(path, f"{where}.{key}", f"{item[key]!r} must be a positive number")
    if "total_parameters" in item and item["total_parameters"] < item[size_key]:
        raise InputError(path, f"{where}.total_parameters", "is below active_parameters")
    attention = item.get("attention", GQA)
    if attention not in ATTENTIONS:
        raise InputError(path, f"{where}.attention", not_one_of(attention, ATTENTIONS))
    widths = "qk_width" in item or "v_width" in item
    if attention == MLA and not ("qk_width" in item and "v_width" in item):
        raise InputError(path, f"{where}.{'v_width' if 'qk_width' in item else 'qk_width'}", "is missing: multi-head "
                         "latent attention gives qk_width and v_width (heads x their query-key and value dimensions)")
    if "layers" in item and not ("hidden_size" in item or widths):
        raise InputError(path, f"{where}.hidden_size", "is missing: layers and hidden_size go together (the attention "
                                                       "FLOPs)")
    if ("hidden_size" in item or widths) and "layers" not in item:
        raise InputError(path, f"{where}.layers", "is missing: the attention FLOPs need the number of layers")
    deadline = item.get("deadline_days")
    if deadline is not None and not _positive(deadline):
        raise InputError(path, f"{where}.deadline_days", f"{deadline!r} must be a positive number of days")
    if "accelerators" not in item and deadline is None:
        raise InputError(path, f"{where}.accelerators", "is missing: give the cluster size to price, or deadline_days")
    kind = item.get("kind", "pretrain")
    if kind not in _MODEL_KINDS:
        raise InputError(path, f"{where}.kind", not_one_of(kind, _MODEL_KINDS))
    precision = item.get("precision", DEFAULT_PRECISION)
    if not isinstance(precision, str) or normalize_precision(precision) not in PRECISIONS:
        raise InputError(path, f"{where}.precision", f"{precision!r} must be one of {', '.join(PRECISIONS)} (what the "
                                                     "model trains in; fp8 and fp4 as their MX or NV forms too)")
    total = item.get("total_parameters")
    return Model(name, title.strip(), float(item[size_key]), float(item["tokens"]), item["sequence_length"], kind,
                 item.get("layers"), item.get("hidden_size"), item.get("accelerators"),
                 float(deadline) if deadline is not None else None, normalize_precision(precision),
                 str(item.get("description", "")), float(total) if total is not None else None, attention,
                 item.get("qk_width"), item.get("v_width"),
                 float(item["flops_per_token"]) if "flops_per_token" in item else None)


def _models(path: Path, data: dict) -> tuple[Model, ...]:
    tables = data.get("models", {})
    if not isinstance(tables, dict):
        raise InputError(path, "models", "must be tables of the form [models.<name>]")
    return tuple(_model(path, name, item) for name, item in tables.items())


def _positive_ints(path: Path, key: str, value: object) -> tuple[int, ...]:
    if not isinstance(value, list) or not value or not all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in value):
        raise InputError(path, key, "must be a non-empty list of positive whole numbers")
    return tuple(value)


def _instance(path: Path, where: str, text: object) -> Instance:
    if not isinstance(text, str) or text.count("/") != 1 or text.count("@") > 1:
        raise InputError(path, where, f"{text!r} is not of the form provider/instance_type (or "
                         "provider/instance_type@region)")
    text, at, region = text.partition("@")
    provider, instance_type = text.split("/")
    problem = provider_problem(provider)
    if problem:
        raise InputError(path, where, problem)
    if at and not _REGION.match(region.strip()):
        raise InputError(path, where, f"{region!r} after @ is not a region name (such as eastus2)")
    return Instance(provider, instance_type.strip(), region.strip() or None)


def _str_list(path: Path, where: str, value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise InputError(path, where, "must be a non-empty list of names")
    return tuple(value)


def parse_report_config(path: Path, today: date | None = None) -> ReportConfig:
    """report.toml, checked; a price_date after `today` (default config.today()) is refused."""
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

    _known_keys(path, "", data, _KEYS)
    title = need("title", str)
    if not title.strip():
        raise InputError(path, "title", "is empty")
    benchmarks = _str_list(path, "benchmarks", need("benchmarks", list))
    workloads = _workloads(path, data)
    workload_names = [w.name for w in workloads]
    for i, bench in enumerate(benchmarks):
        problem = unknown_name("benchmark", bench, [*MLPERF_BENCHMARKS, *workload_names])
        if problem:
            raise InputError(path, f"benchmarks[{i}]", problem + "; a workload of your own is declared in [workloads]")
    regions = need("regions", dict)
    for provider, region in regions.items():
        if provider_problem(provider) or not isinstance(region, str):
            raise InputError(path, f"regions.{provider}", "must map a provider (aws, gcp, azure, a public catalog's "
                                                          "cloud or one of your own) to a region name"
                             + did_you_mean(provider, WELL_KNOWN_PROVIDERS))

    price_date = data.get("price_date")
    if price_date is not None:
        if isinstance(price_date, str):
            try:
                price_date = date.fromisoformat(price_date)
            except ValueError:
                raise InputError(path, "price_date", f"{price_date!r} is not a date (YYYY-MM-DD)") from None
        if not isinstance(price_date, date) or isinstance(price_date, datetime):
            raise InputError(path, "price_date", "must be a date (YYYY-MM-DD)")
        if price_date > (today or calendar_today()):
            raise InputError(path, "price_date", f"{price_date} lies in the future")

    raw_comparisons = need("comparisons", list)
    if not raw_comparisons:
        raise InputError(path, "comparisons", "must list at least one comparison")
    comparisons, seen = [], set()
    for where, item in _tables(path, "comparisons", raw_comparisons):
        _known_keys(path, f"{where}.", item, _COMPARISON_KEYS)
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
            raise InputError(path, f"{where}.baseline", f"{baseline.key} is not one of the comparison's instances"
                             f"{did_you_mean(baseline.key, [i.key for i in instances])}")
        baseline = next(inst for inst in instances if inst == baseline)  # with the region the list gives it
        for inst in instances:
            if inst.region is None and inst.provider not in regions:
                near = nearest(inst.provider, list(regions))
                raise InputError(path, "regions", f"has no region for provider {inst.provider} (used by {where})"
                                 + (f"; is its {near!r} meant to be {inst.provider!r}?" if near else ""))
        own = item.get("benchmarks")
        comp_benchmarks = _str_list(path, f"{where}.benchmarks", own) if own is not None else benchmarks
        for bench in comp_benchmarks:
            if bench not in benchmarks and bench not in workload_names:
                hint = did_you_mean(bench, [*benchmarks, *workload_names])
                raise InputError(path, f"{where}.benchmarks",
                                 f"{bench} not in the report's benchmarks ({', '.join(benchmarks)}) nor a workload "
                                 f"([workloads]: {', '.join(workload_names) or 'none'}){hint}")
        market = item.get("whole_market", False)
        if not isinstance(market, bool):
            raise InputError(path, f"{where}.whole_market", f"{market!r} must be true or false")
        comparisons.append(Comparison(cid, item["title"], baseline, instances, comp_benchmarks,
                                      str(item.get("description", "")), market))

    trees = data.get("mlperf_trees", [])
    if not isinstance(trees, list) or not all(isinstance(t, str) and t for t in trees):
        raise InputError(path, "mlperf_trees", "must be a list of folder paths")

    pricing_models, baseline_pricing = _pricing(path, data)
    stale = _days(path, data, "stale_after_days", DEFAULT_STALE_AFTER_DAYS)
    spot_stale = _days(path, data, "spot_stale_after_days", DEFAULT_SPOT_STALE_AFTER_DAYS)

    excluded = _offer_kinds(path, data, "exclude_offer_kinds", [])
    headline = _offer_kinds(path, data, "headline_offer_kinds", list(HEADLINE_DEFAULT))
    if not headline:
        raise InputError(path, "headline_offer_kinds", "names no offer kind: the answer would compare nothing")

    return ReportConfig(
        exclude_offer_kinds=tuple(excluded),
        headline_offer_kinds=tuple(headline),
        title=title,
        subtitle=str(data.get("subtitle", "")),
        author=str(data.get("author", DEFAULT_AUTHOR)),
        benchmarks=benchmarks,
        regions=dict(regions),
        comparisons=tuple(comparisons),
        price_date=price_date,
        mlperf_trees=tuple((path.parent / t).resolve() for t in trees),
        pricing_models=pricing_models,
        baseline_pricing=baseline_pricing,
        discounts=_discounts(path, data),
        runs_per_month=_positive_ints(path, "runs_per_month", data.get("runs_per_month", list(DEFAULT_RUNS_PER_MONTH))),
        stale_after_days=stale,
        spot_stale_after_days=spot_stale,
        workloads=workloads,
        models=_models(path, data),
    )


def mlperf_tree_roots(raw: Path) -> list[Path]:
    """The MLPerf result trees the report reads: each folder under RAW_DIR/mlperf/
    (training_results_vX.Y), then report.toml's mlperf_trees."""
    local = sorted(p for p in (raw / "mlperf").iterdir() if p.is_dir() and not p.name.startswith(".")) \
        if (raw / "mlperf").is_dir() else []
    config = raw / "report.toml"
    extra = list(parse_report_config(config).mlperf_trees) if config.exists() else []
    return local + extra
