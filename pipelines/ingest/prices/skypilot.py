"""SkyPilot's public catalogs (github.com/skypilot-org/skypilot-catalog, catalogs/vN/<cloud>/vms.csv):
every GPU cloud's offers in one layout, kept as dated snapshots.

A snapshot is the catalog's own layout copied under a dated folder of prices/:

    prices/skypilot_<YYYY-MM-DD>/<cloud>/vms.csv

provider = the cloud folder's name (lambda, nebius, runpod, ...), as_of = the folder's date,
region = Region, instance_type = InstanceType, on-demand = Price, spot = SpotPrice where given,
source = "SkyPilot catalog <cloud>/vms.csv as of <date>". Columns are found by header name: their
order differs by cloud (RunPod puts Price after SpotPrice; Verda adds UpstreamCloudId).

What is not an offer (counted in `Catalog.skipped`, never an error): a row without an accelerator
(CPU machines, and GCP's a2/a3 host VMs, whose GPUs are priced on rows of their own), a row with an
empty or zero Price (not sold on demand), a row with an empty Region (no region sells it now: SkyPilot's
fetch_seeweb.py create_catalog writes an empty Region for a plan whose regions_available is empty, so such a
plan is orderable nowhere), GCP's GPU rows without an InstanceType (GPUs priced apart from the VM they
attach to: not a machine one can rent), and GCP's 700.0, a placeholder SkyPilot writes for TPU zones
without a price. A spot price not below its row's on-demand price is no way to pay less (RunPod's
fetch_runpod.py writes its secure cloud's secureSpotPrice, equal to securePrice in the bundled rows): the row
is an on-demand offer only, and its spot figure is counted as skipped, never listed as a cheaper option.

Traps of the real files, each handled here once:
- GpuInfo is a Python literal in single quotes ({'Gpus': [{'Name': 'H100', ...}], ...}); Verda writes
  JSON and Hyperstack writes JSON's null inside Python quotes. It is parsed with ast (never eval),
  null/true/false read as JSON's; a GpuInfo that is a plain word (GCP's TPU rows repeat the TPU name)
  is a name, not a dict.
- Memory per GPU comes from Gpus[0].MemoryInfo.SizeInMiB, never TotalGpuMemoryInMiB (Lambda writes the
  per-GPU size there). RunPod writes gigabytes in SizeInMiB (80 for an 80 GB card): a SizeInMiB under
  1,024 is read as GB, since no training GPU has less than 1 GiB. Vast.ai and Prime Intellect write the
  memory of all the offer's GPUs there (Vast's 8x H100 SXM: 652472 MiB): divided by the GPU count. So does
  Verda's older catalog at 538675a0 (8B200.240V: 1474560 MiB), where 000c1d0b writes one GPU's: a file whose
  N-GPU offers give N times the SizeInMiB of the 1-GPU offer of the same accelerator writes totals
  (`writes_totals`), one whose sizes match writes one GPU's; a file with neither follows its cloud.
- Form factor (SXM, PCIe, NVL) comes from the accelerator name, the GpuInfo name or the instance type
  (RunPod's A100-80GB is "A100 PCIe" in GpuInfo; Vast's 8x-H100_SXM-...); where none says it, a cloud's own
  naming may (`_TYPE_FORMS`, each rule from the cloud's fetcher or its own catalog):
  - OCI's bare-metal 8-GPU NVIDIA HGX shapes (BM.GPU.H100.8, BM.GPU.H200.8, BM.GPU.A100-v2.8, BM.GPU4.8,
    BM.GPU3.8 ...; not BM.GPU.RTXPRO.8, PCIe cards, nor the MI300X's OAM modules) are SXM boards;
  - Verda's types with an S after the memory (1H100.80S.30V) are SXM;
  - Lambda's gpu_8x_a100 is "8x A100 (40 GB SXM4)" in Lambda's own API (fetch_lambda_cloud.py keeps only the
    name's A100 and GPU_TO_MEMORY's 40960 MiB): SXM;
  - Hyperstack's n3-H100xN and n3-A100xN flavors (and their -NVLink variants) are its H100-80G-PCIe and
    A100-80G-PCIe (Hyperstack's catalog names them so): PCIe, as is every Prime Intellect offer whose
    UpstreamCloudId names one (sky/provision/primeintellect/utils.py launches by that id);
  - Lium writes H100 for NVIDIA's "H100 PCIe" (lium_utils.GPU_NAME_MAP; the SXM part is H100-SXM): PCIe; and
    H200 for both "H200" and "H200 NVL": its bare H200 is `UNSETTLED` ("SXM or NVL"), which no alias prices.
  Else it stays unknown.
- Rows repeat per availability zone. One price repeated over a region's zones is one regional price;
  where zone spot prices differ, the region's spot price is their median with the zone count, min and
  max (as aws_spot.py keeps for EC2's spot history; like it, AWS Local and Wavelength Zones such as
  use1-atl2-az1 are left out); on-demand prices of one region are one price, and differing ones are an
  InputError. A row with an empty Price and a SpotPrice (AWS p5e: reservations and capacity blocks only)
  is not sold on demand, so it is no offer either.

Who sets each price (`offer_kind`, domain/offers.py): Mithril's is an auction's minimum bid (auction: SkyPilot's
fetch_mithril.py writes /v2/pricing/current's minimum_price_cents / 100 into both Price and SpotPrice); Vast.ai
lists hosts' machines, Lium the cheapest live node of its hosts per shape and country (fetch_lium.py), Prime
Intellect, Shadeform and Spheron resell other clouds' live offers, and RunPod's *_COMMUNITY pods run on community
hosts (marketplace); every other price is the provider's own (list).
"""

