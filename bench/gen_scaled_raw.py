"""Write a valid RAW_DIR about ``factor`` times the bundled raw/, in exactly its formats.

The bundled data set has 10 instances, 24 mappings, 13 prices in 3 snapshots, 8 result rows in 3
result-summarizer CSVs, 8 systems JSON, 1 throughput row and 2 comparisons (29 cost rows). For a
factor f this writes (f = 100 in `make bench`):

    instances.csv        10 f instances (aws, gcp, azure in turn; 5 accelerator kinds)
    mappings.csv         30 f rows: every instance x resnet, bert, dlrm; one in ten has no system
    systems/*.json       8 f systems JSON, written like MLPerf's (every value a string)
    results/*.csv        result-summarizer CSVs per round (v0.7, v1.0, v1.1), at most 30 rows a
                         file, about 9.6 f rows: every system scored on all three benchmarks in one
                         round, one in five also in an older round (the newest must win)
    prices/*.csv         normalized snapshots on_demand_<date>.csv: 3 + f // 10 snapshot dates, 3
                         regions per provider; about 16 f rows (every instance priced in the
                         report's region on the first date, one in four in another region, a third
                         of the prices changing across the later snapshots)
    throughput/*.csv     f measured-throughput rows
    report.toml          ``comparisons`` comparisons (default 2 f) of 5 instances each

Every figure is computed from the row's index (no randomness): the same arguments give the same
bytes. The output passes the pipeline's readers and blocking checks.

    python -m bench.gen_scaled_raw OUT_DIR --factor 100 [--comparisons 2]
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import shutil
from datetime import date, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

BENCHMARKS = ("resnet", "bert", "dlrm")
REPORT_REGIONS = {"aws": "us-east-1", "gcp": "us-central1", "azure": "eastus"}
OTHER_REGIONS = {"aws": ["us-west-2", "eu-west-1"], "gcp": ["europe-west4", "asia-east1"],
                 "azure": ["westeurope", "westus2"]}
PROVIDERS = ("aws", "gcp", "azure")
ACCELERATORS = [  # (instances.csv accelerator, memory GB, systems JSON model, base USD/h, minutes scale,
    #                  accelerator catalog cloud model)
    ("NVIDIA A100-SXM4-40GB", 40, "NVIDIA A100-SXM4-80GB (400W)", 27.0, 1.0, "A100-SXM-40GB"),
    ("NVIDIA V100-SXM2-16GB", 16, "NVIDIA V100-SXM2-16GB (300W)", 24.0, 2.6, "V100-SXM2-16GB"),
    ("NVIDIA V100-SXM2-32GB", 32, "NVIDIA V100-SXM2-32GB (300W)", 31.0, 2.4, "V100-SXM2-32GB"),
    ("Habana Gaudi HL-205", 32, "Habana Gaudi", 13.1, 2.2, "Gaudi-HL-205"),
    ("NVIDIA H100-SXM5-80GB", 80, "NVIDIA H100-SXM5-80GB (700W)", 55.0, 0.45, "H100-SXM-80GB"),
]
BASE_MINUTES = {"resnet": 28.8, "bert": 21.7, "dlrm": 1.96}
ROUNDS = {  # round -> benchmark columns of that round's summarizer CSV (as in raw/results)
    "v0.7": ["bert", "dlrm", "gnmt", "maskrcnn", "minigo", "resnet", "ssd", "transformer"],
    "v1.0": ["bert", "dlrm", "maskrcnn", "minigo", "resnet", "ssd", "rnnt", "unet3d"],
    "v1.1": ["bert", "dlrm", "maskrcnn", "minigo", "resnet", "ssd", "rnnt", "unet3d"],
}
LEADING = ["division", "availability", "submitter", "system", "number_of_nodes", "host_processor_model_name",
           "host_processors_count", "accelerator_model_name", "accelerators_count", "framework", "notes",
           "private_id"]
SUBMITTERS = ["NVIDIA", "Google", "HabanaLabs", "Dell", "Supermicro"]
FIRST_DATE = date(2022, 2, 8)
ROWS_PER_RESULT_FILE = 30


def instance_type(i: int) -> tuple[str, str]:
    provider = PROVIDERS[i % 3]
    name = {"aws": f"bx{i:05d}.24xlarge", "gcp": f"bx-highgpu-8g-{i:05d}", "azure": f"Standard_BX{i:05d}_v4"}[provider]
    return provider, name


def system_id(j: int) -> str:
    return f"benchsys_{j:05d}_ngc21.05"


def _write_csv(path: Path, header: list[str], rows: list[list]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


def _price(i: int, change: int = 0) -> float:
    base = ACCELERATORS[i % len(ACCELERATORS)][3] * (1 + (i % 7) * 0.013)
    return round(base * (1 - 0.04 * change), 6)


def generate(out: Path, factor: int = 100, comparisons: int | None = None) -> dict:
    """Write the data set under ``out`` (created; must not hold a previous one); counts written."""
    out = Path(out)
    if factor < 1:
        raise ValueError("factor must be at least 1")
    n_inst, n_sys = 10 * factor, 8 * factor
    n_comp = comparisons if comparisons is not None else 2 * factor
    if not 1 <= n_comp * 5 <= n_inst * 5:
        raise ValueError("comparisons must be between 1 and 2 x factor")
    snapshots = [FIRST_DATE + timedelta(days=61 * s) for s in range(3 + factor // 10)]
    counts: dict[str, int] = {}

    # instances.csv
    rows = []
    for i in range(n_inst):
        provider, itype = instance_type(i)
        accel, mem, *_, cloud_model = ACCELERATORS[i % len(ACCELERATORS)]
        rows.append([provider, itype, accel, 8, mem, 96 if i % 2 else 64, 1152 if i % 2 else 768, "", cloud_model,
                     "instance", "", ""])
    _write_csv(out / "instances.csv", ["provider", "instance_type", "accelerator", "accelerator_count",
                                       "accelerator_memory_gb", "vcpus", "memory_gib", "notes", "accelerator_model",
                                       "billing", "fabric", "fabric_gbps_per_accelerator"], rows)
    shutil.copyfile(REPO / "raw" / "accelerators.csv", out / "accelerators.csv")  # the project's catalog
    counts["instances"] = len(rows)

    # systems/*.json: the accelerator of system j matches instance j's (mappings pair them so)
    for j in range(n_sys):
        accel = ACCELERATORS[j % len(ACCELERATORS)]
        doc = {
            "submitter": SUBMITTERS[j % len(SUBMITTERS)], "division": "closed", "status": "onprem",
            "system_name": system_id(j), "number_of_nodes": "1", "host_processors_per_node": "2",
            "host_processor_model_name": "AMD EPYC 7742", "host_processor_core_count": "64",
            "host_memory_capacity": "2 TB", "accelerators_per_node": "8", "accelerator_model_name": accel[2],
            "accelerator_memory_capacity": f"{accel[1]} GB", "accelerator_interconnect": "NVLINK",
            "framework": "MXNet NVIDIA Release 21.05",
            "other_software_stack": {"cuda_version": "11.3.0.016", "nccl_version": "2.9.8"},
            "operating_system": "Ubuntu 20.04.2 LTS", "source": "synthetic benchmark system (bench/gen_scaled_raw.py)",
        }
        path = out / "systems" / f"{system_id(j)}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    counts["systems"] = n_sys

    # results/*.csv: system j in round j % 3, and one in five also in the round before
    per_round: dict[str, list[list]] = {r: [] for r in ROUNDS}
    names = list(ROUNDS)
    for j in range(n_sys):
        own = names[j % 3]
        rounds = [own] + ([names[names.index(own) - 1]] if j % 5 == 0 and names.index(own) > 0 else [])
        accel = ACCELERATORS[j % len(ACCELERATORS)]
        for k, rnd in enumerate(rounds):
            slower = 1.0 + 0.1 * k  # the older round is slower: the newest round must win, not the fastest
            scores = {b: round(BASE_MINUTES[b] * accel[4] * (1 + (j % 11) * 0.01) * slower, 6) for b in BENCHMARKS}
            submitter = SUBMITTERS[j % len(SUBMITTERS)]
            lead = ["closed", "onprem", submitter, system_id(j), 1, "AMD EPYC 7742", 2, accel[2], 8,
                    "MXNet NVIDIA Release 21.05", "", ""]
            url = f"https://github.com/mlcommons/training_results_{rnd}/blob/main/{submitter}/systems/{system_id(j)}.json"
            code = f"https://github.com/mlcommons/training_results_{rnd}/blob/master/{submitter}/benchmarks"
            per_round[rnd].append(lead + [scores.get(b, "") for b in ROUNDS[rnd]] + [url, code])
    result_rows = 0
    for rnd, rows in per_round.items():
        for part in range(math.ceil(len(rows) / ROWS_PER_RESULT_FILE)):
            chunk = rows[part * ROWS_PER_RESULT_FILE:(part + 1) * ROWS_PER_RESULT_FILE]
            _write_csv(out / "results" / f"mlperf_training_{rnd}_summary_{part:03d}.csv",
                       LEADING + ROUNDS[rnd] + ["details_url", "code_url"], chunk)
            result_rows += len(chunk)
    counts["result_rows"] = result_rows

    # mappings.csv: instance i -> system i % n_sys (same accelerator kind); one in ten: no system
    rows = []
    for i in range(n_inst):
        provider, itype = instance_type(i)
        for b, bench in enumerate(BENCHMARKS):
            if (i + b) % 10 == 9:
                rows.append([provider, itype, bench, "", "no measured result for this configuration"])
            else:
                rows.append([provider, itype, bench, system_id(i % n_sys), "same accelerators (synthetic)"])
    _write_csv(out / "mappings.csv", ["provider", "instance_type", "benchmark", "system", "note"], rows)
    counts["mappings"] = len(rows)

    # prices/on_demand_<date>.csv
    price_rows = 0
    header = ["provider", "region", "instance_type", "usd_per_hour", "as_of", "source"]
    for s, day in enumerate(snapshots):
        rows = []
        for i in range(n_inst):
            provider, itype = instance_type(i)
            if s == 0:
                rows.append([provider, REPORT_REGIONS[provider], itype, _price(i), day.isoformat(),
                             "synthetic on-demand list price"])
                if i % 4 == 0:
                    rows.append([provider, OTHER_REGIONS[provider][i % 2], itype, round(_price(i) * 1.08, 6),
                                 day.isoformat(), "synthetic on-demand list price"])
            elif i % 3 == 0 and (i // 3) % (len(snapshots) - 1) == s - 1:
                rows.append([provider, REPORT_REGIONS[provider], itype, _price(i, change=s), day.isoformat(),
                             f"synthetic price change {s}"])
        _write_csv(out / "prices" / f"on_demand_{day.isoformat()}.csv", header, rows)
        price_rows += len(rows)
    counts["prices"] = price_rows
    counts["snapshots"] = len(snapshots)

    # throughput/*.csv
    rows = [[system_id(j), "resnet", round(26675.98 / ACCELERATORS[j % 5][4], 2), "MXNet NVIDIA Release 21.05",
             "mixed (fp16)", 3264, "synthetic measured throughput", "2021-05-15"] for j in range(factor)]
    _write_csv(out / "throughput" / "measured_throughput.csv",
               ["system", "benchmark", "samples_per_second", "framework", "precision", "global_batch_size",
                "source", "measured_on"], rows)
    counts["throughput"] = len(rows)

    # report.toml
    lines = [
        "# Synthetic report for the scale benchmark (bench/gen_scaled_raw.py).",
        f'title = "Cost to train, synthetic data set x{factor}"',
        'subtitle = "Generated inputs for the scale benchmark"',
        'author = "bench/gen_scaled_raw.py"',
        f"benchmarks = [{', '.join(json.dumps(b) for b in BENCHMARKS)}]",
        "",
        "[regions]",
        *[f'{p} = "{r}"' for p, r in REPORT_REGIONS.items()],
    ]
    for c in range(n_comp):
        members = [instance_type((5 * c + k) % n_inst) for k in range(5)]
        keys = [f"{p}/{t}" for p, t in members]
        lines += [
            "",
            "[[comparisons]]",
            f'id = "synthetic-{c:05d}"',
            f'title = "Synthetic comparison {c}"',
            f'description = "Five synthetic instances; the first is the baseline."',
            f'baseline = "{keys[0]}"',
            f"instances = [{', '.join(json.dumps(k) for k in keys)}]",
        ]
        if c % 4 == 3:
            lines.append('benchmarks = ["resnet", "bert"]')
    (out / "report.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    counts["comparisons"] = n_comp
    return counts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--factor", type=int, default=100)
    parser.add_argument("--comparisons", type=int, default=None, help="default: 2 x factor")
    args = parser.parse_args(argv)
    print(json.dumps(generate(args.out, args.factor, args.comparisons)))


if __name__ == "__main__":
    main()
