"""The instances.csv frame as the price readers need it.

Provider price files list thousands of instance types; only the ones in the project's own
instance table are kept, and GCP prices are composed from that table's vCPU, memory and GPU
counts (a price file's counts are not trusted, see reference/README.md).
"""

from __future__ import annotations

import polars as pl

from pipelines.domain.errors import InputError

INSTANCE_COLUMNS = (
    "provider", "instance_type", "accelerator", "accelerator_count",
    "accelerator_memory_gb", "vcpus", "memory_gib",
)


def check_instances(instances: pl.DataFrame) -> None:
    missing = [c for c in INSTANCE_COLUMNS if c not in instances.columns]
    if missing:
        raise InputError("instances.csv", None, f"instance table lacks column(s) {', '.join(missing)}")


def instance_types(instances: pl.DataFrame, provider: str) -> list[str]:
    """The instance types of one provider, sorted, for filtering a provider's price file."""
    return sorted(
        instances.filter(pl.col("provider") == provider)["instance_type"].cast(pl.Utf8).unique().to_list()
    )