from __future__ import annotations

import ast
import csv
import functools
import io
import re
import statistics
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

import polars as pl

from pipelines.domain.offers import AUCTION, LIST, MARKETPLACE
from pipelines.domain.errors import InputError
from pipelines.ingest.csv_table import read_text
from pipelines.ingest.names import provider_problem
from pipelines.ingest.prices.normalized import parse_day, parse_price, price_frame

# prices/skypilot_<date>/<cloud>/vms.csv, as a path relative to the price folder
LAYOUT = re.compile(r"(?:^|/)skypilot_(?P<date>[^/]*)/(?P<cloud>[^/]+)/vms\.csv$")
# AWS zone ids of the region itself (use1-az2); Local and Wavelength Zones (use1-atl2-az1) are not
# the region's, and the AWS spot reader leaves them out of a region's figure too
AWS_REGION_ZONE = re.compile(r"^[a-z]+\d+-az\d+$")
REQUIRED = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "Region")
# Text that stands where a price should be: a catalog that has no figure, not a price of zero.
PLACEHOLDERS = {"n/a", "na", "none", "null", "nan", "tbd", "-", "?", "unknown"}
GCP_PLACEHOLDER = 700.0  # SkyPilot's fetch_gcp writes 700.0 for TPU zones without a price
# Clouds whose catalog price is a market's, not the provider's own rate (module docstring)
MARKETS = {"vast": MARKETPLACE, "primeintellect": MARKETPLACE, "lium": MARKETPLACE, "shadeform": MARKETPLACE,
           "spheron": MARKETPLACE, "mithril": AUCTION}
# Clouds whose MemoryInfo.SizeInMiB holds the memory of all the offer's GPUs, not one's (module docstring)
TOTAL_MEMORY_CLOUDS = {"vast", "primeintellect"}
# A form factor a cloud's naming leaves open between two parts (Lium's H200: "H200" or "H200 NVL"): never guessed
UNSETTLED = "SXM or NVL"

OFFER_SCHEMA = {
    "provider": pl.Utf8, "instance_type": pl.Utf8, "catalog_accelerator": pl.Utf8, "gpu_name": pl.Utf8,
    "form_factor": pl.Utf8, "accelerator_count": pl.Int64, "accelerator_memory_gb": pl.Float64,
    "vcpus": pl.Float64, "memory_gib": pl.Float64, "offer_kind": pl.Utf8, "file": pl.Utf8, "line": pl.Int64,
}


@dataclass
class Catalog:
    """One catalog file read: its price rows, its offers (one per instance type) and what was skipped."""

    prices: pl.DataFrame
    offers: pl.DataFrame
    skipped: dict[str, int] = field(default_factory=dict)


def in_layout(rel: str) -> bool:
    """True for a file at skypilot_<...>/<cloud>/vms.csv (relative to the price folder)."""
    return LAYOUT.search(rel) is not None


