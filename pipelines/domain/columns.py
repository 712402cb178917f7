"""What each column of the warehouse's tables and of the published data files means, in one place.

The Dagster UI shows these in every table's column schema, and the data files' pages can explain
their columns from here. A column name means the same in every table it appears in, except where
TABLE_COLUMNS says otherwise for one table. `unit` says how the report shows a number (the
functions of pipelines/domain/units.py); previews in the UI round with the same functions.
The data files carry their table's columns: data/mlperf_runs and data/mlperf_scores are
stg_mlperf_runs and stg_mlperf_scores (the atlas's: atlas_runs and atlas_scores), data/atlas is
atlas_costs and data/atlas_not_priced is atlas_unpriced.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pipelines.domain import units
from pipelines.domain.report_settings import DOCS as SETTING_DOCS


@dataclass(frozen=True)
class Column:
    meaning: str
    unit: str | None = None  # a key of FORMATS, for numbers the report shows


# How the report shows a number of each unit: the same functions the report's tables use.
FORMATS = {
    "usd": units.usd,
    "usd_per_hour": units.usd_hour,
    "minutes": units.minutes,
    "percent": units.pct,
    "ratio": units.times,
    "count": units.count,
    "kwh": units.kwh,
    "kg_co2e": units.kg_co2e,
}

# Values some columns take, named once for the metrics that write them and the documents that show them.
# samples_per_dollar_basis: which formula gave a row's samples per dollar (metrics/cost.py)
MEASURED_BASIS = "measured throughput"
CONVERGENCE_BASIS = "samples to converge / cost"
LOGGED_BASIS = "MLPerf log throughput"
OWN_MEASUREMENT = "measured on the instance itself"  # the note of a throughput row measured on the instance
# energy_basis: where a run's energy comes from (metrics/energy.py)
MEASURED = "measured"
ESTIMATE = "estimate (board power)"

COLUMNS: dict[str, Column] = {
    # your model's cost (issue 45)
    "model": Column("the described model's name in report.toml ([models.<name>])"),
    "run": Column("a published training run (published_runs.csv)"),
    "parameters": Column("parameters of the model (the active ones of a mixture of experts)"),
    "tokens": Column("training tokens"),
    "sequence_length": Column("tokens per training sequence"),
    "hidden_size": Column("hidden size of the transformer (with layers: the attention FLOPs)"),
    "benchmark_parameters": Column("parameters of the MLPerf benchmark's model (GPT-3 175B, Llama 3.1 405B, ...)"),
    "model_flops": Column("model FLOPs of the run: 6·N·tokens (LoRA 4·N·tokens)"),
    "model_flops_with_attention": Column("model FLOPs with the attention term, 12·L·H·S per token (LoRA 8·L·H·S)"),
    "flops_per_accelerator_s": Column("achieved model FLOP/s per accelerator: model_flops / (time to train in s × "
                                      "accelerators)"),
    "flops_with_attention_per_accelerator_s": Column("achieved model FLOP/s per accelerator with the attention term"),
    "basis_benchmark": Column("the MLPerf LLM benchmark whose results the estimate rests on (nearest in size and kind)"),
    "basis_results": Column("the MLPerf results (round/system, accelerators) the estimate rests on: the benchmark's "
                            "results on the accelerator at the scale nearest the cluster priced"),
    "basis_accelerators": Column("the scale (accelerators) of the basis results", "count"),
    "gpu_hours": Column("accelerator-hours of one training run: the median over the basis results of model FLOPs / "
                        "their FLOP/s per accelerator / 3,600", "count"),
    "gpu_hours_low": Column("the least accelerator-hours over the basis results", "count"),
    "gpu_hours_high": Column("the greatest accelerator-hours over the basis results", "count"),
    "hours": Column("wall-clock hours of the run: gpu_hours / accelerators"),
    "cost_usd": Column("cost of the run: gpu_hours / accelerators per instance × USD per instance-hour", "usd"),
    "cost_usd_low": Column("cost of the run at gpu_hours_low", "usd"),
    "cost_usd_high": Column("cost of the run at gpu_hours_high", "usd"),
    "meets_deadline": Column("true when the cluster priced finishes within the model's deadline_days (empty without one)"),
    "published_gpu_hours": Column("accelerator-hours the run's authors published", "count"),
    "published_source": Column("where the published accelerator-hours come from"),
    "estimated_gpu_hours": Column("the run's accelerator-hours estimated from MLPerf's measured throughput (median)",
                                  "count"),
    "estimated_gpu_hours_low": Column("the least estimated accelerator-hours over the basis results", "count"),
    "estimated_gpu_hours_high": Column("the greatest estimated accelerator-hours over the basis results", "count"),
    "ratio": Column("estimated / published accelerator-hours"),
    # what is compared
    "comparison": Column("id of the comparison in report.toml"),
    "comparison_title": Column("title of the comparison, as the report shows it"),
    "description": Column("the comparison's text from report.toml, shown under its title"),
    "position": Column("order of the instance in its comparison in report.toml (0 first)"),
    "benchmark": Column("MLPerf Training benchmark, as MLPerf names it (resnet, bert, dlrm, ...)"),
    "benchmark_position": Column("order of the benchmark in report.toml (0 first)"),
    "is_baseline": Column("true for the comparison's baseline: the instance savings are measured against"),
    "baseline_instance_type": Column("the comparison's baseline instance"),
    "baseline_provider": Column("cloud provider of the baseline instance"),
    "config_path": Column("where in report.toml the row comes from"),
    "title": Column("the report's title (report.toml)"),
    "subtitle": Column("the report's subtitle (report.toml)"),
    "author": Column("the report's author (report.toml)"),
    "benchmarks": Column("the benchmarks the report covers, in order (report.toml)"),
    # cloud instances and prices
    "provider": Column("cloud provider: aws, azure or gcp"),
    "region": Column("the provider's region the price is for"),
    "instance_type": Column("the provider's name of the instance (machine type)"),
    "accelerator": Column("the instance's accelerator, as instances.csv names it"),
    "accelerator_count": Column("accelerators in one instance"),
    "accelerator_memory_gb": Column("memory of one accelerator, GB"),
    "vcpus": Column("virtual CPUs of the instance"),
    "memory_gib": Column("host memory of the instance, GiB"),
    "usd_per_hour": Column("price of one instance-hour in US dollars (effective hourly price for commitments)",
                           "usd_per_hour"),
    "as_of": Column("date of the price snapshot the price comes from"),
    "source": Column("where the price (or the measurement) comes from, as its file says"),
    "currency": Column("currency of the price as the provider's file states it (only USD is accepted)"),
    "pricing_model": Column("how the price is paid: on_demand, spot, reserved, savings_plan or committed_use"),
    "term_years": Column("commitment term in years (empty for on demand and spot)"),
    "payment_option": Column("how a commitment is paid: no_upfront, partial_upfront or all_upfront (empty otherwise)"),
    "offering_class": Column("AWS offering: standard or convertible for a reserved instance, compute or "
                             "ec2_instance for a savings plan (empty otherwise)"),
    "upfront_usd": Column("one-time upfront payment of a commitment, US dollars", "usd"),
    "recurring_usd_per_hour": Column("hourly part of a commitment's price, US dollars", "usd_per_hour"),
    "certainty": Column("exact: checked against a provider's price file; approximate: not checked"),
    "zone_count": Column("spot: how many availability zones the price stands for (empty otherwise)", "count"),
    "zone_min_usd_per_hour": Column("spot: the lowest of those zones' prices, US dollars per hour", "usd_per_hour"),
    "zone_max_usd_per_hour": Column("spot: the highest of those zones' prices, US dollars per hour", "usd_per_hour"),
    "interruption_frequency": Column("spot: how often the provider reclaimed spot capacity in the trailing month, "
                                     "its bucket (<5%, 5-10%, ... >20%; empty when the input gives none)"),
    "price_as_of": Column("date of the snapshot the price in force comes from"),
    "price_source": Column("where the price in force comes from"),
    "providers": Column("the providers whose catalogs list the accelerator"),
    "offers": Column("how many catalog offers carry the accelerator", "count"),
    "whole_market": Column("the comparison also takes every priced offer with the accelerators of an instance it "
                           "lists (report.toml whole_market)"),
    "derived_from": Column("the instance with the same accelerators whose mappings.csv row this derived mapping takes"),
    "offer_kind": Column("what the price is (pipelines/domain/offers.py): list (the provider's published on-demand "
                         "rate), spot, commitment, quote (a price quoted to you), marketplace (a host's listing "
                         "through an aggregator: Vast.ai, Prime Intellect, RunPod community) or auction (a market's "
                         "minimum bid: Mithril)"),
    "headline_offer_kinds": Column("the offer kinds the answer's cheapest and fastest consider (report.toml)"),
    # how sure a figure is (pipelines/metrics/result_spread.py)
    "results_count": Column("how many MLPerf results could stand for the row (closed division, the same accelerator "
                            "model and count, every round held; its own among them); 1 for a team's own measurement",
                            "count"),
    "time_to_train_minutes_low": Column("the least time to train of those results, minutes", "minutes"),
    "time_to_train_minutes_high": Column("the greatest time to train of those results, minutes", "minutes"),
    "cost_to_train_usd_low": Column("usd_per_hour x the least of those times, US dollars", "usd"),
    "cost_to_train_usd_high": Column("usd_per_hour x the greatest of those times, US dollars", "usd"),
    "cluster_flag": Column("set where a result needs several instances and the offer states no inter-node fabric "
                           "(the public catalogs never do): such a cluster may not be sold"),
    "fabric": Column("how instances join into a cluster (EFA, InfiniBand, RoCE ...) where the provider states it"),
    "fabric_gbps_per_accelerator": Column("the inter-node fabric's bandwidth per accelerator, Gb/s"),
    "catalog_accelerator": Column("the accelerator as the public catalog names it (AcceleratorName)"),
    "gpu_name": Column("the accelerator's name in the catalog's GpuInfo"),
    "form_factor": Column("SXM, PCIe or NVL, where the catalog's names state it; null: not stated"),
    "exclude_offer_kinds": Column("kinds of offer report.toml leaves out of the report and the atlas"),
    "price_certainty": Column("exact or approximate, as for the price in force (the report tags approximate prices)"),
    "price_date": Column("the report's price date: report.toml's price_date, else the newest on-demand snapshot of the "
                         "compared instances"),
    "previous_price_date": Column("the newest on-demand snapshot date before the price date (empty when there is none)"),
    "first_price_date": Column("the oldest snapshot date"),
    "previous_as_of": Column("date of the previous price"),
    "current_as_of": Column("date of the price in force on the price date"),
    "previous_usd_per_hour": Column("price per instance-hour at the previous snapshot", "usd_per_hour"),
    "current_usd_per_hour": Column("price per instance-hour on the price date", "usd_per_hour"),
    "change_pct": Column("change of the price since the previous snapshot, percent", "percent"),
    # measured systems and their results
    "system": Column("the MLPerf system id (or a team's own system name) whose results stand for the instance"),
    "mapping_note": Column("how closely the measured system matches the instance (mappings.csv)"),
    "note": Column("how closely the measured system matches the instance"),
    "round": Column("MLPerf Training round, e.g. v1.0"),
    "round_order": Column("the round's place in time, for sorting rounds"),
    "submitter": Column("organisation that submitted the MLPerf result"),
    "time_to_train_minutes": Column("time to train to the benchmark's quality target, minutes, scored as "
                                    "MLCommons scores it (olympic mean of the runs, scaling.json applied)", "minutes"),
    "runs": Column("result logs (runs) of the benchmark in the MLPerf tree (empty for summarizer CSV rows)"),
    "dropped_runs": Column("runs that do not count: aborted, or short of the quality target (empty for summarizer "
                           "CSV rows)"),
    "samples_per_second": Column("training throughput, samples per second", "count"),
    "origin": Column("where the time to train comes from: result-summarizer CSV or MLPerf result tree"),
    "throughput_origin": Column("where samples_per_second comes from: measured (throughput/) or MLPerf log"),
    "framework": Column("training framework and version"),
    "precision": Column("numeric precision of the measured run"),
    "global_batch_size": Column("global batch size of the measured run (MLPerf results of the closed division: "
                                "the summarizer's detailed CSV, or the result logs read as the summarizer reads them; "
                                "else empty)"),
    "summarizer_samples_to_converge": Column("samples to converge as the official summarizer's detailed CSV prints "
                                             "it, in its unit: samples (BERT, Stable Diffusion, the LLMs) or epochs "
                                             "(the others); closed division only", "count"),
    "measured_on": Column("date the throughput was measured"),
    "run_file": Column("the run's MLPerf result log"),
    "minutes": Column("the run's time from run_start to run_stop in its log, minutes", "minutes"),
    "status": Column("scored: the run counts; dropped: it does not (reason says why)"),
    "reason": Column("why a run was dropped, or why a benchmark has no score (empty when it has one)"),
    "tree": Column("the MLPerf result tree the score comes from"),
    # systems JSON
    "system_name": Column("the system's name in its systems JSON"),
    "number_of_nodes": Column("nodes of the measured system"),
    "accelerators_per_node": Column("accelerators per node of the measured system"),
    "accelerators_total": Column("accelerators of the measured system: nodes x accelerators per node"),
    "accelerator_model_name": Column("accelerator as the systems JSON names it"),
    "accelerator_memory_capacity": Column("accelerator memory as the systems JSON states it"),
    "host_processor_model_name": Column("host CPU of the measured system"),
    "host_processors_per_node": Column("host CPUs per node"),
    "host_memory_capacity": Column("host memory per node, as the systems JSON states it"),
    "software": Column("other software of the measured system (systems JSON other_software_stack)"),
    "operating_system": Column("operating system of the measured system"),
    # cost to train
    "cost_to_train_usd": Column("cost to train, US dollars: price per hour x time to train", "usd"),
    "baseline_cost_usd": Column("the baseline's cost to train, US dollars", "usd"),
    "savings_pct": Column("savings against the baseline, percent: 100 x (1 - cost / baseline cost); "
                          "negative when dearer", "percent"),
    "speedup": Column("baseline time / time: above 1 trains faster than the baseline", "ratio"),
    "samples_per_dollar": Column("samples trained per US dollar: measured samples per second x 3600 / price per hour; "
                                 "for an MLPerf result samples to converge / cost to train where known, else the "
                                 "logged throughput's (samples_per_dollar_basis says which)", "count"),
    "samples_per_dollar_basis": Column("which formula gave samples_per_dollar: measured throughput, samples to "
                                       "converge / cost, or MLPerf log throughput"),
    "relative_value": Column("samples per dollar / the baseline's on the same benchmark (the baseline is 1.00)", "ratio"),
    "samples_per_run": Column("training samples in one run: the workload's samples (report.toml [workloads]) or the "
                              "MLPerf result's samples to converge", "count"),
    "samples_to_converge": Column("training samples the MLPerf result's runs needed to reach the quality target, as "
                                  "the official summarizer reports them (empty where the evidence does not give them)",
                                  "count"),
    "time_origin": Column("where the time to train comes from: MLPerf result, or measured throughput (a workload's "
                          "samples / samples per second)"),
    "workload_title": Column("the team's own workload's title (report.toml [workloads])"),
    "workload_description": Column("what one run of the team's own workload is (report.toml [workloads])"),
    "runs_per_month": Column("training runs a month of the team's own workload (report.toml [workloads])"),
    "monthly_cost_usd": Column("cost to train x runs_per_month, US dollars", "usd"),
    "throughput_source": Column("who measured the throughput, and how (throughput/*.csv source)"),
    "throughput_line": Column("the throughput row: file and line"),
    "price_to_beat_baseline": Column("hourly price at which this instance would train as cheaply as the baseline: "
                                     "baseline cost / time in hours", "usd_per_hour"),
    "price_to_beat_cheapest": Column("hourly price at which this instance would train as cheaply as the cheapest: "
                                     "cheapest cost / time in hours", "usd_per_hour"),
    "cut_to_beat_cheapest_pct": Column("how far this instance's price must fall to train as cheaply as the cheapest, "
                                       "percent: 100 x (1 - price to beat the cheapest / USD per hour)", "percent"),
    "time_rank": Column("rank by time to train in its group, 1 the fastest by domain/best.py's rule; an offer outside "
                        "the headline (an auction's, a marketplace's, a stale spot price) after the others", "count"),
    "fastest_tied": Column("offers in the headline of the row's group that share the least time to train (a tie when "
                           "more than one)", "count"),
    "cost_rank": Column("rank by cost to train in its group (the atlas: round, benchmark model and division), 1 the "
                        "cheapest; ties broken by one rule (pipelines/domain/best.py) and auction or marketplace "
                        "offers ranked after every other"),
    "on_pareto_front": Column("true when no other row of its group is both at least as fast and as cheap, "
                              "and better in one"),
    # pricing options (pipelines/metrics/pricing_options.py)
    "pricing_option": Column("the way of paying the row prices: on_demand, spot, commitment_1y (the cheapest 1-year "
                             "commitment), reserved_3y, savings_plan_1y, committed_use_3y, ... (report.toml pricing_models)"),
    "option_position": Column("the pricing option's place in report.toml pricing_models (0 first)"),
    "whose_price": Column("list: the provider's list price; own: the user's negotiated price (report.toml "
                          "[[discounts]]), such as own: 12% off on_demand list"),
    "on_demand_usd_per_hour": Column("the same instance's on-demand price, the commitment break-even's reference",
                                     "usd_per_hour"),
    "break_even_share": Column("commitments: share of the term the instance must train for the commitment to cost "
                               "less than on demand: effective committed rate / on-demand rate"),
    "break_even_runs_per_month": Column("commitments: runs a month from which one commitment costs less than on "
                                        "demand: 730 h x committed rate / (on-demand rate x hours per run)"),
    "price_age_days": Column("days from the price's date to the report's price date", "count"),
    "stale": Column("true when the price is older than report.toml stale_after_days (default 365) at the price date, "
                    "a spot price older than spot_stale_after_days (default 7): no current price, never the cheapest"),
    "cheapest_option": Column("true for the pricing option under which the instance trains for the least"),
    # the answer per comparison and benchmark (pipelines/metrics/cheapest_offers.py)
    "instances": Column("instances the comparison compares"),
    "instances_with_result": Column("of those, the instances with a measured result for the benchmark"),
    "baseline_pricing_option": Column("the pricing option the baseline is priced at for savings (report.toml "
                                      "baseline_pricing)"),
    "baseline_minutes": Column("the baseline's time to train, minutes", "minutes"),
    **{f"{offer}_{name}": Column(f"{what}: {meaning}", unit) for offer, what in (
        ("cheapest", "the cheapest offer over every pricing option the data prices"),
        ("cheapest_on_demand", "the cheapest offer at on-demand prices"),
        ("fastest", "the fastest offer (priced on demand)"),
        ("market", "the cheapest auction or marketplace offer, shown apart (never the headline's)"),
    ) for name, meaning, unit in (
        ("provider", "its cloud provider", None), ("region", "the region it is priced in", None),
        ("instance_type", "its instance", None), ("pricing_option", "the way of paying it is priced at", None),
        ("usd_per_hour", "its price per instance-hour (effective hourly rate for a commitment)", "usd_per_hour"),
        ("minutes", "its time to train, minutes", "minutes"), ("cost_usd", "its cost to train, US dollars", "usd"),
        ("savings_pct", "its savings against the baseline, percent: 100 x (1 - cost / baseline cost)", "percent"),
        ("offer_kind", "what its price is: list, spot, commitment, quote, marketplace or auction", None),
        ("results_count", "the MLPerf results that could stand for it", "count"),
        ("cost_usd_low", "its cost over the least time of those results, US dollars", "usd"),
        ("cost_usd_high", "its cost over the greatest time of those results, US dollars", "usd"),
        ("price_as_of", "its price's date", None), ("price_age_days", "its price's age at the price date, days", "count"),
        ("certainty", "exact or approximate: its price as checked", None),
    ) if offer in ("cheapest", "market") or name != "pricing_option"},  # the other two are on demand by definition
    # the market's price index (pipelines/metrics/price_index.py)
    "price_kind": Column("list (the providers' published on-demand rates, quotes included) or spot"),
    "cheapest_usd": Column("the least price of an accelerator-hour among those offers, US dollars", "usd_per_hour"),
    "median_usd": Column("the median price of an accelerator-hour among those offers, US dollars", "usd_per_hour"),
    "fastest_tied": Column("how many offers share the fastest time (they stand for one measured result): the answer "
                           "says tie when more than one", "count"),
    "previous_cost_usd": Column("cost to train at the previous snapshot's prices", "usd"),
    "current_cost_usd": Column("cost to train on the price date", "usd"),
    "cost_change_pct": Column("change of the cost to train since the previous snapshot, percent", "percent"),
    "previous_rank": Column("cost rank at the previous snapshot's prices"),
    "current_rank": Column("cost rank on the price date"),
    "previous_savings_pct": Column("savings against the baseline at the previous snapshot's prices, percent",
                                   "percent"),
    # where rows come from
    "file": Column("the input file the row was read from (under RAW_DIR)"),
    "line": Column("line (or JSON path) of the row in its file"),
    "kind": Column("what the input file holds: prices, instances, mappings, results, systems, throughput, "
                   "report config or mlperf tree"),
    "rows": Column("rows taken from the file"),
    "sha256": Column("SHA-256 of the file's bytes (of all its files, for an MLPerf tree)"),
    "bytes": Column("size of the file in bytes", "count"),
    # the atlas
    "benchmark_model": Column("the model the benchmark trains; results are compared within a round and a model"),
    "folder": Column("the submitter's folder in the round's repository"),
    "benchmark_path": Column("the benchmark's folder in the result repositories"),
    "quirk": Column("a layout quirk of the published folder, and how it was read (empty for none)"),
    "scaling_factor": Column("factor from the benchmark's scaling.json applied to the time (empty for none)"),
    "accelerator_model": Column("the accelerator model, one name per model (raw/accelerators.csv)"),
    "cloud_model": Column("the cloud accelerator the result is priced as"),
    "vendor": Column("maker of the accelerator"),
    "assumption": Column("what was assumed to price the accelerator, when its systems JSON is not explicit"),
    "status_class": Column("availability in a few classes: cloud, on-premise, available, preview, research, unknown"),
    "problem": Column("what is wrong with the systems JSON (empty when nothing is)"),
    "system_problem": Column("what is wrong with the result's systems JSON (empty when nothing is)"),
    "instance_accelerators": Column("accelerators billed per instance (1 for a Cloud TPU billed per chip)"),
    "instances_needed": Column("instances needed for the result's accelerators: ceil(accelerators / per instance)"),
    "idle_accelerators": Column("accelerators paid for but not used: instances x per instance - accelerators"),
    "accelerator_hours": Column("accelerators x time to train in hours"),
    "usd_per_accelerator_hour": Column("cost to train / accelerator-hours, US dollars", "usd"),
    "cheapest_for_accelerator": Column("true for the cheapest row of its accelerator model in its round, model and division"),
    "fastest": Column("true for the fastest result of its round and model"),
    "price_basis": Column("same cloud: measured on that provider's cloud; otherwise an estimate, and of which kind"),
    "measured_on_provider": Column("the provider whose cloud the result ran on (empty for on-premise results)"),
    "not_priced_because": Column("why the result has no price (empty when it is priced)"),
    "billing": Column("how the provider bills: per instance, or per chip (Cloud TPU)"),
    "notes": Column("notes on the instance: what it is and how it is billed"),
    "cheapest_cost_usd": Column("the round's cheapest cost to train the model, US dollars", "usd"),
    "results_priced": Column("results priced for the model in the round"),
    # scored as MLCommons scores it
    "division": Column("MLPerf division of the entry: closed or open, from its systems JSON, else from a system name "
                       "ending in _close or _open (division_source says which); empty when unknown: such an entry is "
                       "priced but ranked against neither division"),
    "division_source": Column("where the division comes from: systems JSON, or system name where the JSON has none "
                              "(empty: unknown)"),
    "score_basis": Column("where the score comes from: official, the official summarizer's answer; rules, where it "
                          "stops on a systems JSON field its scoring never reads (official_crash says which) and the "
                          "runs are scored by the written rules as its scoring function scores them"),
    "nodes_source": Column("where number_of_nodes comes from: systems JSON, systems JSON 'number of nodes' (a "
                           "misspelt field), or system name (NVIDIA's n<N>); empty: unknown"),
    "rule_deviation": Column("where the official summarizer's score departs from the written rules (the score is "
                             "kept, as published, and flagged)"),
    "deviates_from_rules": Column("true when rule_deviation says the official score departs from the written rules"),
    "official_crash": Column("the error that stops the official summarizer on this entry's system or folder, when it "
                             "does (no official score; score_basis rules where the written rules still score it)"),
    # energy and carbon (docs/energy_and_carbon.md)
    "energy_joules": Column("measured energy of the training run, joules: the power logs scored as the official "
                            "summarizer scores them (olympic mean of the runs, scaling.json applied; empty without "
                            "power logs or when a log is unusable, energy_note says why)"),
    "energy_kwh": Column("energy of one training run, kWh (joules / 3,600,000); in priced tables the measured value "
                         "where there is one, else the board-power estimate (energy_basis says which)", "kwh"),
    "official_energy_joules": Column("the official summarizer's energy, joules, where it computes one (it departs from "
                                     "the rules on some logs: energy_note)"),
    "energy_runs": Column("runs averaged into the measured energy"),
    "energy_note": Column("why the energy is missing, or what is flagged in its power logs (empty when nothing is)"),
    "power_nodes": Column("node power logs (node_K.txt) of the run"),
    "power_switches": Column("interconnect power logs (sw_M.txt) of the run"),
    "energy_averaged": Column("true when the run's energy counts in the entry's olympic mean"),
    "measured_energy_note": Column("what the entry's power logs flag, or why they give no energy (empty when "
                                   "nothing is)"),
    "measured_energy_kwh": Column("energy of the training run measured from MLPerf power logs, kWh", "kwh"),
    "estimated_energy_kwh": Column("estimate: accelerators x board power x utilization x time to train, kWh", "kwh"),
    "energy_basis": Column("measured (MLPerf power logs) or estimate (board power); a measured value always wins"),
    "board_power_w": Column("maximum board power (TDP) of one accelerator, watts (raw/accelerators.csv)"),
    "board_power_source": Column("the vendor document the board power comes from"),
    "board_power_as_of": Column("date the board power was read from its source"),
    "utilization": Column("fraction of board power the estimate assumes (1.0: an upper bound); empty when measured"),
    "accelerators": Column("accelerators of the measured system that trained (its systems JSON): the count the energy "
                           "estimate multiplies"),
    "location": Column("where the region is, for readers"),
    "cfe": Column("Google's carbon-free energy share of the region (0..1): shown, not applied (emissions are "
                  "location-based)"),
    "data_year": Column("the year the grid intensity describes"),
    "pue": Column("power usage effectiveness of the provider's data centres (facility energy / IT energy): the "
                  "region's own figure, else the fleet's"),
    "pue_source": Column("where the PUE comes from (raw/carbon/pue.csv)"),
    "grid_gco2e_per_kwh": Column("location-based carbon intensity of the region's grid, g CO2e per kWh "
                                 "(raw/carbon/grid_intensity.csv)"),
    "grid_as_of": Column("date the grid intensity was published"),
    "grid_source": Column("where the grid intensity comes from"),
    "emissions_kg_co2e": Column("emissions of one training run in the instance's region, kg CO2e, location-based: "
                                "energy (kWh) x PUE x grid intensity (g/kWh) / 1000", "kg_co2e"),
    "emissions_basis": Column("location-based: the grid's average intensity, not the provider's market-based figure"),
    "emissions_note": Column("why the emissions are missing (empty when they are known)"),
    "energy_rank": Column("rank by measured energy per training run within its round, benchmark model and division, "
                          "1 the least (ties share a rank); empty where the energy is not measured"),
}

# Where a column of one table means something else than COLUMNS says.
TABLE_COLUMNS: dict[tuple[str, str], Column] = {
    # your model's cost (issue 45): stg_models, stg_published_runs, llm_throughput, priced_offers, model_estimates,
    # model_not_priced, model_calibration (pipelines/metrics/llm_throughput.py, model_estimates.py, model_calibration.py)
    ("stg_results", "accelerators_count"): Column("accelerators of the system as the summarizer's CSV states them (null "
                                                  "from a result tree: its systems JSON says)", "count"),
    ("stg_models", "name"): Column("the model's name in report.toml ([models.<name>])"),
    ("stg_models", "title"): Column("the model's title, its section's heading"),
    ("stg_models", "kind"): Column("pretrain, or lora: priced from the LoRA benchmark's measurements"),
    ("stg_models", "accelerators"): Column("the cluster size to price (with deadline_days: the largest tried)", "count"),
    ("stg_models", "description"): Column("the model's text from report.toml, shown in its section"),
    ("stg_models", "precision"): Column("what the model trains in (bf16 unless report.toml says fp8 or fp4): the "
                                        "MLPerf throughput is turned to it"),
    ("stg_models", "deadline_days"): Column("days the run must finish in: the smallest cluster that does is priced"),
    ("stg_models", "layers"): Column("transformer layers (with hidden_size: the attention FLOPs)"),
    ("stg_models", "parameters"): Column("parameters active per token (all of a dense model's)", "count"),
    ("stg_models", "total_parameters"): Column("a mixture of experts' whole size (empty: dense)", "count"),
    ("stg_models", "attention"): Column("mha, gqa (both: widths = hidden size) or mla (qk_width and v_width)"),
    ("stg_models", "qk_width"): Column("attention's query-key width: heads × their dimension (empty: the hidden size)"),
    ("stg_models", "v_width"): Column("attention's value width: heads × their dimension (empty: the hidden size)"),
    ("stg_models", "flops_per_token"): Column("model FLOPs per token as stated (empty: computed, domain/llm.py)"),
    ("stg_published_runs", "total_parameters"): Column("a mixture of experts' whole size (empty: dense)", "count"),
    ("stg_published_runs", "qk_width"): Column("attention's query-key width where not the hidden size"),
    ("stg_published_runs", "v_width"): Column("attention's value width where not the hidden size"),
    ("stg_published_runs", "precision"): Column("what the run trained in: bf16, fp8 or fp4"),
    ("stg_published_runs", "published_basis"): Column("the part the published figure covers: pre-training, or total "
                                                      "(the authors give no split)"),
    ("stg_mlperf_precision", "precision"): Column("the precision the result trained in (bf16, fp8, fp4, int8)"),
    ("stg_mlperf_precision", "evidence"): Column("how it is known: log (an MLLOG key) or config (the submission's "
                                                 "configuration)"),
    ("stg_mlperf_precision", "where"): Column("the file, line and setting it is read from"),
    ("llm_throughput", "architecture"): Column("dense, or moe (a mixture of experts)"),
    ("llm_throughput", "benchmark_sequence_length"): Column("tokens per sequence the benchmark trains on", "count"),
    ("llm_throughput", "precision"): Column("the precision the result trained in (mlperf_precision.csv, else assumed)"),
    ("llm_throughput", "precision_evidence"): Column("log, config or assumed: where the precision comes from"),
    ("llm_throughput", "speedup"): Column("how much faster than BF16 that precision trains on the accelerator "
                                          "(domain/precision.py)"),
    ("llm_throughput", "bf16_flops_per_accelerator_s"): Column("achieved model FLOP/s per accelerator at BF16 "
                                                               "(without attention): as run / speedup"),
    ("llm_throughput", "bf16_flops_with_attention_per_accelerator_s"): Column(
        "achieved model FLOP/s per accelerator at BF16, attention included: as run / speedup"),
    ("model_estimates", "precision"): Column("the model's precision (report.toml; bf16 unless said)"),
    ("model_estimates", "cluster_proven"): Column("one instance, or several whose provider states a fabric: a cluster "
                                                  "MLPerf's multi-node results can stand for (false: never the "
                                                  "headline)"),
    ("model_estimates", "basis_note"): Column("what the basis assumes: another architecture, the nearest size, one "
                                              "result, a predecessor's figure, no stated fabric"),
    ("model_estimates", "calibrated"): Column("whether the budget is corrected by published runs (false: MLPerf's "
                                              "speed, not calibrated)"),
    ("model_estimates", "mlperf_gpu_hours"): Column("accelerator-hours at MLPerf's measured speed: the optimistic bound",
                                                    "count"),
    ("model_estimates", "mlperf_hours"): Column("wall-clock hours at MLPerf's measured speed"),
    ("model_estimates", "mlperf_cost_usd"): Column("cost at MLPerf's measured speed: the optimistic bound", "usd"),
    ("model_picks", "pick"): Column("cheapest, cheapest_on_demand, fastest or market (metrics/model_picks.py)"),
    ("model_picks", "tied"): Column("offers of the model sharing the pick's cost (or, for fastest, its time)", "count"),
    ("model_calibration", "precision"): Column("what the run trained in"),
    ("model_calibration", "mlperf_gpu_hours"): Column("the run estimated at MLPerf's measured speed", "count"),
    ("model_calibration", "estimated_gpu_hours"): Column("the run's budget with the correction fitted without it "
                                                         "(leave-one-out)", "count"),
    ("model_calibration", "estimated_gpu_hours_low"): Column("the low end of that budget's range", "count"),
    ("model_calibration", "estimated_gpu_hours_high"): Column("the high end of that budget's range", "count"),
    ("model_calibration", "error"): Column("estimated / published accelerator-hours - 1 (leave-one-out)"),
    ("model_calibration", "within_range"): Column("whether the published figure lies inside the range"),
    ("model_calibration", "ratio"): Column("MLPerf-speed / published accelerator-hours"),
    ("model_calibration", "correction"): Column("the correction over every run: the geometric mean of published / "
                                                "MLPerf-speed accelerator-hours (empty: not calibrated)"),
    ("stg_published_runs", "run"): Column("the published training run"),
    ("stg_published_runs", "accelerator_model"): Column("the accelerator the run is estimated on (a cloud_model of "
                                                        "accelerators.csv)"),
    ("stg_published_runs", "accelerators"): Column("the run's cluster size as published (empty: not known)", "count"),
    ("stg_published_runs", "note"): Column("what the estimate assumes about the run (the cluster size, the accelerator)"),
    ("stg_published_runs", "layers"): Column("transformer layers of the run's model"),
    ("llm_throughput", "kind"): Column("pretrain or lora: the kind of training the benchmark measures"),
    ("llm_throughput", "accelerators"): Column("accelerators of the result's system", "count"),
    ("llm_throughput", "accelerator_model"): Column("the accelerator model instances.csv sells it as (the accelerator "
                                                    "catalog's cloud_model; empty: no cloud sells it)"),
    ("priced_offers", "accelerator_model"): Column("the instance's accelerator model (instances.csv, the catalog's "
                                                   "cloud_model)"),
    ("model_estimates", "accelerators"): Column("accelerators rented: instances × accelerators per instance", "count"),
    ("model_estimates", "instances"): Column("instances rented: ⌈cluster size / accelerators per instance⌉", "count"),
    ("model_estimates", "accelerator_model"): Column("the offer's accelerator model"),
    ("model_calibration", "accelerators"): Column("the cluster size estimated: the run's, else 1,024", "count"),
    ("model_calibration", "accelerator_model"): Column("the accelerator the run is estimated on (the H800 as H100)"),
    ("model_calibration", "note"): Column("what the estimate assumes, or why the run is not estimated"),
    ("model_not_priced", "accelerator_model"): Column("an accelerator model of the offers without an MLPerf LLM result "
                                                      "of the model's kind"),
    ("model_not_priced", "offers"): Column("priced offers (instance, region, pricing option) with that accelerator",
                                           "count"),
    ("model_not_priced", "reason"): Column("why the accelerator is not priced"),
    ("stg_systems", "status"): Column("availability as the systems JSON states it: available, onprem, cloud, "
                                      "preview, research"),
    ("atlas_systems", "status"): Column("availability as the systems JSON states it (status_class groups it)"),
    ("atlas_costs", "status"): Column("availability of the measured system, as its systems JSON states it"),
    ("stg_systems", "file"): Column("the systems JSON the row was read from (under RAW_DIR)"),
    ("atlas_systems", "file"): Column("the systems JSON the row was read from"),
    ("input_files", "file"): Column("the input file (under RAW_DIR), or the MLPerf tree"),
    ("stg_instances", "accelerator"): Column("the instance's accelerator, as instances.csv (or the catalog's GpuInfo) names it"),
    ("stg_instances", "origin"): Column("where the instance's row comes from: instances.csv, or a public catalog"),
    ("atlas_instances", "origin"): Column("where the instance's row comes from: instances.csv, or a public catalog"),
    ("catalog_unknown_accelerators", "accelerator"): Column("an accelerator as the public catalogs name it (with its form "
                                                            "factor where stated), which no alias names"),
    ("stg_catalog_offers", "cloud_model"): Column("the accelerator catalog's cloud model the alias table gives the "
                                                  "offer; null: unknown, never priced"),
    ("stg_accelerators", "model"): Column("the catalog's model: one name for the ways systems JSON spell the part"),
    ("stg_accelerators", "name_regex"): Column("regular expression searched in the simplified accelerator name of a "
                                               "systems JSON (the first matching catalog row wins)"),
    ("stg_accelerators", "system_regex"): Column("regular expression that must also match the simplified system "
                                                 "name (empty: any system)"),
    ("stg_accelerators", "memory_gb"): Column("accelerator memory the systems JSON must state for the row to match, "
                                              "GB within 10 % (empty: any)"),
    ("cost_to_train", "usd_per_accelerator_hour"): Column("price per accelerator-hour: usd_per_hour / accelerators "
                                                          "(per-chip billing: the chip's price)", "usd_per_hour"),
    # the cheapest option per compared instance (pipelines/metrics/pricing_options.py cheapest_options)
    ("cheapest_options", "runs_per_month"): Column("training runs a month the option is cheapest at (empty: for one "
                                                   "training run, by cost to train)"),
    ("cheapest_options", "pricing_option"): Column("the cheapest of report.toml's pricing options (ties: the first in "
                                                   "report.toml's order)"),
    ("cheapest_options", "cost_usd"): Column("what the cheapest option costs, US dollars: the cost to train for one "
                                             "run, else the monthly bill at runs_per_month", "usd"),
    ("cheapest_options", "cheapest_of_benchmark"): Column("the instance cheapest to train in its comparison and "
                                                          "benchmark, each at its cheapest option"),
    ("stg_mappings", "system"): Column("the measured system that stands for the instance for this benchmark; "
                                       "empty when there is no measured result"),
    ("stg_throughput", "source"): Column("where the measurement comes from"),
    ("atlas_costs", "price_age_days"): Column("days from the price's date to the atlas's price date (its newest "
                                              "snapshot)", "count"),
    ("atlas_costs", "stale"): Column("true when the price is more than report.toml stale_after_days (default 365) "
                                     "days older than the atlas's price date (a spot price: spot_stale_after_days, "
                                     "default 7)"),
    ("atlas_costs", "cheapest_option"): Column("the cheapest way to pay for the pair among on demand and report.toml's "
                                               "pricing_models its instance has (spot, commitments)"),
    ("atlas_costs", "cheapest_option_usd_per_hour"): Column("the effective USD per hour of the cheapest option",
                                                            "usd_per_hour"),
    ("atlas_costs", "cheapest_option_cost_usd"): Column("cost to train under the cheapest option (a commitment's "
                                                        "rate assumes the instances are committed anyway)", "usd"),
    ("atlas_option_costs", "cost_to_train_usd"): Column("instances needed x the option's effective USD per hour x "
                                                        "time to train", "usd"),
    ("atlas_trend", "change_pct"): Column("change of the cheapest cost to train since the model's previous round, "
                                          "percent", "percent"),
    ("atlas_trend", "change_since_first_pct"): Column("change of the cheapest cost to train since the model's first "
                                                      "priced round, percent", "percent"),
    ("atlas_trend", "time_to_train_minutes"): Column("time to train of the cheapest configuration, minutes", "minutes"),
    ("atlas_trend", "instances_needed"): Column("instances the cheapest configuration needs"),
    ("atlas_prices", "price_date"): Column("the date the atlas prices at: the newest on-demand snapshot of the "
                                          "instances a scored result can be priced on"),
    ("atlas_prices", "as_of"): Column("date of the price"),
    ("stg_board_power", "model"): Column("the catalog's accelerator model the board power belongs to"),
    ("stg_mlperf_scores", "energy_kwh"): Column("measured energy of the training run, kWh (energy_joules / 3,600,000)",
                                                "kwh"),
    ("atlas_scores", "energy_kwh"): Column("measured energy of the training run, kWh (energy_joules / 3,600,000)",
                                           "kwh"),
    ("price_index", "offers"): Column("the priced instances with the accelerator whose price of that kind is in force "
                                      "at the date", "count"),
    ("price_index", "as_of"): Column("the snapshot date: the prices in force then (each the newest dated on or before)"),
    ("stg_mlperf_runs", "energy_joules"): Column("measured energy of this run, joules (its node and switch logs)"),
    ("atlas_runs", "energy_joules"): Column("measured energy of this run, joules (its node and switch logs)"),
    ("stg_mlperf_runs", "energy_kwh"): Column("measured energy of this run, kWh", "kwh"),
    ("atlas_runs", "energy_kwh"): Column("measured energy of this run, kWh", "kwh"),
}
# model_picks holds model_estimates' rows (one per pick); model_calibration restates published_runs' columns
TABLE_COLUMNS |= {("model_picks", column): meaning for (table, column), meaning in list(TABLE_COLUMNS.items())
                  if table == "model_estimates"}
TABLE_COLUMNS |= {("model_calibration", column): meaning for (table, column), meaning in list(TABLE_COLUMNS.items())
                  if table == "stg_published_runs" and ("model_calibration", column) not in TABLE_COLUMNS}
# stg_report_settings: each setting means what its one declaration says (domain/report_settings.ReportSettings)
TABLE_COLUMNS.update({("stg_report_settings", name): Column(doc) for name, doc in SETTING_DOCS.items()})


# The published data files (data/<name>.csv and .parquet) of a report and of the atlas: the table each
# holds (its columns mean what describe() says for that table) and what its rows are.
DATA_FILES: dict[str, dict[str, tuple[str, str]]] = {
    "report": {
        "cheapest_offers": ("cheapest_offers", "the answer per comparison and benchmark: the cheapest offer over every "
                                               "pricing option, the cheapest on demand, the fastest, and their savings"),
        "cost_to_train": ("cost_to_train", "cost to train of every compared instance, per comparison and benchmark"),
        "price_history": ("price_history", "every price of every snapshot, every pricing model"),
        "price_changes": ("price_changes", "prices that changed since the previous snapshot"),
        "cost_changes": ("cost_changes", "what those price changes do to cost to train and rank"),
        "price_index": ("price_index", "the cheapest and median price per accelerator-hour of each current accelerator "
                                       "at every snapshot, list and spot apart"),
        "time_to_train": ("time_to_train", "the time to train of every measured system and benchmark"),
        "input_files": ("input_files", "every input file with its SHA-256 and the rows taken from it"),
        "mlperf_scores": ("stg_mlperf_scores", "MLPerf scores computed from the result trees"),
        "mlperf_runs": ("stg_mlperf_runs", "every run (result log) behind those scores"),
        "model_estimates": ("model_estimates", "each described model of report.toml on every offer and pricing option: "
                                               "the budget's accelerator-hours, time and cost with their range, MLPerf's "
                                               "own speed beside it, and the basis results"),
        "model_picks": ("model_picks", "each described model's cheapest offer, cheapest on demand, fastest and "
                                       "cheapest market offer: what the answer page and its chapter name"),
        "model_not_priced": ("model_not_priced", "accelerators without an MLPerf LLM result, not priced, and why"),
        "model_calibration": ("model_calibration", "published training runs against their estimates: at MLPerf's speed, "
                                                   "and the budget made without each run, with its range and error"),
        "llm_throughput": ("llm_throughput", "achieved model FLOP/s per accelerator of every closed MLPerf LLM result"),
    },
    "atlas": {
        "atlas": ("atlas_costs", "every priced MLPerf result × cloud instance pair, on demand and under every other "
                                 "pricing option its instance has (atlas_option_costs)"),
        "mlperf_scores": ("atlas_scores", "every benchmark entry of the corpus, scored as MLCommons scores it"),
        "atlas_not_priced": ("atlas_unpriced", "entries without a cost, and why"),
        "atlas_trend": ("atlas_trend", "the cheapest cost to train per benchmark model and round"),
        "mlperf_runs": ("atlas_runs", "every run (result log) of the corpus"),
        "atlas_systems": ("atlas_systems", "the systems JSON of every submission"),
        "atlas_prices": ("atlas_prices", "the cloud prices the atlas uses, with their sources"),
    },
}


# Mart columns the data files leave out: percentages the documents print, computed once in the metrics from
# figures the same file already carries. Left out so that the files stay as published (issue 46, item 3);
# dropping a name here publishes it.
UNPUBLISHED_COLUMNS = ("previous_savings_pct", "cut_to_beat_cheapest_pct", "change_since_first_pct")


def describe(table: str, column: str) -> Column | None:
    """What a column of a table means, or None when the dictionary does not know it."""
    return TABLE_COLUMNS.get((table, column)) or COLUMNS.get(column)


def formatted(table: str, column: str, value) -> str:
    """A value as the report would show it: numbers with a unit through units.py, other floats
    rounded to 4 decimals, missing values empty."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    known = describe(table, column)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and known and known.unit:
        return FORMATS[known.unit](value)
    if isinstance(value, float):
        return f"{value:,.4f}".rstrip("0").rstrip(".")
    return str(value)
