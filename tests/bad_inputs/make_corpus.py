"""Writes the bad-input corpus: one folder per case under tests/bad_inputs/.

Each case folder holds
  case.toml   description; `error`, a regular expression the one-line error must match (it names
              the file and the line, column or field), or `accepted = true` for input that must
              be read (the run succeeds); optional `remove` (paths deleted from the copy of raw/),
              `special` (paths turned into a FIFO, a dangling symlink, a symlink loop or a
              directory at test time: git cannot hold those) and `runs_reason` (a regex one of
              stg_mlperf_runs' reasons must match after the run)
  raw/...     files laid over a copy of the bundled raw/ folder (replacing or adding)

The cases are small edits of the bundled data, written by this script so that a reader sees how
each was made; the written files are committed, and tests/test_bad_inputs.py reads only those.
Run `python tests/bad_inputs/make_corpus.py` after changing the bundled raw/ data.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RAW = HERE.parents[1] / "raw"
sys.path.insert(0, str(HERE.parent))

CASES: list[dict] = []


def raw(rel: str) -> str:
    return (RAW / rel).read_text(encoding="utf-8")


def lines(rel: str) -> list[str]:
    return raw(rel).splitlines(keepends=True)


def replace_line(rel: str, number: int, new: str) -> str:
    """The file with line `number` (1-based) replaced by `new` (a line without its newline)."""
    out = lines(rel)
    out[number - 1] = new + "\n"
    return "".join(out)


def edit(rel: str, old: str, new: str, count: int = 1) -> str:
    text = raw(rel)
    assert old in text, (rel, old)
    return text.replace(old, new, count)


def case(name: str, description: str, files: dict[str, str | bytes] | None = None, *, error: str | None = None,
         accepted: bool = False, remove: list[str] = (), special: dict[str, str] | None = None,
         runs_reason: str | None = None) -> None:
    assert (error is None) == accepted, name
    CASES.append(dict(name=name, description=description, files=files or {}, error=error, accepted=accepted,
                      remove=list(remove), special=special or {}, runs_reason=runs_reason))


PRICES = "prices/on_demand_2025-06-01.csv"
P4D = "aws,us-east-1,p4d.24xlarge,{price},{date},AWS EC2 on-demand list price after the June 2025 P4/P5 price cut,exact"
PRICES_RE = r"prices/on_demand_2025-06-01\.csv"

# ---- prices: normalized CSV ----------------------------------------------------------------
case("prices_empty", "a price snapshot that is an empty file", {PRICES: ""},
     error=PRICES_RE + r"(:1)?: .*empty")
case("prices_header_only", "a price snapshot with its header and no rows", {PRICES: lines(PRICES)[0]},
     error=PRICES_RE + r":2: has a header but no rows")
case("prices_missing_column", "the usd_per_hour column left out",
     {PRICES: "provider,region,instance_type,as_of,source\naws,us-east-1,p4d.24xlarge,2025-06-01,list\n"},
     error=PRICES_RE + r".*missing column\(s\) usd_per_hour")
case("prices_misspelled_column", "usd_per_hour misspelled as usd_per_hr in the header",
     {PRICES: edit(PRICES, "usd_per_hour", "usd_per_hr")},
     error=PRICES_RE + r".*missing column\(s\) usd_per_hour")
case("prices_non_numeric", "a price written as text", {PRICES: replace_line(PRICES, 2, P4D.format(price="twenty", date="2025-06-01"))},
     error=PRICES_RE + r":2 column usd_per_hour: price 'twenty' is not a number")
# pricing options (the optional columns of the normalized CSV)
OPTIONS = "prices/commitments.csv"
OPTIONS_RE = r"prices/commitments\.csv"
OPTIONS_HEAD = ("provider,region,instance_type,usd_per_hour,as_of,source,pricing_model,term_years,payment_option,"
                "offering_class,upfront_usd,recurring_usd_per_hour\n")
OPTION = "aws,us-east-1,p4d.24xlarge,{price},2025-06-01,AWS reserved,{model},{term},{payment},{offering},{upfront},{recurring}\n"
case("prices_unknown_pricing_model", "a pricing model that does not exist (a typo of reserved)",
     {OPTIONS: OPTIONS_HEAD + OPTION.format(price="13.6", model="reservd", term="1", payment="no_upfront",
                                            offering="standard", upfront="", recurring="")},
     error=OPTIONS_RE + r":2 column pricing_model: 'reservd' is not one of on_demand, spot, reserved")
case("prices_term_without_commitment", "a term on an on-demand price",
     {OPTIONS: OPTIONS_HEAD + OPTION.format(price="21.96", model="on_demand", term="1", payment="", offering="",
                                            upfront="", recurring="")},
     error=OPTIONS_RE + r":2 column term_years: a term of 1 year\(s\) needs a commitment model")
case("prices_upfront_without_term", "an upfront payment on a spot price (no term to spread it over)",
     {OPTIONS: OPTIONS_HEAD + OPTION.format(price="9.5", model="spot", term="", payment="", offering="",
                                            upfront="1000", recurring="")},
     error=OPTIONS_RE + r":2 column upfront_usd: an upfront payment needs a commitment term")
case("prices_negative_upfront", "a negative upfront payment",
     {OPTIONS: OPTIONS_HEAD + OPTION.format(price="13.6", model="reserved", term="1", payment="partial_upfront",
                                            offering="standard", upfront="-5000", recurring="13")},
     error=OPTIONS_RE + r":2 column upfront_usd: '-5000' is not a finite amount of at least 0")


def _provider_pricing_cases() -> None:
    """The failure modes the readers of the providers' other pricing models add (issue 15)."""
    sys.path.insert(0, str(HERE.parents[1]))  # price_fixtures uses the project's column names
    from price_fixtures import (
        aws_csv, aws_reserved_rows, aws_row, azure_item, gcp_sku, savings_plan_json, spot_advisor, spot_record,
    )

    aws = "prices/aws-us-east-1-2025-06-01.csv"
    reserved = [r | {"LeaseContractLength": "2yr"} for r in aws_reserved_rows("p4d.24xlarge", {"4NA7Y494T4": (0, 13.4)})]
    case("prices_reserved_unknown_lease", "an AWS Price List reserved term of 2 years (AWS sells 1yr and 3yr)",
         {aws: aws_csv([aws_row("p4d.24xlarge", "21.9576420000"), *reserved])},
         error=r"prices/aws-us-east-1-2025-06-01\.csv:RateCode P4D24XLARGXXXSKU\.4NA7Y494T4: LeaseContractLength '2yr' "
               r"is not one of 1yr, 3yr")
    case("prices_savings_plan_without_price_list",
         "an AWS savings plan offer without the EC2 price list that ties its usage types to instances",
         {"prices/aws-savings-plans-us-east-1-2025-06-01.json": json.dumps(savings_plan_json())},
         error=r"prices/aws-savings-plans-us-east-1-2025-06-01\.json:\$\.terms\.savingsPlan\[0\]\.rates\[0\]: "
               r"savings plan rate for usage type BoxUsage:p4d\.24xlarge \(RunInstances\) cannot be tied to an instance")
    case("prices_spot_advisor_undated", "the AWS spot advisor JSON saved under its own name, which carries no date",
         {"prices/spot-advisor-data.json": json.dumps(spot_advisor())},
         error=r"prices/spot-advisor-data\.json: the AWS spot advisor JSON carries no date of its own")
    case("prices_spot_history_zero", "a DescribeSpotPriceHistory record with a spot price of zero",
         {"prices/aws-spot-us-east-1-2025-06-01.json": json.dumps({"SpotPriceHistory": [
             spot_record("us-east-1a", "p4d.24xlarge", "0.000000", "2025-05-30T12:00:00+00:00")]})},
         error=r"prices/aws-spot-us-east-1-2025-06-01\.json:\$\.SpotPriceHistory\[0\]\.SpotPrice: spot price is zero")
    item = azure_item("Standard_ND96asr_v4", "ND96asr A100 v4", "Virtual Machines NDasrA100v4 Series", 350000.0,
                      "2025-06-01T00:00:00Z", type_="Reservation", reservationTerm="5 Years")
    case("prices_azure_reservation_term", "an Azure reservation of a term Azure does not sell for VMs (5 Years)",
         {"prices/azure-eastus-2025-06-01.json": json.dumps({"BillingCurrency": "USD", "CustomerEntityId": "Default",
                                                            "CustomerEntityType": "Retail", "Items": [item],
                                                            "NextPageLink": None, "Count": 1})},
         error=r"prices/azure-eastus-2025-06-01\.json:\$\.Items\[0\]\.reservationTerm: reservation term '5 Years' "
               r"is not one of 1 Year, 3 Years")
    sku = gcp_sku("A2C0-0000-0009", "Commitment v1: A2 Cpu in Americas for 3 Years", 0.014225, group="CPU",
                  usage_type="Commit1Yr", effective="2025-06-01T08:00:00Z")
    case("prices_gcp_commitment_term_mismatch", "a GCP commitment SKU whose usage type (1 year) and description (3 years) disagree",
         {"prices/gcp-us-central1-2025-06-01.json": json.dumps({"skus": [sku], "nextPageToken": ""})},
         error=r"prices/gcp-us-central1-2025-06-01\.json:\$\.skus\[0\]\.category\.usageType: usage type Commit1Yr "
               r"disagrees with the description's term")
    case("prices_spot_range_excludes_price", "a spot price outside the zones' range it claims to stand for",
         {"prices/spot_2025-06-01.csv": "provider,region,instance_type,usd_per_hour,as_of,source,pricing_model,"
                                        "zone_count,zone_min_usd_per_hour,zone_max_usd_per_hour\n"
                                        "aws,us-east-1,p4d.24xlarge,9.9,2025-06-01,AWS spot,spot,3,10.1,10.2\n"},
         error=r"prices/spot_2025-06-01\.csv:2 column zone_min_usd_per_hour: the zones' range 10\.1-10\.2 does not "
               r"contain the price 9\.9")