def snapshot(path: Path, rel: str) -> tuple[str, date]:
    """(provider, as_of) from the file's place: skypilot_<YYYY-MM-DD>/<cloud>/vms.csv."""
    found = LAYOUT.search(rel)
    if not found:
        raise InputError(path, None, "a SkyPilot catalog must sit at prices/skypilot_<YYYY-MM-DD>/<cloud>/vms.csv, "
                                     "the catalog's own <cloud>/vms.csv under a folder named for its date")
    day = parse_day(found.group("date"), path, "folder name skypilot_<YYYY-MM-DD>")
    cloud = found.group("cloud")
    if provider_problem(cloud):
        lowered = re.sub(r"[^a-z0-9]", "", cloud.lower())
        raise InputError(path, "folder name", f"cloud folder {cloud!r} is not a provider name (lower-case letters "
                                              f"and digits, as SkyPilot names clouds): it would be a second name "
                                              f"for provider {lowered!r}")
    return cloud, day


def read_catalog(path: Path, rel: str) -> Catalog:
    """Prices and offers of one catalog file; InputError naming line and column for a bad cell."""
    provider, as_of = snapshot(path, rel)
    text = read_text(path)
    reader = csv.reader(io.StringIO(text, newline=""))
    header = [h.strip() for h in next(reader, [])]
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise InputError(path, 1, f"is not a SkyPilot catalog: no column(s) {', '.join(missing)} in the header "
                                  f"({','.join(header)[:200] or 'empty'}); expected {', '.join(REQUIRED)} "
                                  "and optionally GpuInfo, SpotPrice, AvailabilityZone, vCPUs, MemoryGiB")
    index = {name: i for i, name in enumerate(header)}
    source = f"SkyPilot catalog {provider}/vms.csv as of {as_of.isoformat()}"
    skipped: dict[str, int] = {}
    offers: dict[str, dict] = {}
    zones: dict[tuple[str, str], list[tuple[float, float | None, int]]] = {}
    try:
        while True:
            line = reader.line_num + 1
            try:
                cells = next(reader)
            except StopIteration:
                break
            if not any(c.strip() for c in cells):
                continue
            if len(cells) != len(header):
                raise InputError(path, line, f"has {len(cells)} fields, the header has {len(header)}")
            cell = {name: cells[i].strip() for name, i in index.items()}
            row = _offer_row(path, line, provider, cell, skipped)
            if row is None:
                continue
            offer, price, spot = row
            known = offers.setdefault(offer["instance_type"], offer)
            if known["accelerator_count"] != offer["accelerator_count"]:
                raise InputError(path, f"{line} column AcceleratorCount",
                                 f"{offer['instance_type']} has {offer['accelerator_count']} accelerators here and "
                                 f"{known['accelerator_count']} on line {known['line']}")
            zones.setdefault((cell["Region"], offer["instance_type"]), []).append((price, spot, line))
    except csv.Error as exc:
        raise InputError(path, reader.line_num, f"is not valid CSV: {exc}") from None
    totals = writes_totals(list(offers.values()), provider in TOTAL_MEMORY_CLOUDS)
    for offer in offers.values():
        if totals and offer["accelerator_memory_gb"] is not None:
            offer["accelerator_memory_gb"] /= offer["accelerator_count"]
    rows = []
    for (region, instance_type), found in sorted(zones.items()):
        kind = offers[instance_type]["offer_kind"]
        rows += regional_prices(path, provider, region, instance_type, found, as_of, source, rel, kind, skipped)
    offer_frame = pl.DataFrame(list(offers.values()), schema=OFFER_SCHEMA, orient="row") if offers else \
        pl.DataFrame(schema=OFFER_SCHEMA)
    return Catalog(price_frame(rows), offer_frame.with_columns(pl.lit(rel).alias("file")), skipped)


def _skip(skipped: dict[str, int], reason: str, count: int = 1) -> None:
    skipped[reason] = skipped.get(reason, 0) + count


def writes_totals(offers: list[dict], default: bool) -> bool:
    """Whether one catalog file writes the memory of all an offer's GPUs in SizeInMiB (module docstring): its N-GPU
    offers of an accelerator give N times the size of the 1-GPU offer of the same accelerator name (within 5 %),
    not the same size. `offers`: the file's offers with the size as written; `default`: the cloud's habit, for a
    file whose sizes say neither (no accelerator sold both alone and in numbers)."""
    single = {o["catalog_accelerator"]: o["accelerator_memory_gb"] for o in offers
              if o["accelerator_count"] == 1 and o["accelerator_memory_gb"]}
    totals = per_gpu = 0
    for o in offers:
        one, count, size = single.get(o["catalog_accelerator"]), o["accelerator_count"], o["accelerator_memory_gb"]
        if not one or count < 2 or not size:
            continue
        ratio = size / one
        totals += abs(ratio - count) <= 0.05 * count
        per_gpu += abs(ratio - 1) <= 0.05
    return totals > per_gpu if totals != per_gpu else default


