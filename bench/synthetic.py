"""Synthetic marts for rendering benchmarks and rendering tests: any number of instances.

The staging frames are generated (deterministically, from a seed) and the marts are computed
from them with the pipeline's own metric functions (pipelines/metrics), so the tables have the
real schemas and the real relations (baseline, ranks, Pareto front, price changes).

Layout: one comparison per benchmark; `instances` compared instances split evenly across the
`benchmarks` comparisons (500 instances across 5 benchmarks = 5 comparisons of 100 instances).
Prices have two snapshots; about one instance in five changes price in the second.
"""

from __future__ import annotations

import random
from datetime import date

import polars as pl

from pipelines.domain.report_settings import ReportSettings
from pipelines.metrics.cheapest_offers import cheapest_offers
from pipelines.metrics.cost import assemble_inputs, cost_to_train
from pipelines.metrics.cost_changes import cost_changes
from pipelines.metrics.price_changes import price_changes, prices_in_force

BENCHMARKS = ["resnet", "bert", "dlrm", "maskrcnn", "rnnt", "unet3d", "ssd", "minigo"]
PROVIDERS = [("aws", "us-east-1"), ("gcp", "us-central1"), ("azure", "eastus")]
ACCELERATORS = [("NVIDIA A100-SXM4-40GB", 1.0), ("NVIDIA V100-SXM2-16GB", 2.4), ("NVIDIA H100-SXM5-80GB", 0.45),
                ("Habana Gaudi HL-205", 1.9), ("NVIDIA L4", 3.5)]
FIRST, SECOND = date(2024, 1, 1), date(2025, 6, 1)