_provider_pricing_cases()

case("prices_negative", "a negative price", {PRICES: replace_line(PRICES, 2, P4D.format(price="-21.96", date="2025-06-01"))},
     error=PRICES_RE + r":2 column usd_per_hour: .*negative")
case("prices_zero", "a price of zero (someone forgot the price)", {PRICES: replace_line(PRICES, 2, P4D.format(price="0", date="2025-06-01"))},
     error=PRICES_RE + r":2 column usd_per_hour: price is zero")
case("prices_nan", "a price of NaN", {PRICES: replace_line(PRICES, 2, P4D.format(price="nan", date="2025-06-01"))},
     error=PRICES_RE + r":2 column usd_per_hour: .*not a finite number")
case("prices_infinite", "an infinite price", {PRICES: replace_line(PRICES, 2, P4D.format(price="inf", date="2025-06-01"))},
     error=PRICES_RE + r":2 column usd_per_hour: .*not a finite number")
case("prices_absurd", "a price per month entered as per hour (above the sanity bound)",
     {PRICES: replace_line(PRICES, 2, P4D.format(price="16029.08", date="2025-06-01"))},
     error=PRICES_RE + r":2 column usd_per_hour: .*absurd")
case("prices_currency_eur", "a snapshot priced in EUR (currency column)",
     {PRICES: "provider,region,instance_type,usd_per_hour,as_of,source,currency\n"
              "aws,us-east-1,p4d.24xlarge,20.1,2025-06-01,list,EUR\n"},
     error=PRICES_RE + r":2 column currency: currency 'EUR' is not USD")