def _offer_row(path: Path, line: int, provider: str, cell: dict[str, str],
               skipped: dict[str, int]) -> tuple[dict, float, float | None] | None:
    """(offer facts, on-demand price, spot price or None) of one row, or None when it is no offer."""
    accelerator = cell["AcceleratorName"]
    instance_type = cell["InstanceType"]
    zone = cell.get("AvailabilityZone", "")
    if provider == "aws" and zone and not AWS_REGION_ZONE.match(zone):
        _skip(skipped, "AWS Local or Wavelength Zone (not the region's own zone)")
        return None
    if not accelerator:
        _skip(skipped, "no accelerator (CPU machine, or a host VM priced apart from its GPUs)")
        return None
    if provider == "gcp" and not instance_type:
        if not accelerator.lower().startswith("tpu-"):
            _skip(skipped, "GCP GPUs priced apart from the VM they attach to (no InstanceType)")
            return None
        instance_type = accelerator  # a TPU slice: the slice is what one rents
    if not instance_type:
        raise InputError(path, f"{line} column InstanceType", "is empty")
    price = _price(path, line, "Price", cell["Price"])
    if price is None or price == 0:
        _skip(skipped, "no on-demand price (empty or zero Price: not sold)")
        return None
    if not cell["Region"]:
        _skip(skipped, "no region (a plan no region sells now, as Seeweb's fetcher writes it: not orderable)")
        return None
    if provider == "gcp" and price == GCP_PLACEHOLDER:
        _skip(skipped, "GCP's placeholder price 700.0 (TPU zone without a price)")
        return None
    spot = _price(path, line, "SpotPrice", cell.get("SpotPrice", ""))
    if spot == 0 or (provider == "gcp" and spot == GCP_PLACEHOLDER):
        spot = None
    info = gpu_info(path, line, cell.get("GpuInfo", ""))
    gpu = info.get("Gpus", [{}])[0] if isinstance(info.get("Gpus"), list) and info.get("Gpus") else {}
    gpu_name = str(gpu.get("Name") or info.get("Name") or "") or None
    count = _count(path, line, cell["AcceleratorCount"])
    memory = _memory_gb(gpu)  # GB as written: one GPU's or all of them (read_catalog decides per file)
    return {
        "provider": provider, "instance_type": instance_type, "catalog_accelerator": accelerator,
        "gpu_name": gpu_name,
        # Prime Intellect names the upstream provider's own type in UpstreamCloudId (gpu_8x_h100_sxm5, 8H100.80S.176V)
        "form_factor": form_factor(accelerator, gpu_name, instance_type, cell.get("UpstreamCloudId"))
        or type_form_factor(provider, instance_type) or upstream_form_factor(cell.get("UpstreamCloudId")),
        "accelerator_count": count,
        "accelerator_memory_gb": memory,
        "vcpus": _number(path, line, "vCPUs", cell.get("vCPUs", "")),
        "memory_gib": _number(path, line, "MemoryGiB", cell.get("MemoryGiB", "")),
        "offer_kind": offer_kind(provider, instance_type), "file": "", "line": line,
    }, price, spot


def _price(path: Path, line: int, column: str, text: str) -> float | None:
    if not text:
        return None
    if text.lower() in PLACEHOLDERS:
        raise InputError(path, f"{line} column {column}", f"{text!r} is a placeholder, not a price; leave the cell "
                                                          "empty for an offer that is not sold")
    return parse_price(text, path, f"{line} column {column}")


def _number(path: Path, line: int, column: str, text: str) -> float | None:
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        raise InputError(path, f"{line} column {column}", f"{text!r} is not a number") from None
    if not value >= 0:
        raise InputError(path, f"{line} column {column}", f"{text!r} is not a number of at least 0")
    return value


def _count(path: Path, line: int, text: str) -> int:
    value = _number(path, line, "AcceleratorCount", text)
    if value is None or value < 1 or value != int(value):
        raise InputError(path, f"{line} column AcceleratorCount", f"{text!r} is not a whole number of at least 1")
    return int(value)


