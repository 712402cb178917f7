"""Price files in each provider's exact format, with every decoy row kind, for the price tests.

Figures come from /work/shared/reference/prices.csv (copied here so the tests stand alone):
AWS and Azure list prices of 2022-02-08, 2024-01-01 and 2025-06-01, and GCP unit prices whose
compositions give a2-highgpu-8g = 29.38708 and n1-highmem-96+8xV100 = 25.518544.
"""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl

INSTANCES_CSV = """\
provider,instance_type,accelerator,accelerator_count,accelerator_memory_gb,vcpus,memory_gib,notes
aws,p4d.24xlarge,NVIDIA A100-SXM4-40GB,8,40,96,1152,
aws,p3dn.24xlarge,NVIDIA V100-SXM2-32GB,8,32,96,768,
aws,p3.16xlarge,NVIDIA V100-SXM2-16GB,8,16,64,488,
aws,dl1.24xlarge,Habana Gaudi HL-205,8,32,96,768,
aws,p5.48xlarge,NVIDIA H100-SXM5-80GB,8,80,192,2048,
gcp,a2-highgpu-8g,NVIDIA A100-SXM4-40GB,8,40,96,680,GCP bills the 8 A100s separately from the a2 host
gcp,n1-highmem-96+8xV100,NVIDIA V100-SXM2-16GB,8,16,96,624,n1-highmem-96 host with 8 attached V100s
azure,Standard_ND96asr_v4,NVIDIA A100-SXM4-40GB,8,40,96,900,
azure,Standard_ND40rs_v2,NVIDIA V100-SXM2-32GB,8,32,40,672,
azure,Standard_ND96isr_H100_v5,NVIDIA H100-SXM5-80GB,8,80,96,1900,
"""

REFERENCE_PRICES_CSV = """\
provider,region,instance_type,usd_per_hour,as_of,source
aws,us-east-1,p4d.24xlarge,32.7726,2022-02-08,AWS EC2 on-demand list price (Linux; shared tenancy)
aws,us-east-1,p3dn.24xlarge,31.212,2022-02-08,AWS EC2 on-demand list price (Linux; shared tenancy)
aws,us-east-1,p3.16xlarge,24.48,2022-02-08,AWS EC2 on-demand list price (Linux; shared tenancy)
aws,us-east-1,dl1.24xlarge,13.10904,2022-02-08,AWS EC2 on-demand list price (Linux; shared tenancy)
gcp,us-central1,a2-highgpu-8g,29.38708,2022-02-08,GCP on-demand: a2-highgpu-8g host 5.91582 + 8 x A100-40GB at 2.933908
gcp,us-central1,n1-highmem-96+8xV100,25.518544,2022-02-08,GCP on-demand: n1-highmem-96 host (96 vCPU x 0.031611 + 624 GiB x 0.004237) + 8 x V100 at 2.48
azure,eastus,Standard_ND96asr_v4,27.197,2022-02-08,Azure retail price (Linux; Consumption)
azure,eastus,Standard_ND40rs_v2,22.032,2022-02-08,Azure retail price (Linux; Consumption)
aws,us-east-1,p5.48xlarge,98.32,2024-01-01,AWS EC2 on-demand list price before the June 2025 P4/P5 price cut
azure,eastus,Standard_ND96isr_H100_v5,98.32,2024-01-01,Azure retail price (Linux; Consumption)
aws,us-east-1,p4d.24xlarge,21.957642,2025-06-01,AWS EC2 on-demand list price after the June 2025 P4/P5 price cut
aws,us-east-1,p5.48xlarge,55.04,2025-06-01,AWS EC2 on-demand list price after the June 2025 P4/P5 price cut
"""


def instances() -> pl.DataFrame:
    return pl.read_csv(io.StringIO(INSTANCES_CSV))


def reference_prices() -> pl.DataFrame:
    """reference/prices.csv as (provider, region, instance_type, as_of) -> usd_per_hour rows."""
    return pl.read_csv(io.StringIO(REFERENCE_PRICES_CSV), try_parse_dates=True)


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        content = content.encode()
    path.write_bytes(content)
    return path


def write_reference_snapshots(folder: Path) -> list[Path]:
    """reference/prices.csv split into one normalized CSV per snapshot date, as raw/prices holds."""
    lines = REFERENCE_PRICES_CSV.splitlines()
    header, rows = lines[0], lines[1:]
    paths = []
    for day in sorted({r.split(",")[4] for r in rows}):
        body = "\n".join([header, *(r for r in rows if r.split(",")[4] == day)]) + "\n"
        paths.append(write(folder / f"on_demand_{day}.csv", body))
    return paths