case("prices_date_not_a_date", "an as_of that is not a date (month 13)",
     {PRICES: replace_line(PRICES, 2, P4D.format(price="21.957642", date="2025-13-01"))},
     error=PRICES_RE + r":2 column as_of: date '2025-13-01' is not a date")
case("prices_date_future", "an as_of in the future",
     {PRICES: replace_line(PRICES, 2, P4D.format(price="21.957642", date="2999-06-01"))},
     error=PRICES_RE + r":2 column as_of: date 2999-06-01 is in the future")
case("prices_duplicate_conflict", "the same instance, region and date priced twice with different prices",
     {PRICES: raw(PRICES) + P4D.format(price="23.10", date="2025-06-01") + "\n"},
     error=PRICES_RE + r":(2|10).*(21\.957642|23\.1)")
case("prices_wrong_field_count", "a row with a field too many (an unquoted comma in the source)",
     {PRICES: replace_line(PRICES, 3, "aws,us-east-1,p5.48xlarge,55.04,2025-06-01,list price, after the cut,exact")},
     error=PRICES_RE + r":3: has 8 fields, the header has 7")
case("prices_unknown_provider", "a provider that is not a provider name (any lower-case name is one)",
     {PRICES: replace_line(PRICES, 2, "oracle cloud,us-ashburn-1,BM.GPU4.8,27.2,2025-06-01,list,exact")},
     error=PRICES_RE + r":2 column provider: provider 'oracle cloud' is not a provider name")
case("prices_non_utf8", "a snapshot in Latin-1 (a byte that is not UTF-8 on line 3)",
     {PRICES: raw(PRICES).encode("utf-8").replace(b"p5.48xlarge,55.04,2025-06-01,AWS", b"p5.48xlarge,55.04,2025-06-01,AWS \xe9")},
     error=PRICES_RE + r":3: is not UTF-8")
case("prices_invalid_json", "a provider price list (JSON) cut off mid-document",
     {"prices/aws_price_list_2025-06-01.json": '{"formatVersion": "v1.0", "offerCode": "AmazonEC2", "products": {"ABC": {"sku": "AB'},
     error=r"prices/aws_price_list_2025-06-01\.json:1: is not valid JSON")
case("prices_fifo", "a FIFO in the prices folder (reading it would block forever)",
     special={"prices/on_demand_2025-07-01.csv": "fifo"},
     error=r"prices/on_demand_2025-07-01\.csv: is not a regular file")
case("prices_dangling_symlink", "a snapshot that is a symbolic link to a file that is gone",
     special={"prices/on_demand_2025-07-01.csv": "dangling_symlink"},
     error=r"prices/on_demand_2025-07-01\.csv: is a dangling symbolic link")
case("prices_extra_column", "an extra column (region_name) in a snapshot: accepted",
     {PRICES: "".join(l.rstrip("\n") + (",region_name\n" if i == 0 else ",US East (N. Virginia)\n")
                      for i, l in enumerate(lines(PRICES)))},
     accepted=True)
case("prices_bom_crlf", "a snapshot saved by a spreadsheet: byte-order mark and CRLF line ends: accepted",
     {PRICES: ("\ufeff" + raw(PRICES).replace("\n", "\r\n")).encode("utf-8")}, accepted=True)

# ---- instances.csv ----------------------------------------------------------------------------
INST = "instances.csv"
INST_RE = r"instances\.csv"
# the p3.16xlarge row of raw/instances.csv; its last two fields, the fabric, are empty
P3 = "aws,p3.16xlarge,NVIDIA V100-SXM2-16GB,{count},16,{vcpus},488,,V100-SXM2-16GB,instance,,"
case("instances_empty", "instances.csv is an empty file", {INST: ""}, error=INST_RE + r":1: is empty")
case("instances_header_only", "instances.csv with a header and no rows", {INST: lines(INST)[0]},
     error=INST_RE + r":2: has a header but no rows")
case("instances_missing_column", "the vcpus column left out",
     {INST: "".join(",".join(c for j, c in enumerate(l.rstrip("\n").split(",")) if j != 5) + "\n" for l in lines(INST))},
     error=INST_RE + r":1: missing column\(s\) vcpus")