def _memory_gb(gpu: dict) -> float | None:
    """GB per GPU from MemoryInfo.SizeInMiB; under 1,024 the figure is already GB (RunPod)."""
    memory = gpu.get("MemoryInfo") if isinstance(gpu, dict) else None
    size = memory.get("SizeInMiB") if isinstance(memory, dict) else None
    if isinstance(size, bool) or not isinstance(size, (int, float)) or size <= 0:
        return None
    return float(size) if size < 1024 else size / 1024.0


_JSON_WORDS = {"null": None, "true": True, "false": False}


def gpu_info(path: Path, line: int, text: str) -> dict:
    """The GpuInfo cell as a dict ({} when empty or a plain name such as GCP's 'tpu-v6e-8')."""
    if not text:
        return {}
    if not text.lstrip().startswith("{"):
        return {"Name": text}
    value = _literal(text)
    if value is _NOT_A_LITERAL:
        raise InputError(path, f"{line} column GpuInfo",
                         f"is not a Python or JSON literal: {text[:80]!r}") from None
    if not isinstance(value, dict):
        raise InputError(path, f"{line} column GpuInfo", "is not a dict literal")
    return value


_NOT_A_LITERAL = object()


@functools.lru_cache(maxsize=4096)
def _literal(text: str) -> object:
    """A GpuInfo text parsed once: catalogs repeat one GpuInfo over every region and zone of a type (RunPod's
    2 MB file: 10,920 rows, a few hundred texts), and parsing was most of the read's time. Callers only read it."""
    try:
        return ast.literal_eval(_JsonWords().visit(ast.parse(text, mode="eval")).body)
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        return _NOT_A_LITERAL


class _JsonWords(ast.NodeTransformer):
    """JSON's null/true/false, which some catalogs write inside Python-quoted dicts, as constants."""

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in _JSON_WORDS:
            return ast.copy_location(ast.Constant(_JSON_WORDS[node.id]), node)
        return node


_FORMS = (("nvl", "NVL"), ("pcie", "PCIe"), ("pci", "PCIe"), ("sxm", "SXM"))


def form_factor(*names: str | None) -> str | None:
    """SXM, PCIe or NVL where the accelerator name, GpuInfo name or instance type says it, else None."""
    for name in names:
        words = re.sub(r"[^a-z0-9]+", " ", (name or "").lower())
        for key, form in _FORMS:
            # "sxm5", "sxm5x8" (Shadeform's lambdalabs_H100-sxm5x8: the part, then the count), "8xh100 sxm"
            if re.search(rf"\b{key}\d*(?:x\d+)?\b", words) or re.search(rf"\d{key}\b", words):
                return form
    return None


# The form factor a cloud's own instance-type naming states where no name says SXM, PCIe or NVL (module docstring).
_TYPE_FORMS = {
    "oci": [(re.compile(r"^BM\.GPU(\.H100|\.H200|\.A100-v2|\.B4|\.B200|\.B300|3|4)\.8$"), "SXM")],
    "verda": [(re.compile(r"^\d+[A-Z]\w*\.\d+S\b"), "SXM")],
    "lambda": [(re.compile(r"^gpu_8x_a100$"), "SXM")],  # "8x A100 (40 GB SXM4)" in Lambda's API
    "hyperstack": [(re.compile(r"^n3-(H100|A100)x\d+(-NVLink)?$"), "PCIe")],  # H100-80G-PCIe, A100-80G-PCIe
    "lium": [(re.compile(r"^H100_\d+x(?:_|$)"), "PCIe"),  # lium_utils: 'H100 PCIe' -> H100, 'H100 80GB HBM3' -> H100-SXM
             (re.compile(r"^H200_\d+x(?:_|$)"), UNSETTLED)],  # lium_utils: 'H200' and 'H200 NVL' -> H200
}
# The clouds whose types an aggregator names as its upstream (Prime Intellect's UpstreamCloudId)
_UPSTREAM_CLOUDS = ("oci", "verda", "lambda", "hyperstack")


def type_form_factor(provider: str, instance_type: str) -> str | None:
    return next((form for pattern, form in _TYPE_FORMS.get(provider, ()) if pattern.match(instance_type)), None)


def upstream_form_factor(upstream: str | None) -> str | None:
    """The form factor an aggregator's upstream type names in a cloud's own naming (Prime Intellect's datacrunch
    rows carry Verda's 8H100.80S.176V, its hyperstack rows Hyperstack's n3-H100x8, its lambdalabs rows Lambda's
    gpu_8x_a100)."""
    return next((form for cloud in _UPSTREAM_CLOUDS for pattern, form in _TYPE_FORMS[cloud]
                 if upstream and pattern.match(upstream)), None)