def synthetic_tables(instances: int = 100, benchmarks: int = 5, seed: int = 7, *, text: dict | None = None,
                     with_history: bool = True) -> dict[str, pl.DataFrame | dict]:
    """Marts like pipelines/defs/report/documents.py reads them, plus "settings" and "dates" dicts.

    `text` overrides free-text fields (title, comparison_title, description, note, source,
    system, instance_prefix) so tests can plant hostile strings where input files would.
    """
    text = text or {}
    rnd = random.Random(seed)
    benches = BENCHMARKS[:benchmarks]
    per = max(2, instances // max(1, benchmarks))
    comparisons, instance_rows, mappings, scores, prices, systems = [], [], [], [], [], []
    for b_no, bench in enumerate(benches):
        cid = f"cmp-{bench}"
        base_minutes = rnd.uniform(15, 180)
        for pos in range(per):
            provider, region = PROVIDERS[(pos + b_no) % len(PROVIDERS)]
            accel, slow = ACCELERATORS[(pos * 7 + b_no) % len(ACCELERATORS)]
            itype = f"{text.get('instance_prefix', '')}{provider[0]}{b_no}x{pos:04d}.{8 * (1 + pos % 4)}xlarge"
            system = f"{text.get('system', 'sys')}_{bench}_{pos:04d}"
            comparisons.append({
                "comparison": cid, "comparison_title": text.get("comparison_title", f"{per} instances on {bench}"),
                "description": text.get("description", f"Synthetic comparison of {per} instances."),
                "position": pos, "provider": provider, "region": region, "instance_type": itype,
                "benchmark": bench, "benchmark_position": 0, "is_baseline": pos == 0,
            })
            instance_rows.append({"provider": provider, "instance_type": itype, "accelerator": accel,
                                  "accelerator_count": 8})
            measured = pos % 11 != 5  # every eleventh instance has no result: "no result", never 0
            mappings.append({"provider": provider, "instance_type": itype, "benchmark": bench,
                             "system": system if measured else None,
                             "note": text.get("note", "synthetic: same accelerators")})
            if measured:
                minutes = base_minutes * slow * rnd.uniform(0.7, 1.4)
                runs = 5 + pos % 3
                scores.append({"system": system, "benchmark": bench, "round": "v4.0", "submitter": "Synthetic",
                               "time_to_train_minutes": minutes, "runs": runs, "dropped_runs": 2,
                               "samples_per_second": rnd.uniform(1e3, 3e4), "origin": "synthetic",
                               "file": "results/synthetic.csv", "line": str(len(scores) + 2)})
                systems.append({"system": system, "system_name": system, "submitter": "Synthetic", "division": "closed",
                                "status": "available", "number_of_nodes": 1, "accelerators_per_node": 8,
                                "accelerators_total": 8, "accelerator_model_name": accel,
                                "accelerator_memory_capacity": "40 GB", "host_processor_model_name": "Synthetic CPU",
                                "host_processors_per_node": 2, "host_memory_capacity": "1 TB",
                                "framework": "PyTorch", "software": "cuda 12", "operating_system": "Linux",
                                "file": f"systems/{system}.json"})
            price = round(rnd.uniform(4, 40) / slow * 2, 4)
            source = text.get("source", f"{provider} on-demand list price")
            prices.append({"provider": provider, "region": region, "instance_type": itype, "usd_per_hour": price,
                           "currency": "USD", "as_of": FIRST, "source": source, "file": "prices/first.csv",
                           "line": str(len(prices) + 2)})
            if with_history and pos % 5 == 1:
                prices.append({"provider": provider, "region": region, "instance_type": itype,
                               "usd_per_hour": round(price * rnd.uniform(0.6, 1.1), 4), "currency": "USD",
                               "as_of": SECOND, "source": source, "file": "prices/second.csv",
                               "line": str(len(prices) + 2)})
    stg_comparisons = pl.DataFrame(comparisons, schema_overrides={"position": pl.Int32, "benchmark_position": pl.Int32})
    stg_instances = pl.DataFrame(instance_rows, schema_overrides={"accelerator_count": pl.Int32}).unique(maintain_order=True)
    stg_mappings = pl.DataFrame(mappings, schema_overrides={"system": pl.Utf8})
    time_to_train = pl.DataFrame(scores, schema_overrides={"runs": pl.Int32, "dropped_runs": pl.Int32})
    stg_prices = pl.DataFrame(prices, schema_overrides={"as_of": pl.Date})
    throughput = pl.DataFrame(schema={"system": pl.Utf8, "benchmark": pl.Utf8, "samples_per_second": pl.Float64})
    price_date = SECOND if with_history else FIRST
    previous = FIRST if with_history else None

    def cost_at(on: date | None) -> pl.DataFrame:
        in_force = prices_in_force(stg_prices, on) if on else stg_prices.clear()
        return cost_to_train(assemble_inputs(stg_comparisons, stg_instances, stg_mappings, time_to_train, in_force, throughput))

    cost = cost_at(price_date)
    return {
        "cheapest_offers": cheapest_offers(cost),
        "cost_to_train": cost.join(stg_comparisons.select("comparison", "description").unique("comparison"),
                                   on="comparison", how="left"),
        "cost_changes": cost_changes(cost, cost_at(previous)),
        "price_changes": price_changes(stg_prices, price_date, previous),
        "price_history": stg_prices.drop("currency"),
        "time_to_train": time_to_train,
        "stg_systems": pl.DataFrame(systems),
        "input_files": pl.DataFrame([
            {"kind": "prices", "file": "prices/first.csv", "rows": len(prices), "sha256": "0" * 64, "bytes": 1000},
            {"kind": "results", "file": "results/synthetic.csv", "rows": len(scores), "sha256": "1" * 64, "bytes": 2000},
        ]),
        "settings": ReportSettings(title=text.get("title", "Synthetic cost-to-train report"), subtitle="Synthetic data",
                                   author="render benchmark", benchmarks=tuple(benches)),
        "dates": {"price_date": price_date, "previous_price_date": previous, "first_price_date": FIRST},
    }


def synthetic_context(instances: int = 100, benchmarks: int = 5, seed: int = 7, *, text: dict | None = None,
                      generated_on: date = date(2025, 6, 2), with_history: bool = True) -> dict:
    """The report context of `synthetic_tables`, built with pipelines.publish.context.build_context."""
    from pipelines.publish.context import build_context

    t = synthetic_tables(instances, benchmarks, seed, text=text, with_history=with_history)
    return build_context(
        settings=t["settings"], dates=t["dates"], cost=t["cost_to_train"], cost_changes=t["cost_changes"],
        price_changes=t["price_changes"], price_history=t["price_history"], systems=t["stg_systems"],
        time_to_train=t["time_to_train"], input_files=t["input_files"], generated_on=generated_on,
        offers=t["cheapest_offers"],
    )