case("instances_misspelled_column", "accelerator misspelled acelerator",
     {INST: edit(INST, "instance_type,accelerator,", "instance_type,acelerator,")},
     error=INST_RE + r":1: missing column\(s\) accelerator;")
case("instances_non_numeric", "accelerator_count written as a word", {INST: replace_line(INST, 4, P3.format(count="eight", vcpus=64))},
     error=INST_RE + r":4 column accelerator_count: 'eight' is not a whole number")
case("instances_negative", "negative vcpus", {INST: replace_line(INST, 4, P3.format(count=8, vcpus=-64))},
     error=INST_RE + r":4 column vcpus: -64 must be greater than zero")
case("instances_zero", "zero accelerators", {INST: replace_line(INST, 4, P3.format(count=0, vcpus=64))},
     error=INST_RE + r":4 column accelerator_count: 0 must be greater than zero")
case("instances_nan", "memory_gib of NaN",
     {INST: replace_line(INST, 4, "aws,p3.16xlarge,NVIDIA V100-SXM2-16GB,8,16,64,nan,,V100-SXM2-16GB,instance,,")},
     error=INST_RE + r":4 column memory_gib: 'nan' is not a number")
case("instances_int_overflow", "a count too large for a 64-bit integer",
     {INST: replace_line(INST, 4, P3.format(count=8, vcpus=10**20))},
     error=INST_RE + r":4 column vcpus: '100000000000000000000' is not a whole number")
case("instances_duplicate_key", "the same instance listed twice with different accelerators",
     {INST: raw(INST) + "aws,p3.16xlarge,NVIDIA V100-SXM2-32GB,8,32,64,488,,V100-SXM2-32GB,instance,,\n"},
     error=INST_RE + rf":{len(lines(INST)) + 1}: duplicate key \(provider=aws, instance_type=p3\.16xlarge\) also on line\(s\) 4")
case("instances_unknown_provider", "a provider in capitals ('AWS')", {INST: replace_line(INST, 4, "AWS,p3.16xlarge,NVIDIA V100-SXM2-16GB,8,16,64,488,,V100-SXM2-16GB,instance,,")},
     error=INST_RE + r":4 column provider: provider 'AWS' is not a provider name: lower-case letters and digits")
case("instances_short_row", "a row with a field missing", {INST: replace_line(INST, 4, "aws,p3.16xlarge,NVIDIA V100-SXM2-16GB,8,16,64,488,,V100-SXM2-16GB,instance,")},
     error=INST_RE + r":4: has 11 fields, the header has 12")
case("instances_unclosed_quote", "a quote opened and never closed: the rest of the file is one cell",
     {INST: replace_line(INST, 4, 'aws,p3.16xlarge,"NVIDIA V100-SXM2-16GB,8,16,64,488,')},
     error=INST_RE + r":\d+: (is not valid CSV|has \d+ fields)")
case("instances_directory", "instances.csv is a directory", special={INST: "directory"},
     error=INST_RE + r": is a directory, expected a file")
case("instances_fifo", "instances.csv is a FIFO (a plain read would wait forever for a writer)", special={INST: "fifo"},
     error=INST_RE + r": is not a regular file")
case("instances_dangling_symlink", "instances.csv is a symbolic link to a missing file (unreadable; tests run as "
     "root, so chmod 000 cannot make a file unreadable)", special={INST: "dangling_symlink"},
     error=INST_RE + r": is a dangling symbolic link")
case("instances_symlink_loop", "instances.csv is a symbolic link to itself", special={INST: "symlink_loop"},
     error=INST_RE + r": is a symbolic link loop")
case("instances_missing", "instances.csv deleted", remove=[INST], error=INST_RE + r": is missing")
case("instances_extra_column_blank_lines", "an extra column (family) and blank lines: accepted",
     {INST: "".join(l.rstrip("\n") + (",family\n" if i == 0 else ",accelerated\n\n") for i, l in enumerate(lines(INST)))},
     accepted=True)
case("instances_unknown_accelerator_model", "an instance linked to an accelerator model the catalog does not have",
     {INST: replace_line(INST, 4, P3.format(count=8, vcpus=64).replace(",V100-SXM2-16GB,", ",V100-SXM9-16GB,"))},
     error=INST_RE + r":4 column accelerator_model: 'V100-SXM9-16GB' is no cloud_model of the accelerator catalog")
case("instances_bad_billing", "billing neither instance nor chip",
     {INST: replace_line(INST, 4, P3.format(count=8, vcpus=64).replace(",instance,", ",hourly,"))},
     error=INST_RE + r":4 column billing: 'hourly' is not one of instance, chip")
case("instances_no_vcpus", "an instance billed per instance without its vCPU count (the GCP composer needs it)",
     {INST: replace_line(INST, 4, P3.format(count=8, vcpus=""))},
     error=INST_RE + r":4 column vcpus: is empty")

# ---- accelerators.csv (the accelerator catalog) ---------------------------------------------------
ACC = "accelerators.csv"
ACC_RE = r"accelerators\.csv"
# no accelerators_missing case: a data set without accelerators.csv uses the project's catalog
case("accelerators_bad_regex", "a name_regex that is not a regular expression",
     {ACC: edit(ACC, "A100-PCIe-80GB,NVIDIA,a100 .*pcie.*80,", "A100-PCIe-80GB,NVIDIA,a100 (pcie,")},
     error=ACC_RE + r":2 column name_regex: invalid regular expression")