def offer_kind(provider: str, instance_type: str) -> str:
    if provider in MARKETS:
        return MARKETS[provider]
    if provider == "runpod" and instance_type.upper().endswith("_COMMUNITY"):
        return MARKETPLACE
    return LIST


def regional_prices(path: Path, provider: str, region: str, instance_type: str,
                    found: list[tuple[float, float | None, int]], as_of: date, source: str, rel: str,
                    kind: str, skipped: dict[str, int] | None = None) -> list[dict]:
    """One on-demand row, and one spot row where a zone has spot below the on-demand price, for an instance type in
    a region (a spot figure not below on demand is no cheaper way to pay: counted in `skipped`, module docstring)."""
    on_demand = {price for price, _, _ in found}
    if len(on_demand) > 1:
        lines = ", ".join(str(line) for _, _, line in found)
        raise InputError(path, found[-1][2], f"{instance_type} in {region} has {len(on_demand)} different "
                                             f"on-demand prices ({', '.join(f'{p:g}' for p in sorted(on_demand))}) "
                                             f"on lines {lines}")
    lines = "+".join(str(line) for _, _, line in found)
    base = {"provider": provider, "region": region, "instance_type": instance_type, "as_of": as_of,
            "file": rel, "offer_kind": kind}
    rows = [{**base, "usd_per_hour": found[0][0], "source": source, "line": lines}]
    spots = [spot for _, spot, _ in found if spot is not None]
    if spots and spot_figure(spots)["usd_per_hour"] >= found[0][0]:
        _skip(skipped if skipped is not None else {}, "spot price not below the on-demand price (no spot discount: "
                                                      "on demand only)", len(spots))
        spots = []
    if spots:
        spot = spot_figure(spots)
        rows.append({**base, "pricing_model": "spot", "usd_per_hour": spot["usd_per_hour"],
                     "zone_count": spot["zone_count"], "zone_min_usd_per_hour": spot["zone_min_usd_per_hour"],
                     "zone_max_usd_per_hour": spot["zone_max_usd_per_hour"],
                     "source": f"{source}, spot: {spot['basis']}",
                     "line": "+".join(str(line) for _, s, line in found if s is not None)})
    return rows


def spot_figure(zone_prices: list[float]) -> dict:
    """The regional spot figure of a region's zone rows: one price repeated over its zones is that
    price (zone count 1: the zones add nothing); differing zone prices give their median, with the
    zone count, min and max."""
    distinct = sorted(set(zone_prices))
    if len(distinct) == 1:
        return {"usd_per_hour": distinct[0], "zone_count": None, "zone_min_usd_per_hour": None,
                "zone_max_usd_per_hour": None, "basis": "one price for the region"}
    return {"usd_per_hour": round(statistics.median(zone_prices), 9), "zone_count": len(zone_prices),
            "zone_min_usd_per_hour": min(zone_prices), "zone_max_usd_per_hour": max(zone_prices),
            "basis": f"median over {len(zone_prices)} zones"}


def read_catalog_folder(folder: Path) -> Catalog:
    """Every SkyPilot catalog under a price folder: their price rows, one offer per (provider,
    instance type) with the facts of its newest snapshot, and the skipped rows counted together."""
    from pipelines.ingest.prices.files import price_files  # the one listing of a price folder (and of raw_prices)

    folder = Path(folder)
    catalogs = []
    for path in price_files(folder) if folder.is_dir() else []:
        rel = path.relative_to(folder).as_posix()
        if in_layout(rel):
            catalogs.append((snapshot(path, rel)[1], read_catalog(path, rel)))
    if not catalogs:
        return Catalog(price_frame([]), pl.DataFrame(schema=OFFER_SCHEMA), {})
    skipped: dict[str, int] = {}
    for _, catalog in catalogs:
        for reason, count in catalog.skipped.items():
            skipped[reason] = skipped.get(reason, 0) + count
    newest_first = sorted(catalogs, key=lambda c: c[0], reverse=True)
    offers = (pl.concat([c.offers for _, c in newest_first])
              .unique(["provider", "instance_type"], keep="first", maintain_order=True)
              .sort("provider", "instance_type"))
    return Catalog(pl.concat([c.prices for _, c in catalogs]), offers, skipped)
