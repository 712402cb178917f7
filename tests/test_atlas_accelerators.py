"""The accelerator catalog (raw/accelerators.csv), and the one instance catalog (raw/instances.csv)
and price book (raw/prices/) as the atlas needs them."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from pipelines.domain.errors import InputError
from pipelines.ingest.accelerators import memory_gb, normalize, read_catalog, simplify
from pipelines.ingest.catalog_instances import cloud_model, read_aliases, resolve
from pipelines.ingest.prices import read_price_folder
from pipelines.ingest.prices.gcp import gpu_sku_name
from pipelines.ingest.prices.skypilot import read_catalog_folder
from pipelines.ingest.tables import check_catalog_links, read_instances
from tests.atlas_runner import SAMPLE

RAW = Path(__file__).resolve().parents[1] / "raw"


@pytest.fixture(scope="module")
def catalog():
    return read_catalog(RAW / "accelerators.csv")


# Every distinct (name, memory) in the shared sample, with the model and the cloud model by hand.
SAMPLE_NAMES = {
    ("NVIDIA V100", "TODO"): ("V100 (memory not stated)", "V100-SXM2-16GB"),
    ("NVIDIA V100-SXM2-16GB (300W)", "16 GB"): ("V100-SXM2-16GB", "V100-SXM2-16GB"),
    ("NVIDIA A100-SXM4-80GB (400W)", "80 GB"): ("A100-SXM-80GB", "A100-SXM-80GB"),
    ("Habana Gaudi", "32 GB"): ("Gaudi (HL-205)", "Gaudi-HL-205"),
}


@pytest.mark.skipif(not SAMPLE.is_dir(), reason=f"MLPerf sample not found at {SAMPLE}")
def test_every_accelerator_name_in_the_sample_is_normalized(catalog):
    seen = {}
    for path in sorted(SAMPLE.glob("*/*/systems/*.json")):
        desc = json.loads(path.read_text(encoding="utf-8"))
        key = (desc["accelerator_model_name"], desc["accelerator_memory_capacity"])
        found = normalize(catalog, *key, system=path.stem)
        seen[key] = (found.model, found.cloud_model)
    assert seen == SAMPLE_NAMES


# Names as they appear in the published systems JSON of v0.7 ... v5.1 (spelling kept); a cloud model where
# raw/instances.csv has an instance with that accelerator (Azure NC A100 v4, NCads H100 v5, ND MI300X v5, ND GB200 v6).
@pytest.mark.parametrize("name, memory, system, model, cloud", [
    ("NVIDIA A100-SXM-80GB CTS", "80 GB", "x", "A100-SXM-80GB", "A100-SXM-80GB"),
    ("A100-SXM4-40GB", "40 GB", "x", "A100-SXM-40GB", "A100-SXM-40GB"),
    ("NVIDIA A100-SXM4-80GB (500W)", "80G", "x", "A100-SXM-80GB (500W)", "A100-SXM-80GB"),
    ("NVIDIA A100 - PCIe - 80 GB", "80 GB", "x", "A100-PCIe-80GB", "A100-PCIe-80GB"),
    ("NVIDIA A100-PCIE-80GB (300W)", "40 GB", "x", "A100-PCIe-80GB", "A100-PCIe-80GB"),  # the name wins over a wrong field
    ("NVIDIA A100", "40G", "x", "A100-40GB", "A100-SXM-40GB"),
    ("NVIDIA H100-SXM5-80GB", "81559 MiB", "x", "H100-SXM-80GB", "H100-SXM-80GB"),
    ("NVIDIA H100 80GB HBM3", "81559 MiB", "x", "H100-SXM-80GB", "H100-SXM-80GB"),
    ("H100 NVL Tensor Core GPU (PCIe)", "94 GB", "x", "H100-NVL-94GB", "H100-NVL-94GB"),
    ("NVIDIA H100-PCIe-80GB", "80 GB", "x", "H100-PCIe-80GB", "H100-PCIe-80GB"),  # sold by GPU clouds
    ("NVIDIA H200-SXM5-141GB", "143771 MiB", "x", "H200-SXM-141GB", "H200-SXM-141GB"),
    ("NVIDIA H200-NVL-141GB", "141 GB", "x", "H200-NVL-141GB", "H200-NVL-141GB"),  # no cloud sells it (yet)
    ("NVIDIA Blackwell GPU (B200-SXM-180GB)", "183359 MiB", "x", "B200-SXM-180GB", "B200-SXM-180GB"),
    ("NVIDIA Blackwell GPU (GB200)", "189471 MiB", "x", "GB200", "GB200"),
    ("Nvidia Tesla V100", "32GB", "x", "V100-32GB", "V100-SXM2-32GB"),
    ("NVIDIA V100-SXM3-32GB (450W)", "32 GB", "x", "V100-SXM3-32GB", None),
    ("Habana Gaudi HL-205", "32 GB", "x", "Gaudi (HL-205)", "Gaudi-HL-205"),
    ("Habana Gaudi2", "96 GB", "x", "Gaudi2", None),
    ("Intel(R) Gaudi(R) 2 AI Accelerator", "96 GB", "x", "Gaudi2", None),
    ("TPU v3", "32 GiB", "tpu-v3-8192-JAX", "TPU v3", "TPU-v3"),
    ("TPU", "32GB", "tpu-v4-4096-TF", "TPU v4", "TPU-v4"),
    ("TPU", "TODO", "tpu-v3-32-TF2.0", "TPU v3", "TPU-v3"),
    ("TPU-v5p", "95GB", "cloud-tpu-v5p-1024-maxtext", "TPU v5p", "TPU-v5p"),
    ("TPU-trillium", "32GB", "cloud-tpu-trillium-256-maxdiffusion", "TPU v6e (Trillium)", "TPU-v6e"),
    ("AMD Instinct MI300X 192GB HBM3", "192 GB", "x", "MI300X", "MI300X"),
    ("N/A", "N/A", "cpu_only", None, None),
])
def test_published_names(catalog, name, memory, system, model, cloud):
    found = normalize(catalog, name, memory, system)
    assert (found.model, found.cloud_model) == (model, cloud)


def test_every_cloud_model_has_an_instance_and_every_instance_a_price(catalog):
    instances = read_instances(RAW / "instances.csv")
    clouds = {row.cloud_model for row in catalog if row.cloud_model}
    check_catalog_links(instances, RAW / "instances.csv", sorted(clouds))
    # a cloud model is sold by a hand-typed instance or by an offer of the GPU clouds' catalogs
    offers = resolve(read_catalog_folder(RAW / "prices").offers, read_aliases(RAW / "accelerator_aliases.csv", sorted(clouds)))
    catalog_only = clouds - set(instances["accelerator_model"])
    # but the H200 NVL card: a cloud model so that a catalog's H200 NVL is never read as the SXM part (the alias
    # table's bare-H200 row); no catalog sells it in December 2026
    assert catalog_only - set(offers["cloud_model"].drop_nulls()) == {"H200-NVL-141GB"}
    assert {"GB300", "B300-SXM-270GB", "MI355X", "L40S"} <= catalog_only  # what only the GPU clouds sell
    prices = read_price_folder(RAW / "prices", instances)
    assert set(instances["instance_type"]) == set(prices["instance_type"])
    # reference-table and price-file figures are exact; a figure not checked against a price file says so
    # (on demand: the spot and commitment snapshots name their own sources, raw/SOURCES.md)
    prices = prices.filter(pl.col("pricing_model") == "on_demand")
    exact = prices.filter(pl.col("certainty") == "exact")
    # p5: 98.32 (2024-01-01), 55.04 after the June 2025 cut, confirmed by AWS's 2026-07-20 file
    assert exact.filter(pl.col("instance_type") == "p5.48xlarge")["usd_per_hour"].to_list() == [98.32, 55.04, 55.04]
    approximate = prices.filter(pl.col("certainty") == "approximate")
    assert sorted(approximate["instance_type"]) == ["Standard_ND96isr_H200_v5", "a3-ultragpu-8g"]
    assert approximate["source"].str.contains("not checked").all()
    # Cloud TPUs are sold per chip and have no host of their own
    chips = instances.filter(pl.col("billing") == "chip")
    assert set(chips["accelerator_count"]) == {1} and chips["vcpus"].null_count() == chips.height


# One part as a systems JSON and a GPU cloud's catalog write it (real names of both): the accelerator catalog, the
# alias table and GCP's SKU names read each through one simplification (accelerators.simplify).
@pytest.mark.parametrize("submitted, listed, memory, form, cloud, gcp", [
    ("NVIDIA H100 80GB HBM3", "NVIDIA-H100-80GB-HBM3", 80, None, "H100-SXM-80GB", "H100 80GB"),
    ("NVIDIA H200-SXM5-141GB", "H200-SXM", 141, "SXM", "H200-SXM-141GB", "H200"),
    ("NVIDIA A100-SXM4-80GB (400W)", "A100-80GB-SXM", 80, "SXM", "A100-SXM-80GB", "A100 80GB"),
    ("NVIDIA Blackwell GPU (B200-SXM-180GB)", "B200", 180, None, "B200-SXM-180GB", "B200"),
    ("NVIDIA Blackwell GPU (GB200)", "GB200", 186, None, "GB200", None),
    ("AMD Instinct MI300X 192GB HBM3", "MI300X", 192, None, "MI300X", None),
])
def test_every_name_table_reads_a_name_one_way(catalog, submitted, listed, memory, form, cloud, gcp):
    aliases = read_aliases(RAW / "accelerator_aliases.csv", sorted({row.cloud_model for row in catalog if row.cloud_model}))
    assert normalize(catalog, submitted, f"{memory} GB").cloud_model == cloud
    assert cloud_model(aliases, [listed], memory, form) == cloud
    assert gpu_sku_name(submitted, memory) == gcp
    assert simplify("NVIDIA-H100-80GB-HBM3") == simplify("NVIDIA H100 80GB HBM3") == "nvidia h100 80gb hbm3"


def test_simplify_and_memory():
    assert simplify("Intel(R) Gaudi(R) 2 AI Accelerator") == "intel gaudi 2 ai accelerator"
    assert simplify("NVIDIA A100-SXM4-80GB (400W)") == "nvidia a100 sxm4 80gb 400w"
    assert memory_gb("81559 MiB") == pytest.approx(79.647, abs=1e-3)
    assert [memory_gb(t) for t in ["80 GB", "80G", "80GiB", "2x 24 GB", "TODO", "", None]] == [80, 80, 80, 24, None, None, None]


HEADER = "provider,instance_type,accelerator,accelerator_count,accelerator_memory_gb,vcpus,memory_gib,notes," \
         "accelerator_model,billing\n"


def test_bad_catalog_and_instances_are_input_errors(tmp_path, catalog):
    bad = tmp_path / "accelerators.csv"
    bad.write_text("model,vendor,name_regex,system_regex,memory_gb,cloud_model,assumption\nX,Y,a100 (,,,,\n")
    with pytest.raises(InputError, match="invalid regular expression") as error:
        read_catalog(bad)
    assert error.value.where == "2 column name_regex"
    clouds = sorted({row.cloud_model for row in catalog if row.cloud_model})
    instances = tmp_path / "instances.csv"
    instances.write_text(HEADER + "aws,p9.huge,NVIDIA Z9000,8,80,96,1152,,Z9000,instance\n")
    with pytest.raises(InputError, match="'Z9000' is no cloud_model of the accelerator catalog") as error:
        check_catalog_links(read_instances(instances), instances, clouds)
    assert error.value.where == "2 column accelerator_model"
    instances.write_text(HEADER + "aws,p4d.24xlarge,NVIDIA A100-SXM4-40GB,8,40,96,1152,,A100-SXM-40GB,per-minute\n")
    with pytest.raises(InputError, match="billing"):
        read_instances(instances)
    instances.write_text(HEADER + "aws,p4d.24xlarge,NVIDIA A100-SXM4-40GB,8,40,,1152,,A100-SXM-40GB,instance\n")
    with pytest.raises(InputError, match="an instance billed per instance needs it") as error:
        read_instances(instances)
    assert error.value.where == "2 column vcpus"
    instances.write_text(HEADER + "gcp,tpu-v4,Google Cloud TPU v4,1,32,,,,TPU-v4,chip\n")
    assert read_instances(instances)["vcpus"].to_list() == [None]