case("accelerators_missing_column", "the cloud_model column left out",
     {ACC: edit(ACC, "memory_gb,cloud_model,assumption", "memory_gb,assumption").replace(",A100-SXM-80GB,runs", ",runs")},
     error=ACC_RE + r":1: missing column\(s\) cloud_model")

# ---- mappings.csv -----------------------------------------------------------------------------
MAP = "mappings.csv"
MAP_RE = r"mappings\.csv"
case("mappings_missing_column", "the benchmark column left out",
     {MAP: "".join(",".join(c for j, c in enumerate(l.rstrip("\n").split(",", 4)) if j != 2) + "\n" for l in lines(MAP))},
     error=MAP_RE + r":1: missing column\(s\) benchmark")
case("mappings_duplicate_key", "one instance and benchmark mapped to two different systems",
     {MAP: raw(MAP) + "aws,p4d.24xlarge,resnet,dgxa100_ngc21.09_mxnet,the v1.1 DGX A100\n"},
     error=MAP_RE + rf":{len(lines(MAP)) + 1}: duplicate key \(provider=aws, instance_type=p4d\.24xlarge, benchmark=resnet\) also on line\(s\) 2")
case("mappings_instance_without_mapping", "a compared instance with no mapping for bert, and no instance with its "
     "accelerators (8x V100 32 GB) has one to derive it from (both rows deleted)",
     {MAP: "".join(l for l in lines(MAP)
                   if not l.startswith(("aws,p3dn.24xlarge,bert,", "azure,Standard_ND40rs_v2,bert,")))},
     error=r"report\.toml:comparisons\[0\]\.instances\[1\]: aws/p3dn\.24xlarge has no row for benchmark bert in mappings\.csv")
case("mappings_system_without_results", "a mapping to a system that has no results (a typo of its version)",
     {MAP: edit(MAP, "aws,p3.16xlarge,resnet,dgx1_ngc20.06_mxnet,", "aws,p3.16xlarge,resnet,dgx1_ngc99.99_mxnet,")},
     error=MAP_RE + r":11 column system: unknown system 'dgx1_ngc99\.99_mxnet'; did you mean 'dgx1_ngc20\.06_mxnet'\? "
                    r"\(known systems: .*\)")
case("mappings_known_system_without_result", "a mapping to a system with a systems JSON but no result for the benchmark",
     {MAP: edit(MAP, "aws,p3.16xlarge,resnet,dgx1_ngc20.06_mxnet,", "aws,p3.16xlarge,resnet,dgxa100_ngc21.05_pytorch,")},
     error=MAP_RE + r":11: system dgxa100_ngc21\.05_pytorch \(for aws/p3\.16xlarge, resnet\) has no resnet result")
case("mappings_unknown_benchmark", "a mapping naming a benchmark that MLPerf never had (resnet50)",
     {MAP: edit(MAP, "aws,p3.16xlarge,resnet,", "aws,p3.16xlarge,resnet50,")},
     error=MAP_RE + r":11 column benchmark: unknown benchmark 'resnet50'; did you mean 'resnet'\? \(known benchmarks: .*\)")
case("mappings_non_utf8", "a note in Windows-1252 (a byte that is not UTF-8)",
     {MAP: raw(MAP).encode("utf-8").replace(b"exact: 8x V100-SXM2-16GB", b"exact: 8\xd7 V100-SXM2-16GB", 1)},
     error=MAP_RE + r":11: is not UTF-8")
case("mappings_bom_crlf", "mappings.csv with a byte-order mark and CRLF line ends: accepted",
     {MAP: ("\ufeff" + raw(MAP).replace("\n", "\r\n")).encode("utf-8")}, accepted=True)

# ---- results: MLPerf result-summarizer CSV ------------------------------------------------------
RES = "results/mlperf_training_v1.0_summary.csv"
RES_RE = r"results/mlperf_training_v1\.0_summary\.csv"


def result_cell(value: str) -> str:
    """v1.0 summary with the Gaudi row's resnet minutes (62.55...) replaced by `value`."""
    return edit(RES, ",62.55155555555556,", f",{value},")


case("results_empty", "an empty summarizer CSV", {RES: ""}, error=RES_RE + r":1: is empty")
case("results_header_only", "a summarizer CSV with only its header", {RES: lines(RES)[0]},
     error=RES_RE + r":2: has a header but no rows")
case("results_not_summarizer", "a CSV without the summarizer's private_id column",
     {RES: edit(RES, "notes,private_id,", "notes,")}, error=RES_RE + r":1: is not an MLPerf result-summarizer CSV")
case("results_non_numeric", "minutes written as text", {RES: result_cell("62 min")},
     error=RES_RE + r":2 column resnet: '62 min' is not a number")
case("results_negative", "negative minutes", {RES: result_cell("-62.5")},
     error=RES_RE + r":2 column resnet: -62\.5 is not a positive time in minutes")
case("results_zero", "zero minutes", {RES: result_cell("0")},
     error=RES_RE + r":2 column resnet: 0\.0 is not a positive time in minutes")
case("results_infinite", "infinite minutes", {RES: result_cell("inf")},
     error=RES_RE + r":2 column resnet: 'inf' is not a number")
