"""The SkyPilot catalog reader on real rows cut from the catalog (tests/data/skypilot/README.md says
from which file and commit); every expected value below is read off those rows by hand."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import polars as pl
import pytest

from pipelines.domain.errors import InputError
from pipelines.ingest.catalog_instances import read_aliases, resolve, unknown_accelerators, with_catalog_instances
from pipelines.ingest.prices import read_price_folder
from pipelines.ingest.prices.skypilot import read_catalog, read_catalog_folder, spot_figure
from pipelines.ingest.tables import read_instances

DATA = Path(__file__).resolve().parent / "data" / "skypilot"
RAW = Path(__file__).resolve().parents[1] / "raw"
DAY = "2026-11-30"


def snapshot(tmp_path: Path, cloud: str, name: str | None = None, day: str = DAY) -> tuple[Path, str]:
    """A data file laid out as prices/skypilot_<day>/<cloud>/vms.csv; (path, path relative to prices/)."""
    rel = f"skypilot_{day}/{cloud}/vms.csv"
    path = tmp_path / "prices" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(DATA / (name or f"{cloud}_vms.csv"), path)
    return path, rel


def rows(frame: pl.DataFrame, **where) -> list[dict]:
    return frame.filter(pl.all_horizontal(pl.col(k) == v for k, v in where.items())).to_dicts()


def test_lambda_prices_as_of_the_folder_date_and_cpu_rows_are_not_offers(tmp_path):
    path, rel = snapshot(tmp_path, "lambda")
    catalog = read_catalog(path, rel)
    h100 = rows(catalog.prices, instance_type="gpu_8x_h100_sxm5")
    assert len(h100) == 1  # no SpotPrice on the row: on demand only
    row = h100[0]
    assert (row["provider"], row["region"], row["usd_per_hour"], row["as_of"], row["pricing_model"]) == \
        ("lambda", "us-east-1", 31.92, date(2026, 11, 30), "on_demand")
    assert row["source"] == "SkyPilot catalog lambda/vms.csv as of 2026-11-30" and row["line"] == "4"
    assert row["offer_kind"] == "list"
    assert catalog.skipped == {"no accelerator (CPU machine, or a host VM priced apart from its GPUs)": 1}
    assert "cpu_4x_general" not in catalog.prices["instance_type"].to_list()


def test_lambda_total_gpu_memory_is_per_gpu(tmp_path):
    # gpu_8x_v100: SizeInMiB 16384 and TotalGpuMemoryInMiB 16384 for 8 GPUs: 16 GB per GPU, not 2
    path, rel = snapshot(tmp_path, "lambda")
    offer = rows(read_catalog(path, rel).offers, instance_type="gpu_8x_v100")[0]
    assert (offer["accelerator_count"], offer["accelerator_memory_gb"]) == (8, 16.0)
    # the instance type names the form factor where the accelerator name does not
    assert rows(read_catalog(path, rel).offers, instance_type="gpu_8x_h100_sxm5")[0]["form_factor"] == "SXM"


def test_nebius_spot_and_on_demand(tmp_path):
    path, rel = snapshot(tmp_path, "nebius")
    prices = read_catalog(path, rel).prices
    got = {r["pricing_model"]: r["usd_per_hour"] for r in rows(prices, instance_type="gpu-h100-sxm_8gpu-128vcpu-1600gb")}
    assert got == {"on_demand": 23.60, "spot": 10.00}


def test_runpod_gb_in_size_in_mib_pcie_and_one_price_over_its_zones(tmp_path):
    path, rel = snapshot(tmp_path, "runpod")
    catalog = read_catalog(path, rel)
    offer = catalog.offers.row(0, named=True)
    # SizeInMiB 80 on an A100-80GB: gigabytes; GpuInfo Name 'A100 PCIe': the PCIe card
    assert (offer["accelerator_memory_gb"], offer["form_factor"], offer["gpu_name"]) == (80.0, "PCIe", "A100 PCIe")
    ca = rows(catalog.prices, region="CA")
    # three zones (CA-MTL-1..3) at 1.39 on demand: one regional price, no spread. Their SpotPrice, 1.39, is RunPod's
    # secureSpotPrice (fetch_runpod.py) and equals Price: no cheaper way to pay, so no spot row
    assert sorted((r["pricing_model"], r["usd_per_hour"], r["zone_count"]) for r in ca) == [("on_demand", 1.39, None)]
    assert [r["line"] for r in ca if r["pricing_model"] == "on_demand"] == ["3+4+5"]
    assert len(rows(catalog.prices, region="IN")) == 1
    # the 4 zone rows' spot figures (1 in IN, 3 in CA), each equal to its Price
    assert catalog.skipped == {"spot price not below the on-demand price (no spot discount: on demand only)": 4}


def test_runpod_a100_80gb_is_priced_as_the_pcie_model(tmp_path):
    path, rel = snapshot(tmp_path, "runpod")
    aliases = read_aliases(RAW / "accelerator_aliases.csv", _cloud_models())
    resolved = resolve(read_catalog(path, rel).offers, aliases)
    assert resolved["cloud_model"].to_list() == ["A100-PCIe-80GB"]  # never the SXM A100-SXM-80GB


def test_gcp_host_rows_are_not_offers_and_700_is_a_placeholder(tmp_path):
    path, rel = snapshot(tmp_path, "gcp")
    catalog = read_catalog(path, rel)
    assert catalog.skipped == {
        "no accelerator (CPU machine, or a host VM priced apart from its GPUs)": 2,  # a2-highgpu-8g host rows
        "GCP's placeholder price 700.0 (TPU zone without a price)": 1,  # asia-east1-c
    }
    tpu = {(r["region"], r["pricing_model"]): r["usd_per_hour"] for r in rows(catalog.prices, instance_type="tpu-v6e-8")}
    # southamerica-west1: Price 21.6 and spot 700.0 (placeholder): on demand only
    assert tpu == {("southamerica-west1", "on_demand"): 21.6, ("us-central1", "on_demand"): 21.6,
                   ("us-central1", "spot"): 4.35366, ("us-south1", "on_demand"): 21.6, ("us-south1", "spot"): 10.8}
    assert "a2-highgpu-8g" not in catalog.prices["instance_type"].to_list()


def test_differing_zone_spot_prices_give_median_count_min_max():
    # AWS a1.2xlarge in us-east-2: zones use2-az1 0.1056 and use2-az2 0.2029 -> median (0.1056 + 0.2029) / 2
    figure = spot_figure([0.1056, 0.2029])
    assert figure["usd_per_hour"] == pytest.approx(0.15425)
    assert (figure["zone_count"], figure["zone_min_usd_per_hour"], figure["zone_max_usd_per_hour"]) == (2, 0.1056, 0.2029)
    # us-east-1: three zones all at 0.204: one regional price
    assert spot_figure([0.204, 0.204, 0.204]) == {"usd_per_hour": 0.204, "zone_count": None, "zone_min_usd_per_hour": None,
                                                  "zone_max_usd_per_hour": None, "basis": "one price for the region"}


def test_aws_zone_rows_without_accelerator_are_not_offers(tmp_path):
    path, rel = snapshot(tmp_path, "aws", "aws_zone_spot.csv")
    catalog = read_catalog(path, rel)
    assert catalog.prices.is_empty() and sum(catalog.skipped.values()) == 5


def test_json_gpu_info_null_in_python_quotes_and_empty_price(tmp_path):
    path, rel = snapshot(tmp_path, "hyperstack")
    catalog = read_catalog(path, rel)
    assert rows(catalog.offers, instance_type="n3-H100-SXM5x8")[0]["gpu_name"] == "H100-80G-SXM5"
    assert sorted(catalog.prices["region"].to_list()) == ["CANADA-1", "US-1"]
    path, rel = snapshot(tmp_path, "verda")
    catalog = read_catalog(path, rel)
    # 8B200.240V: empty Price, spot 13.69: not sold on demand, so no offer at all
    assert catalog.skipped == {"no on-demand price (empty or zero Price: not sold)": 1}
    assert catalog.offers["instance_type"].to_list() == ["1B300.30V"]
    assert rows(catalog.offers, instance_type="1B300.30V")[0]["accelerator_memory_gb"] == pytest.approx(262.0)  # 268288 / 1024


def test_the_folder_reader_filters_to_known_instances_and_keeps_history(tmp_path):
    snapshot(tmp_path, "nebius")
    snapshot(tmp_path, "nebius", day="2026-12-01")
    instances = pl.DataFrame({"provider": ["nebius"], "instance_type": ["gpu-h100-sxm_8gpu-128vcpu-1600gb"],
                              "accelerator": ["H100"], "accelerator_count": [8], "accelerator_memory_gb": [80.0],
                              "vcpus": [128], "memory_gib": [1600.0]})
    prices = read_price_folder(tmp_path / "prices", instances)
    assert sorted((r["as_of"].isoformat(), r["pricing_model"]) for r in prices.to_dicts()) == [
        ("2026-11-30", "on_demand"), ("2026-11-30", "spot"), ("2026-12-01", "on_demand"), ("2026-12-01", "spot")]


def _cloud_models() -> list[str]:
    from pipelines.ingest.accelerators import read_catalog_table

    return [m for m in read_catalog_table(RAW / "accelerators.csv")["cloud_model"].to_list() if m]


def test_catalog_offers_become_instances_and_unknown_ones_are_listed(tmp_path):
    for cloud in ("lambda", "nebius", "hyperstack"):
        snapshot(tmp_path, cloud)
    catalog = read_catalog_folder(tmp_path / "prices")
    resolved = resolve(catalog.offers, read_aliases(RAW / "accelerator_aliases.csv", _cloud_models()))
    got = {r["instance_type"]: r["cloud_model"] for r in resolved.to_dicts()}
    assert got == {"gpu_8x_v100": None,  # form factor not stated: never guessed
                   "gpu_8x_h100_sxm5": "H100-SXM-80GB", "gpu-h100-sxm_8gpu-128vcpu-1600gb": "H100-SXM-80GB",
                   "n3-H100-SXM5x8": "H100-SXM-80GB"}
    assert unknown_accelerators(resolved).to_dicts() == [{"accelerator": "V100", "providers": "lambda", "offers": 1}]
    hand = read_instances(RAW / "instances.csv")
    instances = with_catalog_instances(hand.with_columns(file=pl.lit("instances.csv")), resolved, tmp_path)
    lam = rows(instances, provider="lambda")[0]
    assert (lam["instance_type"], lam["accelerator_count"], lam["accelerator_model"], lam["billing"], lam["origin"],
            lam["fabric"]) == ("gpu_8x_h100_sxm5", 8, "H100-SXM-80GB", "instance", "catalog", None)
    assert instances.height == hand.height + 3


def test_a_catalog_contradicting_instances_csv_is_refused(tmp_path):
    path, rel = snapshot(tmp_path, "nebius")
    offers = resolve(read_catalog(path, rel).offers, read_aliases(RAW / "accelerator_aliases.csv", _cloud_models()))
    hand = pl.DataFrame({"provider": ["nebius"], "instance_type": ["gpu-h100-sxm_8gpu-128vcpu-1600gb"],
                         "accelerator_count": [4]})
    with pytest.raises(InputError, match=r"vms\.csv:3 column AcceleratorCount: .*8 accelerators here and 4 in instances"):
        with_catalog_instances(hand, offers, tmp_path / "prices")


# ---- bad input: one line naming file, line and column ---------------------------------------------

def bad(tmp_path: Path, text: str, cloud: str = "nebius", day: str = DAY) -> tuple[Path, str]:
    rel = f"skypilot_{day}/{cloud}/vms.csv"
    path = tmp_path / "prices" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path, rel


NEBIUS_HEADER = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n"
NEBIUS_H100 = ("gpu-h100-sxm_8gpu-128vcpu-1600gb,H100,8,128,1600,{price},eu-north1,\"{info}\",10.00\n")
INFO = "{'Gpus': [{'Name': 'H100', 'Manufacturer': 'NVIDIA', 'Count': 8, 'MemoryInfo': {'SizeInMiB': 81920}}]}"


@pytest.mark.parametrize("text, where, problem", [
    ("provider,region,price\naws,us-east-1,1\n", ":1: ", "no column\\(s\\) InstanceType, AcceleratorName"),
    (NEBIUS_HEADER + NEBIUS_H100.format(price="abc", info=INFO), ":2 column Price: ", "'abc' is not a number"),
    (NEBIUS_HEADER + NEBIUS_H100.format(price="-23.60", info=INFO), ":2 column Price: ", "is negative"),
    (NEBIUS_HEADER + NEBIUS_H100.format(price="N/A", info=INFO), ":2 column Price: ", "placeholder"),
    (NEBIUS_HEADER + NEBIUS_H100.format(price="23.60", info="{'Gpus': [{'Name': 'H100'"),
     ":2 column GpuInfo: ", "not a Python or JSON literal"),
    (NEBIUS_HEADER + NEBIUS_H100.format(price="23.60", info="{'Gpus': __import__('os')}"),
     ":2 column GpuInfo: ", "not a Python or JSON literal"),
])
def test_bad_catalogs_name_file_line_and_column(tmp_path, text, where, problem):
    path, rel = bad(tmp_path, text)
    with pytest.raises(InputError, match=f"^{path}{where}.*{problem}"):
        read_catalog(path, rel)


def test_a_cloud_folder_name_that_collides_with_a_provider(tmp_path):
    path, rel = bad(tmp_path, NEBIUS_HEADER, cloud="AWS")
    with pytest.raises(InputError, match=r"AWS/vms\.csv:folder name: cloud folder 'AWS' .*provider 'aws'"):
        read_catalog(path, rel)


def test_a_folder_that_is_not_a_date(tmp_path):
    path, rel = bad(tmp_path, NEBIUS_HEADER, day="latest")
    with pytest.raises(InputError, match=r"folder name skypilot_<YYYY-MM-DD>: date 'latest' is not a date"):
        read_catalog(path, rel)


def test_a_catalog_offer_takes_the_mapping_of_the_same_accelerators():
    from pipelines.ingest.tables import with_same_accelerator_mappings

    mappings = pl.DataFrame({"provider": ["aws", "aws"], "instance_type": ["p5.48xlarge", "p5.48xlarge"],
                             "benchmark": ["bert", "rgat"], "system": ["AS-8125GS-TNHR-1", None],
                             "note": ["8x H100", "no result"], "line": [2, 3]})
    instances = pl.DataFrame({"provider": ["aws", "lambda", "lambda"],
                              "instance_type": ["p5.48xlarge", "gpu_8x_h100_sxm5", "gpu_1x_h100"],
                              "accelerator_model": ["H100-SXM-80GB"] * 3, "accelerator_count": [8, 8, 1]})
    out = with_same_accelerator_mappings(mappings, instances)
    derived = out.filter(pl.col("derived_from").is_not_null()).sort("benchmark").to_dicts()
    # the 8-GPU Lambda offer takes both rows (an empty system too: "no result" stays "no result");
    # the 1-GPU offer is another configuration and takes none
    assert [(r["provider"], r["instance_type"], r["benchmark"], r["system"]) for r in derived] == [
        ("lambda", "gpu_8x_h100_sxm5", "bert", "AS-8125GS-TNHR-1"), ("lambda", "gpu_8x_h100_sxm5", "rgat", None)]
    assert derived[0]["note"] == "same 8x H100-SXM-80GB as aws/p5.48xlarge (mappings.csv line 2): 8x H100"
    assert out.height == 4


def test_aws_gpu_spot_per_zone(tmp_path):
    path, rel = snapshot(tmp_path, "aws")
    catalog = read_catalog(path, rel)
    spot = {(r["instance_type"], r["region"]): r for r in catalog.prices.filter(pl.col("pricing_model") == "spot").to_dicts()}
    west2 = spot[("p5.48xlarge", "us-west-2")]
    # zones 12.6935, 12.9785, 12.9727, 16.1301: median (12.9727 + 12.9785) / 2 = 12.9756
    assert west2["usd_per_hour"] == pytest.approx(12.9756)
    assert (west2["zone_count"], west2["zone_min_usd_per_hour"], west2["zone_max_usd_per_hour"]) == (4, 12.6935, 16.1301)
    # us-west-1: one zone of two has spot (19.8326): that price, no spread
    assert (spot[("p5.48xlarge", "us-west-1")]["usd_per_hour"], spot[("p5.48xlarge", "us-west-1")]["zone_count"]) == (19.8326, None)
    # p5en in us-east-1: the Atlanta Local Zone (17.2074) left out: median of 18.2492 and 16.5551 = 17.40215
    east1 = spot[("p5en.48xlarge", "us-east-1")]
    assert east1["usd_per_hour"] == pytest.approx(17.40215) and east1["zone_count"] == 2
    on_demand = {(r["instance_type"], r["region"]): r["usd_per_hour"]
                 for r in catalog.prices.filter(pl.col("pricing_model") == "on_demand").to_dicts()}
    assert on_demand == {("p5.48xlarge", "us-west-1"): 68.8, ("p5.48xlarge", "us-west-2"): 55.04,
                         ("p5en.48xlarge", "us-east-1"): 63.296}
    # p5e: empty Price with spot prices (sold reserved only): no offer
    assert "p5e.48xlarge" not in catalog.offers["instance_type"].to_list()
    assert catalog.skipped == {"no on-demand price (empty or zero Price: not sold)": 2,
                               "AWS Local or Wavelength Zone (not the region's own zone)": 1}


# ---- issue 44: each catalog read right, on its real rows ---------------------------------------------------------
def test_vast_writes_all_gpus_memory_and_0_00_means_no_spot_price(tmp_path):
    path, rel = snapshot(tmp_path, "vast")
    catalog = read_catalog(path, rel)
    offer = rows(catalog.offers, instance_type="8x-H100_SXM-32-65536")[0]
    # 652472 MiB for the 8 GPUs: 652472 / 8 / 1024 = 79.65 GB each; the type names the SXM part
    assert (offer["accelerator_count"], offer["form_factor"], offer["offer_kind"]) == (8, "SXM", "marketplace")
    assert offer["accelerator_memory_gb"] == pytest.approx(652472 / 8 / 1024)
    assert set(catalog.prices["pricing_model"]) == {"on_demand"}  # every SpotPrice is 0.00: none, never $0
    assert rows(catalog.prices, instance_type="8x-H100_SXM-32-65536")[0]["usd_per_hour"] == 16.0


def test_prime_intellect_is_a_marketplace_with_all_gpus_memory(tmp_path):
    path, rel = snapshot(tmp_path, "primeintellect")
    offers = {r["instance_type"]: r for r in read_catalog(path, rel).offers.to_dicts()}
    h100, h200 = offers["primecompute__8xH100_80GB__104__752"], offers["datacrunch__8xH200_141GB__176__1450"]
    assert (h100["accelerator_memory_gb"], h100["offer_kind"]) == (80.0, "marketplace")  # 655360 / 8 / 1024
    assert h200["accelerator_memory_gb"] == pytest.approx(141.0)  # 1155072 / 8 / 1024


def test_oci_hgx_shapes_and_verda_s_types_are_sxm(tmp_path):
    path, rel = snapshot(tmp_path, "oci")
    forms = {r["instance_type"]: r["form_factor"] for r in read_catalog(path, rel).offers.to_dicts()}
    # BM.GPU.H100.8 and BM.GPU.A100-v2.8 are HGX boards; the RTX PRO 6000 shape is PCIe cards, the MI300X OAM modules
    assert forms == {"BM.GPU.H100.8": "SXM", "BM.GPU.A100-v2.8": "SXM", "BM.GPU.RTXPRO.8": None, "BM.GPU.MI300X.8": None}
    path, rel = snapshot(tmp_path, "verda", "verda_sxm_vms.csv")
    assert {r["form_factor"] for r in read_catalog(path, rel).offers.to_dicts()} == {"SXM"}  # 2H200.141S.88V


def test_a_bare_h200_is_the_sxm_part_and_only_a_named_nvl_is_the_card(tmp_path):
    """NVIDIA's H200 is the SXM part (HGX H200) or the H200 NVL card, always named NVL: Seeweb, Jarvislabs and
    Vast.ai write a bare H200 (real rows); an H100 of 80 GB whose name says no form factor stays unknown. Seeweb's
    ECS8GPU10 has an empty Region (no region sells it now): no offer at all."""
    for cloud, name in (("jarvislabs", None), ("seeweb", None), ("vast", "vast_h200_vms.csv")):
        snapshot(tmp_path, cloud, name)
    # Vast's type names the form factor (1x-H100_NVL-...); an H200_NVL type, made from its 8x-H200 row, is the card
    vast = tmp_path / "prices" / f"skypilot_{DAY}" / "vast" / "vms.csv"
    real = vast.read_text().splitlines()
    vast.write_text("\n".join(real + [real[-1].replace("8x-H200-32-65536", "8x-H200_NVL-32-65536")]) + "\n")
    resolved = resolve(read_catalog_folder(tmp_path / "prices").offers,
                       read_aliases(RAW / "accelerator_aliases.csv", _cloud_models()))
    got = {(r["provider"], r["instance_type"]): r["cloud_model"] for r in resolved.to_dicts()}
    assert got == {("jarvislabs", "8x_H100_192V_1600G"): None, ("jarvislabs", "8x_H200_224V_2400G"): "H200-SXM-141GB",
                   ("seeweb", "ECS4GPU10"): "H200-SXM-141GB", ("vast", "1x-H100_NVL-32-65536"): "H100-NVL-94GB",
                   ("vast", "8x-H200-32-65536"): "H200-SXM-141GB", ("vast", "8x-H200_NVL-32-65536"): "H200-NVL-141GB"}


# ---- the market's small facts, each as SkyPilot's fetcher (skypilot-org/skypilot) writes it ----------------------
def _resolved(tmp_path: Path, *clouds: tuple[str, str]) -> dict[tuple[str, str], dict]:
    for cloud, name in clouds:
        snapshot(tmp_path, cloud, name)
    offers = resolve(read_catalog_folder(tmp_path / "prices").offers,
                     read_aliases(RAW / "accelerator_aliases.csv", _cloud_models()))
    return {(r["provider"], r["instance_type"]): r for r in offers.to_dicts()}


def test_a_seeweb_plan_with_an_empty_region_is_not_orderable(tmp_path):
    """fetch_seeweb.py create_catalog writes Region '' for a plan whose regions_available is empty: ECS8GPU10 (8x H200,
    20.8 a hour = 2.60 a GPU-hour) is such a row, ECS4GPU10 (4x H200 in it-fr2, 10.4) is sold."""
    path, rel = snapshot(tmp_path, "seeweb")
    catalog = read_catalog(path, rel)
    assert catalog.prices.select("instance_type", "region", "usd_per_hour").rows() == [("ECS4GPU10", "it-fr2", 10.4)]
    assert catalog.offers["instance_type"].to_list() == ["ECS4GPU10"]
    assert catalog.skipped == {"no region (a plan no region sells now, as Seeweb's fetcher writes it: not orderable)": 1}


def test_lium_s_bare_h200_may_be_the_nvl_card_and_its_h100_is_the_pcie_card(tmp_path):
    """lium_utils.GPU_NAME_MAP: 'H200' and 'H200 NVL' -> H200 (either part), 'H100 PCIe' -> H100 and
    'H100 80GB HBM3' -> H100-SXM."""
    got = _resolved(tmp_path, ("lium", None))
    h200, h100, sxm = got[("lium", "H200_1x")], got[("lium", "H100_1x")], got[("lium", "H100-SXM_8x")]
    assert (h200["form_factor"], h200["cloud_model"]) == ("SXM or NVL", None)  # never priced as the SXM part
    assert (h100["form_factor"], h100["cloud_model"]) == ("PCIe", "H100-PCIe-80GB")
    assert (sxm["form_factor"], sxm["cloud_model"]) == ("SXM", "H100-SXM-80GB")
    unknown = unknown_accelerators(pl.DataFrame([h200, h100, sxm]))
    assert unknown.to_dicts() == [{"accelerator": "H200 (SXM or NVL)", "providers": "lium", "offers": 1}]


def test_prime_intellect_s_hyperstack_h100_are_pcie_and_lambda_s_8x_a100_is_the_40_gb_sxm4(tmp_path):
    """Prime Intellect launches by UpstreamCloudId (sky/provision/primeintellect/utils.py launch): n3-H100x1 and
    n3-H100x8 are Hyperstack's H100-80G-PCIe flavors, n3-H100-SXM5x8 its SXM5 one; gpu_8x_a100 is Lambda's
    "8x A100 (40 GB SXM4)" (fetch_lambda_cloud.py writes A100 with GPU_TO_MEMORY's 40960 MiB)."""
    got = _resolved(tmp_path, ("primeintellect", "primeintellect_upstream_vms.csv"), ("lambda", "lambda_a100_vms.csv"))
    models = {key: (r["form_factor"], r["cloud_model"]) for key, r in got.items()}
    assert models == {
        ("primeintellect", "hyperstack__1xH100_80GB__28__180"): ("PCIe", "H100-PCIe-80GB"),
        ("primeintellect", "hyperstack__8xH100_80GB__252__1440"): ("PCIe", "H100-PCIe-80GB"),
        ("primeintellect", "hyperstack__8xH100_80GB__192__960"): ("SXM", "H100-SXM-80GB"),
        ("primeintellect", "lambdalabs__8xA100_40GB__124__1800"): ("SXM", "A100-SXM-40GB"),  # 327680 / 8 / 1024 = 40
        ("lambda", "gpu_8x_a100"): ("SXM", "A100-SXM-40GB"),  # 40960 MiB = 40 GB, never the 80 GB part
        ("lambda", "gpu_1x_a100"): (None, None),  # Lambda's 1x A100 says no form factor: never guessed
    }
    assert got[("lambda", "gpu_8x_a100")]["accelerator_memory_gb"] == 40.0


def test_a_catalog_writing_all_gpus_memory_is_read_per_gpu(tmp_path):
    """Verda's catalog at 538675a0 writes the memory of all an offer's GPUs in SizeInMiB (8B200.240V: 1474560 MiB =
    8 x 184320) where 000c1d0b wrote one GPU's: the file's 2- and 8-GPU sizes are 2 and 8 times its 1-GPU size."""
    path, rel = snapshot(tmp_path, "verda", "verda_totals_vms.csv")
    memory = {r["instance_type"]: r["accelerator_memory_gb"] for r in read_catalog(path, rel).offers.to_dicts()}
    assert memory == {"1B200.30V": 180.0, "2B200.60V": 180.0, "8B200.240V": 180.0,  # 184320 / 1024; 368640 / 2 / 1024
                      "1H200.141S.44V": 141.0, "8H200.141S.176V": 141.0}  # 144384 / 1024; 1155072 / 8 / 1024
    path, rel = snapshot(tmp_path, "verda")  # 000c1d0b: 1B300.30V's 268288 MiB is one GPU's
    assert read_catalog(path, rel).offers["accelerator_memory_gb"].to_list() == [pytest.approx(268288 / 1024)]


def test_writes_totals_votes_by_the_file_s_own_sizes():
    from pipelines.ingest.prices.skypilot import writes_totals

    def offer(name, count, size):
        return {"catalog_accelerator": name, "accelerator_count": count, "accelerator_memory_gb": size}

    one = [offer("H100", 1, 80.0)]
    assert writes_totals(one + [offer("H100", 8, 640.0)], default=False) is True
    assert writes_totals(one + [offer("H100", 8, 80.0)], default=True) is False
    assert writes_totals([offer("H100", 8, 640.0)], default=True) is True  # no 1-GPU size: the cloud's habit
    assert writes_totals([offer("H100", 8, 640.0)], default=False) is False


def test_a_spot_price_not_below_on_demand_is_no_way_to_pay_less(tmp_path):
    """A spot figure equal to (or above) its region's on-demand price adds no cheaper option (RunPod's secure spot at
    its secure price); a lower one is listed (Nebius: 10.00 against 23.60)."""
    path, rel = bad(tmp_path, NEBIUS_HEADER + NEBIUS_H100.format(price="23.60", info=INFO).replace(",10.00", ",23.60"))
    catalog = read_catalog(path, rel)
    assert catalog.prices.select("pricing_model", "usd_per_hour").rows() == [("on_demand", 23.60)]
    path, rel = bad(tmp_path, NEBIUS_HEADER + NEBIUS_H100.format(price="23.60", info=INFO).replace(",10.00", ",24.00"))
    assert read_catalog(path, rel).prices["pricing_model"].to_list() == ["on_demand"]
    path, rel = bad(tmp_path, NEBIUS_HEADER + NEBIUS_H100.format(price="23.60", info=INFO))
    assert sorted(read_catalog(path, rel).prices.select("pricing_model", "usd_per_hour").rows()) == [
        ("on_demand", 23.60), ("spot", 10.00)]