case("results_wrong_field_count", "a row with one field missing", {RES: edit(RES, ",62.55155555555556,", ",")},
     error=RES_RE + r":2: has 21 fields, the header has 22")
case("results_directory", "a folder named like a summarizer CSV", special={"results/mlperf_training_v2.0_summary.csv": "directory"},
     error=r"results/mlperf_training_v2\.0_summary\.csv: is a directory")
case("results_symlink_loop", "a summarizer CSV that is a symbolic link to itself",
     special={"results/mlperf_training_v2.0_summary.csv": "symlink_loop"},
     error=r"results/mlperf_training_v2\.0_summary\.csv: is a dangling symbolic link or a symbolic link loop")
case("results_crlf", "a summarizer CSV with CRLF line ends: accepted", {RES: raw(RES).replace("\n", "\r\n")}, accepted=True)

# ---- throughput CSV ---------------------------------------------------------------------------
THR = "throughput/mlperf_logged_throughput.csv"
THR_RE = r"throughput/mlperf_logged_throughput\.csv"
case("throughput_negative", "negative samples per second", {THR: edit(THR, ",26675.98,", ",-26675.98,")},
     error=THR_RE + r":2 column samples_per_second: -26675\.98 must be greater than zero")
case("throughput_date_not_a_date", "measured_on in day/month/year", {THR: edit(THR, ",2021-05-15", ",15/05/2021")},
     error=THR_RE + r":2 column measured_on: '15/05/2021' is not a date")
case("throughput_date_future", "measured_on in the future", {THR: edit(THR, ",2021-05-15", ",2999-05-15")},
     error=THR_RE + r":2 column measured_on: date 2999-05-15 lies in the future")
case("throughput_missing_column", "the source column left out",
     {THR: "system,benchmark,samples_per_second,framework,precision,global_batch_size,measured_on\n"
           "dgxa100_ngc21.05_mxnet,resnet,26675.98,MXNet,fp16,3264,2021-05-15\n"},
     error=THR_RE + r":1: missing column\(s\) source")
case("throughput_duplicate", "the same system and benchmark measured twice",
     {THR: raw(THR) + lines(THR)[1].replace("26675.98", "25000")},
     error=THR_RE + r":3: duplicate key \(system=dgxa100_ngc21\.05_mxnet, benchmark=resnet\) also on line\(s\) 2")

# a team's own workload (throughput/example_workload.csv): every name is checked, near misses named
OWN = "throughput/example_workload.csv"
OWN_RE = r"throughput/example_workload\.csv"
case("throughput_unknown_system", "a throughput row naming an instance with a typo (p4d.24xlarg)",
     {OWN: edit(OWN, "aws/p4d.24xlarge,", "aws/p4d.24xlarg,")},
     error=OWN_RE + r":2 column system: unknown system 'aws/p4d\.24xlarg'; did you mean 'aws/p4d\.24xlarge'\? "
                    r"\(known systems: .*\)")
case("throughput_unknown_benchmark", "a throughput row naming a workload with a typo (resnet_inhose)",
     {OWN: edit(OWN, "aws/p3.16xlarge,resnet_inhouse,", "aws/p3.16xlarge,resnet_inhose,")},
     error=OWN_RE + r":3 column benchmark: unknown benchmark 'resnet_inhose'; did you mean 'resnet_inhouse'\? "
                    r"\(known benchmarks: bert, .*\)")

# ---- systems JSON -----------------------------------------------------------------------------
SYS = "systems/dgx1_ngc20.06_mxnet.json"
SYS_RE = r"systems/dgx1_ngc20\.06_mxnet\.json"
case("systems_invalid_json", "a systems JSON with a trailing comma", {SYS: edit(SYS, '"operating_system"', '"operating_system",,')},
     error=SYS_RE + r":line \d+ column \d+: invalid JSON")
case("systems_missing_fields", "a systems JSON without number_of_nodes",
     {SYS: json.dumps({k: v for k, v in json.loads(raw(SYS)).items() if k != "number_of_nodes"}, indent=2)},
     error=SYS_RE + r":\$\.number_of_nodes: missing count")
case("systems_not_object", "a systems JSON that is a list", {SYS: "[" + raw(SYS) + "]"},
     error=SYS_RE + r":\$: expected a JSON object, got list")
case("systems_non_utf8", "a systems JSON in Latin-1", {SYS: raw(SYS).replace("Ubuntu 18.04.3 LTS", "Ubuntu 18.04.3 LTS \u00e9").encode("latin-1")},
     error=SYS_RE + r":byte \d+: systems JSON is not UTF-8")
case("systems_bom", "a systems JSON with a byte-order mark: accepted", {SYS: ("\ufeff" + raw(SYS)).encode("utf-8")},
     accepted=True)

# ---- report.toml ------------------------------------------------------------------------------
TOML = "report.toml"
TOML_RE = r"report\.toml"
case("toml_syntax_error", "report.toml with an unclosed string on line 3",
     {TOML: edit(TOML, 'subtitle = "MLPerf Training results', 'subtitle = "MLPerf Training results\n#')},
     error=TOML_RE + r":3: is not valid TOML")
case("toml_baseline_not_in_comparison", "a baseline that is not one of its comparison's instances",
     {TOML: edit(TOML, 'baseline = "aws/p3.16xlarge"', 'baseline = "aws/p5.48xlarge"')},
     error=TOML_RE + r":comparisons\[0\]\.baseline: aws/p5\.48xlarge is not one of the comparison's instances")
case("toml_missing_title", "report.toml without a title", {TOML: edit(TOML, 'title = "Cost to train on cloud accelerators"\n', "")},
     error=TOML_RE + r":title: is missing")
case("toml_unknown_benchmark", "a comparison benchmark that the report does not list",
     {TOML: edit(TOML, 'benchmarks = ["resnet", "bert"]', 'benchmarks = ["resnet", "gpt3"]')},
     error=TOML_RE + r":comparisons\[1\]\.benchmarks: gpt3 not in the report's benchmarks")
case("toml_report_benchmark_unknown", "a report benchmark that MLPerf never had (resnet50)",
     {TOML: edit(TOML, 'benchmarks = ["resnet", "bert", "dlrm", "llama2', 'benchmarks = ["resnet50", "bert", "dlrm", "llama2')},
     error=TOML_RE + r":benchmarks\[0\]: unknown benchmark 'resnet50'; did you mean 'resnet'\? \(known benchmarks: bert, .*\)")
case("toml_comparison_workload_typo", "a comparison naming its workload with a typo (resnet_inhose)",
     {TOML: edit(TOML, 'benchmarks = ["resnet_inhouse"]', 'benchmarks = ["resnet_inhose"]')},
     error=TOML_RE + r":comparisons\[3\]\.benchmarks: resnet_inhose not in the report's benchmarks \(resnet, bert, .*\) "
                     r"nor a workload \(\[workloads\]: resnet_inhouse\); did you mean 'resnet_inhouse'\?")
case("toml_workload_samples_zero", "a workload of 0 samples",
     {TOML: edit(TOML, "samples = 115_305_030", "samples = 0")},
     error=TOML_RE + r":workloads\.resnet_inhouse\.samples: 0 must be a positive number of training samples")
case("toml_workload_named_like_mlperf", "a workload named like an MLPerf benchmark (bert)",
     {TOML: edit(TOML, "[workloads.resnet_inhouse]", "[workloads.bert]")},
     error=TOML_RE + r":workloads\.bert: 'bert' is an MLPerf benchmark; name the workload otherwise")
case("toml_price_date_not_a_date", "price_date 2022-02-30",
     {TOML: edit(TOML, '# price_date = "2022-02-08"', 'price_date = "2022-02-30"')},
     error=TOML_RE + r":price_date: '2022-02-30' is not a date")
case("toml_price_date_future", "price_date in the future",
     {TOML: edit(TOML, '# price_date = "2022-02-08"', 'price_date = 2999-01-01')},
     error=TOML_RE + r":price_date: 2999-01-01 lies in the future")
case("toml_instance_without_price", "a region with no prices for any compared AWS instance",
     {TOML: edit(TOML, 'aws = "us-east-1"', 'aws = "us-west-2"')},
     error=TOML_RE + r":comparisons\[0\]\.instances\[0\]: aws/p4d\.24xlarge is priced in region 'us-west-2', where prices/ "
           r"has no aws price.* \(regions with aws prices: .*us-east-1.*\)")
case("toml_instance_not_in_instances", "a compared instance that instances.csv does not list",
     {TOML: edit(TOML, '"aws/dl1.24xlarge", ', '"aws/dl2q.24xlarge", ')},
     error=TOML_RE + r":comparisons\[1\]\.instances\[0\]: unknown instance 'aws/dl2q\.24xlarge'.* \(known instances: "
           r".*\); the instances are the rows of instances\.csv")
case("toml_bad_instance_form", "an instance without its provider",
     {TOML: edit(TOML, '"aws/dl1.24xlarge", ', '"dl1.24xlarge", ')},
     error=TOML_RE + r":comparisons\[1\]\.instances\[0\]: 'dl1\.24xlarge' is not of the form provider/instance_type")
case("toml_missing", "report.toml deleted", remove=[TOML], error=TOML_RE + r": is missing")
# the report's own benchmarks line (the top-level keys follow it; the comparisons have their own lists)
PRICING_AT = next(line for line in lines(TOML) if line.startswith("benchmarks = "))
case("toml_pricing_option_unknown", "pricing_models with a 2-year reserved instance, which no provider sells",
     {TOML: edit(TOML, PRICING_AT, PRICING_AT + 'pricing_models = ["on_demand", "reserved_2y"]\n')},
     error=TOML_RE + r":pricing_models\[1\]: 'reserved_2y' is not a pricing option")
case("toml_baseline_pricing_not_shown", "baseline_pricing that is not one of pricing_models",
     {TOML: edit(TOML, PRICING_AT, PRICING_AT + 'pricing_models = ["on_demand", "spot"]\nbaseline_pricing = "commitment_1y"\n')},
     error=TOML_RE + r":baseline_pricing: commitment_1y is not one of pricing_models")
case("toml_discount_percent_out_of_range", "a discount of 112 percent",
     {TOML: raw(TOML) + '\n[[discounts]]\nprovider = "aws"\npricing_model = "on_demand"\npercent = 112\n'},
     error=TOML_RE + r":discounts\[0\]\.percent: 112 must be a number above 0 and below 100")
case("toml_discount_unknown_model", "a discount off a pricing model that does not exist",
     {TOML: raw(TOML) + '\n[[discounts]]\nprovider = "aws"\npricing_model = "enterprise"\npercent = 12\n'},
     error=TOML_RE + r":discounts\[0\]\.pricing_model: 'enterprise' is not one of on_demand, spot, reserved")
case("toml_stale_after_days_negative", "stale_after_days below zero",
     {TOML: edit(TOML, PRICING_AT, PRICING_AT + 'stale_after_days = -1\n')},
     error=TOML_RE + r":stale_after_days: -1 must be a whole number of days")
case("toml_mlperf_tree_missing", "mlperf_trees naming a folder that does not exist",
     {TOML: edit(TOML, PRICING_AT, PRICING_AT + 'mlperf_trees = ["trees/training_results_v1.0"]\n')},
     error=r"trees/training_results_v1\.0: MLPerf results folder not found")


# ---- MLPerf result trees under RAW_DIR/mlperf/ ---------------------------------------------------
def _tree_case() -> None:
    from mlperf_fixtures import SYSTEM_DEFAULTS, run_log, truncated_line

    tree = "mlperf/training_results_v1.0/ExampleCorp"
    system_json = json.dumps({**SYSTEM_DEFAULTS, "submitter": "ExampleCorp"}, indent=4)
    cut = {f"{tree}/results/cut_sys/resnet/result_{i}.txt": truncated_line(30.0 + i) for i in range(5)}
    case("mlperf_log_cut_mid_line",
         "an MLPerf result tree whose five resnet logs are each cut off mid-line, for the system mapped to p4d: "
         "every run is dropped (as the official summarizer does), so the mapping has no result",
         {**cut, f"{tree}/systems/cut_sys.json": system_json,
          MAP: edit(MAP, "aws,p4d.24xlarge,resnet,dgxa100_ngc21.05_mxnet,", "aws,p4d.24xlarge,resnet,cut_sys,")},
         error=MAP_RE + r":2: system cut_sys \(for aws/p4d\.24xlarge, resnet\) has no resnet result",
         runs_reason=r"line \d+: cut off or invalid JSON")
    good = {f"{tree}/results/sys_a/resnet/result_{i}.txt": run_log(minutes=30.0 + i) for i in range(5)}
    case("mlperf_no_systems_json", "an MLPerf result tree with results for a system that has no systems JSON", good,
         error=r"mlperf/training_results_v1\.0/ExampleCorp/results/sys_a: no systems JSON for this system")
    case("mlperf_unknown_round", "an MLPerf result tree whose folder does not name its round",
         {k.replace("training_results_v1.0", "results_latest"): v for k, v in good.items()}
         | {"mlperf/results_latest/ExampleCorp/systems/sys_a.json": system_json},
         error=r"mlperf/results_latest: cannot tell the MLPerf round")
    case("mlperf_systems_json_missing_fields", "a tree's systems JSON without accelerators_per_node",
         good | {f"{tree}/systems/sys_a.json": json.dumps(
             {k: v for k, v in SYSTEM_DEFAULTS.items() if k != "accelerators_per_node"}, indent=4)},
         error=r"mlperf/training_results_v1\.0/ExampleCorp/systems/sys_a\.json:\$\.accelerators_per_node: missing count")
    case("mlperf_bad_scaling", "a scaling.json whose factor is not a number",
         good | {f"{tree}/systems/sys_a.json": system_json,
                 f"{tree}/results/sys_a/resnet/scaling.json": '{"scaling_factor": "x2"}'},
         error=r"mlperf/training_results_v1\.0/ExampleCorp/results/sys_a/resnet/scaling\.json:\$\.scaling_factor")


_tree_case()


def _toml_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


# Cases written by hand (their files are committed as they are, not made here): the writer leaves them alone
HAND_MADE = {"prices_skypilot_folder_collision", "prices_skypilot_gpuinfo_not_literal", "prices_skypilot_negative",
             "prices_skypilot_no_header", "prices_skypilot_non_numeric", "prices_skypilot_placeholder",
             "toml_instance_typo"}


def write() -> None:
    names = {c["name"] for c in CASES}
    assert len(names) == len(CASES), "duplicate case names"
    assert not names & HAND_MADE, "a hand-made case is also written here"
    for old in HERE.iterdir():
        if old.is_dir() and (old / "case.toml").exists() and old.name not in names | HAND_MADE:
            shutil.rmtree(old)
    for c in CASES:
        folder = HERE / c["name"]
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        out = [f"description = {_toml_string(c['description'])}"]
        if c["accepted"]:
            out.append("accepted = true")
        else:
            out.append(f"error = {_toml_string(c['error'])}")
        if c["remove"]:
            out.append(f"remove = {json.dumps(c['remove'])}")
        if c["runs_reason"]:
            out.append(f"runs_reason = {_toml_string(c['runs_reason'])}")
        if c["special"]:
            out.append("[special]")
            out += [f"{_toml_string(k)} = {_toml_string(v)}" for k, v in c["special"].items()]
        (folder / "case.toml").write_text("\n".join(out) + "\n", encoding="utf-8")
        for rel, content in c["files"].items():
            target = folder / "raw" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    print(f"{len(CASES)} cases ({sum(c['accepted'] for c in CASES)} accepted) in {HERE}")


if __name__ == "__main__":
    write()
