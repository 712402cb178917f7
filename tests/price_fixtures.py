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


# --- AWS Price List CSV and JSON ----------------------------------------------------------------

from pipelines.ingest.prices.aws_columns import HEADER_2025  # noqa: E402

_AWS_DISCLAIMER = (
    "This pricing list is for informational purposes only. All prices are subject to the additional "
    "terms included in the pricing pages on http://aws.amazon.com. All Free Tier prices are also "
    "subject to the terms included at https://aws.amazon.com/free/"
)


# Reserved terms as AWS codes them: the OfferTermCode of each (lease, offering class, purchase
# option) is the same for every SKU (ec2instances.info's scraper keeps the same table).
RESERVED_TERMS = {
    "4NA7Y494T4": ("1yr", "standard", "No Upfront"), "HU7G6KETJZ": ("1yr", "standard", "Partial Upfront"),
    "6QCMYABX3D": ("1yr", "standard", "All Upfront"), "BPH4J8HBKS": ("3yr", "standard", "No Upfront"),
    "38NPMPTW36": ("3yr", "standard", "Partial Upfront"), "NQ3QZPMQV9": ("3yr", "standard", "All Upfront"),
    "7NE97W5U4E": ("1yr", "convertible", "No Upfront"), "CUZHX8X6JH": ("1yr", "convertible", "Partial Upfront"),
    "VJWZNREJX2": ("1yr", "convertible", "All Upfront"), "Z2E3P23VKM": ("3yr", "convertible", "No Upfront"),
    "R5XV2EPZQZ": ("3yr", "convertible", "Partial Upfront"), "MZU6U2429S": ("3yr", "convertible", "All Upfront"),
}
HOURLY_RATE = "6YS6EN2CT7"  # the rate code suffix of an Hrs dimension
UPFRONT_RATE = "2TG2D8R56U"  # ... and of an "Upfront Fee" dimension

# p4d.24xlarge reserved terms of the 2025 fixture: term code -> (upfront USD, recurring USD/h),
# chosen so that every effective rate is easy to check by hand (tests/test_prices_aws.py).
P4D_RESERVED_2025 = {
    "4NA7Y494T4": (0, 13.448), "HU7G6KETJZ": (57000, 6.5), "6QCMYABX3D": (111690, 0),
    "BPH4J8HBKS": (0, 9.8), "38NPMPTW36": (105120, 4.0), "NQ3QZPMQV9": (197100, 0),
    "7NE97W5U4E": (0, 15.86), "CUZHX8X6JH": (70080, 7.8), "VJWZNREJX2": (135780, 0),
    "Z2E3P23VKM": (0, 11.0), "R5XV2EPZQZ": (131400, 5.2), "MZU6U2429S": (262800, 0),
}


def _sku(instance_type: str, tag: str = "") -> str:
    return ("".join(ch for ch in instance_type.upper() if ch.isalnum())[:10] + tag).ljust(13, "X")[:13] + "SKU"


def aws_row(instance_type: str, price: str, sku_tag: str = "", **changes: str) -> dict[str, str]:
    """A plain Linux on-demand row of the bulk CSV; `changes` (by column name) make decoys.

    `sku_tag` gives a decoy product its own SKU, as the real file does for every variant.
    """
    sku = _sku(instance_type, sku_tag)
    usage = changes.pop("usageType", f"BoxUsage:{instance_type}")
    row = {name: "" for name in HEADER_2025}
    row.update({
        "SKU": sku, "OfferTermCode": "JRTCKXETXF", "RateCode": f"{sku}.JRTCKXETXF.{HOURLY_RATE}",
        "TermType": "OnDemand",
        "PriceDescription": f"${price} per On Demand Linux {instance_type} Instance Hour",
        "EffectiveDate": "2025-06-01", "StartingRange": "0", "EndingRange": "Inf", "Unit": "Hrs",
        "PricePerUnit": price, "Currency": "USD", "Product Family": "Compute Instance",
        "serviceCode": "AmazonEC2", "Location": "US East (N. Virginia)", "Location Type": "AWS Region",
        "Instance Type": instance_type, "Current Generation": "Yes", "Instance Family": "GPU instance",
        "vCPU": "96", "Memory": "1152 GiB", "Tenancy": "Shared", "Operating System": "Linux",
        "License Model": "No License required", "usageType": usage, "operation": "RunInstances",
        "AvailabilityZone": "NA", "CapacityStatus": "Used", "MarketOption": "OnDemand",
        "Pre Installed S/W": "NA", "Region Code": "us-east-1",
        "serviceName": "Amazon Elastic Compute Cloud", "VPCNetworkingSupport": "true",
    })
    for name, value in changes.items():
        row[name.replace("_", " ") if name.replace("_", " ") in row else name] = value
    return row


def aws_reserved_rows(instance_type: str, terms: dict[str, tuple[float, float]], sku_tag: str = "",
                      **changes: str) -> list[dict[str, str]]:
    """The reserved rows of one product, as the bulk CSV lists them: per term an Hrs row and, unless
    No Upfront, an "Upfront Fee" row of Unit Quantity, both on the product's SKU and term code."""
    rows = []
    for code, (upfront, hourly) in terms.items():
        lease, offering, purchase = RESERVED_TERMS[code]
        term = {"TermType": "Reserved", "OfferTermCode": code, "LeaseContractLength": lease,
                "OfferingClass": offering, "PurchaseOption": purchase, "EffectiveDate": "2025-04-01"}
        hours = aws_row(instance_type, f"{hourly:.10f}", sku_tag, **changes)
        sku = hours["SKU"]
        hours.update(term, RateCode=f"{sku}.{code}.{HOURLY_RATE}",
                     PriceDescription=f"Linux/UNIX (Amazon VPC), {instance_type} reserved instance applied")
        rows.append(hours)
        if purchase != "No Upfront":
            fee = aws_row(instance_type, f"{upfront:g}", sku_tag, **changes)
            fee.update(term, RateCode=f"{sku}.{code}.{UPFRONT_RATE}", PriceDescription="Upfront Fee",
                       Unit="Quantity", StartingRange="", EndingRange="")
            rows.append(fee)
    return rows


def aws_decoys(instance_type: str, price: str) -> list[dict[str, str]]:
    """Every row kind of the bulk file that is not the plain Linux price of the instance."""
    p = float(price)
    windows = {"Operating System": "Windows", "operation": "RunInstances:0002"}
    dedicated = {"Tenancy": "Dedicated", "usageType": f"DedicatedUsage:{instance_type}"}
    return [
        aws_row(instance_type, f"{p * 1.2:.10f}", "W", **windows),
        *aws_reserved_rows(instance_type, {"4NA7Y494T4": (0, p * 0.9), "6QCMYABX3D": (p * 8760, 0)}, "W", **windows),
        aws_row(instance_type, f"{p * 1.1:.10f}", "R", **{"Operating System": "RHEL", "operation": "RunInstances:0010"}),
        aws_row(instance_type, f"{p * 1.3:.10f}", "Q", **{"Pre Installed S/W": "SQL Std", "operation": "RunInstances:0004"}),
        aws_row(instance_type, f"{p * 1.1:.10f}", "D", **dedicated),
        *aws_reserved_rows(instance_type, {"4NA7Y494T4": (0, p * 0.95)}, "D", **dedicated),
        aws_row(instance_type, "0.0000000000", "H", **{"Tenancy": "Host", "usageType": f"HostBoxUsage:{instance_type}"}),
        aws_row(instance_type, f"{p:.10f}", "U", **{"CapacityStatus": "UnusedCapacityReservation", "usageType": f"UnusedBox:{instance_type}"}),
        aws_row(instance_type, "0.0000000000", "A", **{"CapacityStatus": "AllocatedCapacityReservation", "usageType": f"Reservation:{instance_type}"}),
        aws_row(instance_type, f"{p * 1.05:.10f}", "B", **{"License Model": "Bring your own license", "Operating System": "Windows"}),
        # a Capacity Block for ML: same usage type as the instance, another market and operation
        aws_row(instance_type, f"{p * 0.6:.10f}", "C", **{"MarketOption": "CapacityBlock", "operation": "RunInstances:CB"}),
    ]


def aws_csv(rows: list[dict[str, str]], publication: str = "2025-06-01T00:00:00Z",
            header: tuple[str, ...] = HEADER_2025, offer: str = "AmazonEC2") -> str:
    """The bulk CSV as AWS writes it: 5 quoted metadata lines, header, values quoted, empties bare."""
    def line(values) -> str:
        return ",".join('"' + v.replace('"', '""') + '"' if v else "" for v in values) + "\n"

    head = [["FormatVersion", "v1.0"], ["Disclaimer", _AWS_DISCLAIMER], ["Publication Date", publication],
            ["Version", publication[:10].replace("-", "") + "000000"], ["OfferCode", offer]]
    return "".join(line(m) for m in head) + line(header) + "".join(line(r.get(h, "") for h in header) for r in rows)


# 2025-06-01 AWS prices (reference/prices.csv; p3dn, p3 unchanged since 2022-02-08)
AWS_2025 = {"p4d.24xlarge": "21.9576420000", "p5.48xlarge": "55.0400000000",
            "p3dn.24xlarge": "31.2120000000", "p3.16xlarge": "24.4800000000"}


def aws_csv_2025() -> str:
    """Plain rows of four instances with all decoys, p4d's twelve reserved terms, a reservation-only
    dl1 (on-demand 0, one All Upfront term), a duplicate, a foreign type and a legacy term."""
    rows = []
    for instance_type, price in AWS_2025.items():
        rows += [aws_row(instance_type, price), *aws_decoys(instance_type, price)]
    rows += aws_reserved_rows("p4d.24xlarge", P4D_RESERVED_2025)
    rows += aws_reserved_rows("p5.48xlarge", {"4NA7Y494T4": (0, 35.776)})
    rows.append(aws_row("dl1.24xlarge", "0.0000000000"))  # zero on-demand price: no price
    rows += aws_reserved_rows("dl1.24xlarge", {"6QCMYABX3D": (70080, 0), "4NA7Y494T4": (0, 0)})  # the second is 0: no price
    legacy = aws_reserved_rows("p3.16xlarge", {"4NA7Y494T4": (0, 9.0)})[0] | {"PurchaseOption": "Heavy Utilization"}
    rows.append(legacy)
    rows.append(aws_row("p4d.24xlarge", AWS_2025["p4d.24xlarge"], RateCode="P4DCOPY.JRTCKXETXF.6YS6EN2CT7"))
    rows.append(aws_row("m5.large", "0.0960000000", **{"Instance Family": "General purpose"}))
    rows.append(aws_row("", "0.0200000000", "T", **{"Product Family": "Data Transfer", "Unit": "GB", "usageType": "DataTransfer-Out-Bytes"}))
    return aws_csv(rows)


# p4d.24xlarge reserved terms of the 2022 JSON fixture: term code -> (upfront USD, recurring USD/h)
P4D_RESERVED_2022 = {"HU7G6KETJZ": (98550, 9.35), "NQ3QZPMQV9": (315360, 0), "Z2E3P23VKM": (0, 16.5)}


def aws_json(prices: dict[str, str], publication: str = "2022-02-08T00:00:00Z", currency: str = "USD",
             reserved: dict[str, dict[str, tuple[float, float]]] | None = None) -> dict:
    """An AWS offer file in JSON (camelCase attributes) with decoy products and reserved terms.

    `reserved` gives instance type -> {term code: (upfront, hourly)}; by default p4d's 2022 terms.
    Every decoy product carries the same terms, which must be ignored with it.
    """
    reserved = {"p4d.24xlarge": P4D_RESERVED_2022} if reserved is None else reserved
    products, on_demand, reserved_terms = {}, {}, {}
    for n, (instance_type, price) in enumerate(prices.items()):
        variants = [
            ("", {}),
            ("WIN", {"operatingSystem": "Windows", "operation": "RunInstances:0002"}),
            ("SQL", {"preInstalledSw": "SQL Std"}),
            ("DED", {"tenancy": "Dedicated", "usagetype": f"DedicatedUsage:{instance_type}"}),
            ("UCR", {"capacitystatus": "UnusedCapacityReservation", "usagetype": f"UnusedBox:{instance_type}"}),
            ("ACR", {"capacitystatus": "AllocatedCapacityReservation", "usagetype": f"Reservation:{instance_type}"}),
            ("CBL", {"marketoption": "CapacityBlock", "operation": "RunInstances:CB"}),
        ]
        for tag, change in variants:
            sku = f"SKU{n}{tag}".ljust(16, "Q")
            attrs = {
                "servicecode": "AmazonEC2", "location": "US East (N. Virginia)", "locationType": "AWS Region",
                "instanceType": instance_type, "currentGeneration": "Yes", "instanceFamily": "GPU instance",
                "vcpu": "96", "memory": "1152 GiB", "tenancy": "Shared", "operatingSystem": "Linux",
                "licenseModel": "No License required", "usagetype": f"BoxUsage:{instance_type}",
                "operation": "RunInstances", "capacitystatus": "Used", "preInstalledSw": "NA",
                "marketoption": "OnDemand", "regionCode": "us-east-1", "servicename": "Amazon Elastic Compute Cloud",
            } | change
            products[sku] = {"sku": sku, "productFamily": "Compute Instance", "attributes": attrs}
            unit_price = "0.0000000000" if tag == "ACR" else price
            term = f"{sku}.JRTCKXETXF"
            on_demand[sku] = {term: {
                "offerTermCode": "JRTCKXETXF", "sku": sku, "effectiveDate": publication,
                "priceDimensions": {f"{term}.{HOURLY_RATE}": {
                    "rateCode": f"{term}.{HOURLY_RATE}", "description": f"${unit_price} per On Demand {instance_type}",
                    "beginRange": "0", "endRange": "Inf", "unit": "Hrs", "pricePerUnit": {currency: unit_price},
                    "appliesTo": [],
                }},
                "termAttributes": {},
            }}
            reserved_terms[sku] = {}
            for code, (upfront, hourly) in reserved.get(instance_type, {}).items():
                lease, offering, purchase = RESERVED_TERMS[code]
                dims = {f"{sku}.{code}.{HOURLY_RATE}": {
                    "rateCode": f"{sku}.{code}.{HOURLY_RATE}", "beginRange": "0", "endRange": "Inf", "unit": "Hrs",
                    "description": f"Linux/UNIX (Amazon VPC), {instance_type} reserved instance applied",
                    "pricePerUnit": {currency: f"{hourly:.10f}"}, "appliesTo": []}}
                if purchase != "No Upfront":
                    dims[f"{sku}.{code}.{UPFRONT_RATE}"] = {
                        "rateCode": f"{sku}.{code}.{UPFRONT_RATE}", "description": "Upfront Fee", "unit": "Quantity",
                        "pricePerUnit": {currency: f"{upfront:g}"}, "appliesTo": []}
                reserved_terms[sku][f"{sku}.{code}"] = {
                    "offerTermCode": code, "sku": sku, "effectiveDate": publication, "priceDimensions": dims,
                    "termAttributes": {"LeaseContractLength": lease, "OfferingClass": offering, "PurchaseOption": purchase},
                }
    products["STORAGE000000000"] = {"sku": "STORAGE000000000", "productFamily": "Storage",
                                    "attributes": {"volumeType": "General Purpose", "regionCode": "us-east-1"}}
    return {
        "formatVersion": "v1.0", "disclaimer": _AWS_DISCLAIMER, "offerCode": "AmazonEC2",
        "version": publication[:10].replace("-", "") + "000000", "publicationDate": publication,
        "products": products, "terms": {"OnDemand": on_demand, "Reserved": reserved_terms},
    }


AWS_2022 = {"p4d.24xlarge": "32.7726000000", "p3dn.24xlarge": "31.2120000000",
            "p3.16xlarge": "24.4800000000", "dl1.24xlarge": "13.1090400000"}


# --- Azure Retail Prices API pages --------------------------------------------------------------

def azure_item(arm_sku: str, sku_name: str, product: str, price: float, effective: str,
               type_: str = "Consumption", currency: str = "USD", unit: str = "1 Hour",
               region: str = "eastus", **extra) -> dict:
    item = {
        "currencyCode": currency, "tierMinimumUnits": 0.0, "retailPrice": price, "unitPrice": price,
        "armRegionName": region, "location": "US East", "effectiveStartDate": effective,
        "meterId": f"meter-{arm_sku}-{sku_name}-{type_}".replace(" ", "-"), "meterName": sku_name,
        "productId": "DZH318Z0C1GX", "skuId": "DZH318Z0C1GX/00DQ", "availabilityId": None,
        "productName": product, "skuName": sku_name, "serviceName": "Virtual Machines",
        "serviceId": "DZH313Z7MMC8", "serviceFamily": "Compute", "unitOfMeasure": unit, "type": type_,
        "isPrimaryMeterRegion": True, "armSkuName": arm_sku,
    }
    return item | extra


# Commitment figures of the Azure fixture per size: (1-year and 3-year reservation totals in USD,
# 1-year and 3-year savings plan hourly rates, spot hourly), each simple to check by hand.
AZURE_COMMITMENTS = {
    "Standard_ND96asr_v4": ((148920, 262800), (19.038, 13.5985), 8.1591),
    "Standard_ND40rs_v2": ((113880, 197100), (15.4224, 11.016), 6.6096),
    "Standard_ND96isr_H100_v5": ((543120, 1051200), (68.824, 49.16), 29.496),
}


def azure_items_for(arm_sku: str, sku_name: str, series: str, price: float, effective: str) -> list[dict]:
    """The Linux pay-as-you-go item (with its savingsPlan array), its spot meter, its 1- and 3-year
    reservations, and every decoy kind for one VM size."""
    product = f"Virtual Machines {series} Series"
    (year1, year3), (plan1, plan3), spot = AZURE_COMMITMENTS[arm_sku]
    plans = [{"unitPrice": plan3, "retailPrice": plan3, "term": "3 Years"},
             {"unitPrice": plan1, "retailPrice": plan1, "term": "1 Year"}]
    return [
        azure_item(arm_sku, sku_name, product, price, effective, savingsPlan=plans),
        azure_item(arm_sku, sku_name, f"{product} Windows", price * 1.2, effective,
                   savingsPlan=[{"unitPrice": plan1 * 1.3, "retailPrice": plan1 * 1.3, "term": "1 Year"}]),
        azure_item(arm_sku, f"{sku_name} Spot", product, spot, effective),
        azure_item(arm_sku, f"{sku_name} Low Priority", product, price * 0.2, effective),
        azure_item(arm_sku, f"{sku_name} Spot", f"{product} Windows", spot * 1.4, effective),
        azure_item(arm_sku, sku_name, product, year1, effective, type_="Reservation", reservationTerm="1 Year"),
        azure_item(arm_sku, sku_name, product, year3, effective, type_="Reservation", reservationTerm="3 Years"),
        azure_item(arm_sku, sku_name, product, price * 0.9, effective, type_="DevTestConsumption"),
        azure_item(arm_sku, sku_name, product, price * 0.8, effective, region="westeurope", type_="DevTestConsumption"),
        azure_item(arm_sku, sku_name, product, 0.0, effective, unit="1 Hour", meterName=f"{sku_name} free"),
        azure_item(arm_sku, sku_name, product, price * 0.02, effective, unit="1 GB/Month"),
    ]


def azure_pages(base: str = "https://prices.azure.com/api/retail/prices", currency: str = "USD") -> list[dict]:
    """Two pages (2022-02-08 and 2024-01-01 prices); the first links to the second, items repeat."""
    first = [
        *azure_items_for("Standard_ND96asr_v4", "ND96asr A100 v4", "NDasrA100v4", 27.197, "2022-02-08T00:00:00Z"),
        *azure_items_for("Standard_ND40rs_v2", "ND40rs v2", "NDv2", 22.032, "2022-02-08T00:00:00Z"),
        azure_item("Standard_D2s_v3", "D2s v3", "Virtual Machines DSv3 Series", 0.096, "2022-02-08T00:00:00Z"),
    ]
    second = [
        *azure_items_for("Standard_ND96isr_H100_v5", "ND96isr H100 v5", "NDH100v5", 98.32, "2024-01-01T00:00:00Z"),
        # the same meter listed again under another product id: an identical duplicate
        azure_item("Standard_ND40rs_v2", "ND40rs v2", "Virtual Machines NDv2 Series", 22.032,
                   "2022-02-08T00:00:00Z", productId="DZH318Z0BQ4X"),
    ]
    if currency != "USD":
        first = [i | {"currencyCode": currency, "retailPrice": i["retailPrice"] * 0.92} for i in first]
        second = [i | {"currencyCode": currency} for i in second]
    link = f"{base}?$filter=serviceName%20eq%20%27Virtual%20Machines%27&$skip=100"
    return [
        {"BillingCurrency": currency, "CustomerEntityId": "Default", "CustomerEntityType": "Retail",
         "Items": first, "NextPageLink": link, "Count": len(first)},
        {"BillingCurrency": currency, "CustomerEntityId": "Default", "CustomerEntityType": "Retail",
         "Items": second, "NextPageLink": None, "Count": len(second)},
    ]


# --- GCP Cloud Billing Catalog SKU pages --------------------------------------------------------

GCP_EFFECTIVE = "2022-02-08T12:52:27.407Z"

# Hand-composed spot and committed-use prices of the GCP fixture (96 vCPU, 680 or 624 GiB, 8 GPUs):
GCP_SPOT = {
    # 96 x 0.009483 + 680 x 0.001271 + 8 x 0.88 = 0.910368 + 0.86428 + 7.04
    "a2-highgpu-8g": 8.814648,
    # 96 x 0.006655 + 624 x 0.000892 + 8 x 0.74 = 0.63888 + 0.556608 + 5.92
    "n1-highmem-96+8xV100": 7.115488,
}
GCP_COMMITTED = {
    # 96 x 0.019915 + 680 x 0.002669 + 8 x 1.848362 = 1.91184 + 1.81492 + 14.786896
    ("a2-highgpu-8g", 1): 18.513656,
    # 96 x 0.014225 + 680 x 0.001907 + 8 x 1.031772 = 1.3656 + 1.29676 + 8.254176
    ("a2-highgpu-8g", 3): 10.916536,
    # 96 x 0.019915 + 624 x 0.002669 + 8 x 1.562 = 1.91184 + 1.665456 + 12.496
    ("n1-highmem-96+8xV100", 1): 16.073296,
}


def gcp_sku(sku_id: str, description: str, usd: float, *, group: str, usage_type: str = "OnDemand",
            unit: str = "h", regions: tuple[str, ...] = ("us-central1",), effective: str = GCP_EFFECTIVE,
            currency: str = "USD", family: str = "Compute") -> dict:
    """One SKU exactly as the Cloud Billing Catalog API returns it (units + nanos)."""
    units = int(usd)
    nanos = round((usd - units) * 1e9)
    described = {"h": ("hour", "s", "second", 3600), "GiBy.h": ("gibibyte hour", "By.s", "byte second", 3865470566400)}
    unit_text, base, base_text, factor = described[unit]
    return {
        "name": f"services/6F81-5844-456A/skus/{sku_id}",
        "skuId": sku_id,
        "description": description,
        "category": {"serviceDisplayName": "Compute Engine", "resourceFamily": family,
                     "resourceGroup": group, "usageType": usage_type},
        "serviceRegions": list(regions),
        "pricingInfo": [{
            "summary": "",
            "pricingExpression": {
                "usageUnit": unit, "displayQuantity": 1,
                "tieredRates": [{"startUsageAmount": 0, "unitPrice": {"currencyCode": currency, "units": str(units), "nanos": nanos}}],
                "usageUnitDescription": unit_text, "baseUnit": base, "baseUnitDescription": base_text,
                "baseUnitConversionFactor": factor,
            },
            "currencyConversionRate": 1,
            "effectiveTime": effective,
        }],
        "serviceProviderName": "Google",
        "geoTaxonomy": {"type": "REGIONAL", "regions": list(regions)},
    }


def gcp_pages(currency: str = "USD", effective: str = GCP_EFFECTIVE) -> list[dict]:
    """Four pages of SKUs: the parts of a2-highgpu-8g and n1-highmem-96+8xV100 are split across
    pages, among decoys (custom, sole tenancy, 80 GB A100, other regions, spend-based commitment).
    On-demand unit prices: core 0.031611, RAM 0.004237, A100 2.933908, V100 2.48 (reference);
    spot and committed-use parts compose as GCP_SPOT and GCP_COMMITTED say. n1's 3-year
    commitment has no V100 SKU, so it composes no price (GCP sells no committed host with
    on-demand GPUs as one price)."""
    s = dict(currency=currency, effective=effective)
    page1 = [
        gcp_sku("A2C0-0000-0001", "A2 Instance Core running in Americas", 0.031611, group="CPU", **s),
        gcp_sku("A2C0-0000-0002", "A2 Instance Core running in Americas", 0.031611, group="CPU", regions=("us-east1", "us-west1"), **s),
        gcp_sku("A2C0-0000-0003", "Preemptible A2 Instance Core running in Americas", 0.009483, group="CPU", usage_type="Preemptible", **s),
        gcp_sku("A2C0-0000-0004", "Commitment v1: A2 Cpu in Americas for 1 Year", 0.019915, group="CPU", usage_type="Commit1Yr", **s),
        gcp_sku("A2R0-0000-0001", "A2 Instance Ram running in Americas", 0.004237, group="RAM", unit="GiBy.h", **s),
        gcp_sku("N1C0-0000-0001", "N1 Predefined Instance Core running in Americas", 0.031611, group="N1Standard", **s),
        gcp_sku("N1C0-0000-0002", "Custom Instance Core running in Americas", 0.033174, group="CPU", **s),
        gcp_sku("N1C0-0000-0003", "Spot Preemptible N1 Predefined Instance Core running in Americas", 0.006655, group="N1Standard", usage_type="Preemptible", **s),
        gcp_sku("N1C0-0000-0004", "N1 Sole Tenancy Instance Core running in Americas", 0.034773, group="CPU", **s),
    ]
    page2 = [
        gcp_sku("N1R0-0000-0001", "N1 Predefined Instance Ram running in Americas", 0.004237, group="N1Standard", unit="GiBy.h", **s),
        gcp_sku("N1R0-0000-0002", "Custom Instance Ram running in Americas", 0.004446, group="RAM", unit="GiBy.h", **s),
        gcp_sku("GPU0-0000-0001", "Nvidia Tesla V100 GPU running in Americas", 2.48, group="GPU", **s),
        gcp_sku("GPU0-0000-0002", "Nvidia Tesla V100 GPU attached to Spot Preemptible VMs running in Americas", 0.74, group="GPU", usage_type="Preemptible", **s),
        gcp_sku("GPU0-0000-0003", "Commitment v1: Nvidia Tesla V100 GPU in Americas for 1 Year", 1.562, group="GPU", usage_type="Commit1Yr", **s),
    ]
    page3 = [
        gcp_sku("GPU0-0000-0004", "Nvidia Tesla A100 GPU running in Americas", 2.933908, group="GPU", **s),
        gcp_sku("GPU0-0000-0005", "Nvidia Tesla A100 80GB GPU running in Americas", 3.92839, group="GPU", **s),
        gcp_sku("GPU0-0000-0006", "Nvidia Tesla A100 GPU running in Americas", 2.933908, group="GPU", regions=("us-east1",), **s),
        gcp_sku("GPU0-0000-0007", "Nvidia Tesla A100 GPU attached to Spot Preemptible VMs running in Americas", 0.88, group="GPU", usage_type="Preemptible", **s),
        gcp_sku("DSK0-0000-0001", "Storage PD Capacity", 0.04, group="PDStandard", family="Storage", **s),
    ]
    # spot and committed-use parts (page 4); see GCP_SPOT and GCP_COMMITTED for the compositions
    page4 = [
        gcp_sku("A2R0-0000-0002", "Preemptible A2 Instance Ram running in Americas", 0.001271, group="RAM", unit="GiBy.h", usage_type="Preemptible", **s),
        gcp_sku("N1R0-0000-0003", "Spot Preemptible N1 Predefined Instance Ram running in Americas", 0.000892, group="N1Standard", unit="GiBy.h", usage_type="Preemptible", **s),
        gcp_sku("A2R0-0000-0003", "Commitment v1: A2 Ram in Americas for 1 Year", 0.002669, group="RAM", unit="GiBy.h", usage_type="Commit1Yr", **s),
        gcp_sku("GPU0-0000-0008", "Commitment v1: Nvidia Tesla A100 GPU running in Americas for 1 Year", 1.848362, group="GPU", usage_type="Commit1Yr", **s),
        gcp_sku("A2C0-0000-0005", "Commitment v1: A2 Cpu in Americas for 3 Year", 0.014225, group="CPU", usage_type="Commit3Yr", **s),
        gcp_sku("A2R0-0000-0004", "Commitment v1: A2 Ram in Americas for 3 Year", 0.001907, group="RAM", unit="GiBy.h", usage_type="Commit3Yr", **s),
        gcp_sku("GPU0-0000-0009", "Commitment v1: Nvidia Tesla A100 GPU running in Americas for 3 Years", 1.031772, group="GPU", usage_type="Commit3Yr", **s),
        gcp_sku("N1C0-0000-0005", "Commitment v1: Cpu in Americas for 1 Year", 0.019915, group="CPU", usage_type="Commit1Yr", **s),
        gcp_sku("N1R0-0000-0004", "Commitment v1: Ram in Americas for 1 Year", 0.002669, group="RAM", unit="GiBy.h", usage_type="Commit1Yr", **s),
        gcp_sku("N1C0-0000-0006", "Commitment v1: Cpu in Americas for 3 Years", 0.014225, group="CPU", usage_type="Commit3Yr", **s),
        gcp_sku("N1R0-0000-0005", "Commitment v1: Ram in Americas for 3 Years", 0.001907, group="RAM", unit="GiBy.h", usage_type="Commit3Yr", **s),
        # decoys: spend-based commitment, a reserved GPU at 0, spot A2 parts of another region, an 80 GB spot GPU
        gcp_sku("SPND-0000-0001", "Commitment - dollar based v1: GCE for 1 year", 0.75, group="CPU", usage_type="Commit1Yr", **s),
        gcp_sku("GPU0-0000-0010", "Reserved Nvidia Tesla A100 GPU in Americas", 0.0, group="GPU", **s),
        gcp_sku("A2C0-0000-0006", "Preemptible A2 Instance Core running in Americas", 0.0102, group="CPU", usage_type="Preemptible", regions=("us-east1",), **s),
        gcp_sku("GPU0-0000-0011", "Nvidia Tesla A100 80GB GPU attached to Spot Preemptible VMs running in Americas", 1.57, group="GPU", usage_type="Preemptible", **s),
    ]
    pages = [page1, page2, page3, page4]
    return [{"skus": skus, "nextPageToken": f"token-{n + 1}" if n + 1 < len(pages) else ""}
            for n, skus in enumerate(pages)]


# --- AWS Savings Plans offer (JSON and CSV) -----------------------------------------------------

# The plans of the fixture: SKU -> (productFamily, purchaseOption, purchaseTerm), as the offer lists them.
SAVINGS_PLANS = {
    "CSP1NOUPFRONT000": ("ComputeSavingsPlans", "No Upfront", "1yr"),
    "CSP3ALLUPFRONT00": ("ComputeSavingsPlans", "All Upfront", "3yr"),
    "ISP1P4DPARTIAL00": ("EC2InstanceSavingsPlans", "Partial Upfront", "1yr"),
    "ISP3P4DNOUPFRONT": ("EC2InstanceSavingsPlans", "No Upfront", "3yr"),
    "SMSP1NOUPFRONT00": ("SageMakerSavingsPlans", "No Upfront", "1yr"),  # another offer's plan: ignored
}
# SKU -> [(discountedUsageType, discountedOperation, discountedServiceCode, discountedRate)]: the plain
# Linux rates of p4d (on-demand 21.957642 on 2025-06-01) and p5, among decoy rates.
SAVINGS_PLAN_RATES = {
    "CSP1NOUPFRONT000": [
        ("BoxUsage:p4d.24xlarge", "RunInstances", "AmazonEC2", "15.3704"),
        ("BoxUsage:p4d.24xlarge", "RunInstances:0002", "AmazonEC2", "19.0321"),  # Windows
        ("DedicatedUsage:p4d.24xlarge", "RunInstances", "AmazonEC2", "16.9012"),  # dedicated tenancy
        ("UnusedBox:p4d.24xlarge", "RunInstances", "AmazonEC2", "15.3704"),  # unused capacity reservation
        ("BoxUsage:p5.48xlarge", "RunInstances", "AmazonEC2", "40.1792"),
        ("BoxUsage:m5.large", "RunInstances", "AmazonEC2", "0.0672"),  # not one of ours
        ("Fargate-vCPU-Hours:perCPU", "", "AmazonECS", "0.0323"),  # another service
    ],
    "CSP3ALLUPFRONT00": [("BoxUsage:p4d.24xlarge", "RunInstances", "AmazonEC2", "11.2104")],
    "ISP1P4DPARTIAL00": [("BoxUsage:p4d.24xlarge", "RunInstances", "AmazonEC2", "12.5408"),
                         ("HostBoxUsage:p4d.24xlarge", "RunInstances", "AmazonEC2", "13.1")],  # dedicated host
    "ISP3P4DNOUPFRONT": [("BoxUsage:p4d.24xlarge", "RunInstances", "AmazonEC2", "8.7831")],
    "SMSP1NOUPFRONT00": [("BoxUsage:p4d.24xlarge", "RunInstances", "AmazonEC2", "1.0")],
}


def savings_plan_json(publication: str = "2025-06-01T00:00:00Z", region: str = "us-east-1",
                      rates: dict | None = None) -> dict:
    """A region's savings plan offer file in JSON, as AWSComputeSavingsPlan publishes it."""
    rates = SAVINGS_PLAN_RATES if rates is None else rates
    products, terms = [], []
    for sku, (family, purchase, term) in SAVINGS_PLANS.items():
        plan = "ComputeSP" if family == "ComputeSavingsPlans" else "EC2SP:p4d"
        products.append({"sku": sku, "productFamily": family, "serviceCode": "ComputeSavingsPlans",
                         "usageType": f"{plan}:{term}{purchase.replace(' ', '')}", "operation": "",
                         "attributes": {"purchaseOption": purchase, "granularity": "hourly", "purchaseTerm": term,
                                        "locationType": "AWS Region", "location": "Any", "regionCode": region}})
        terms.append({
            "sku": sku, "description": f"{term[0]} year {purchase} {family}", "effectiveDate": publication,
            "leaseContractLength": {"duration": int(term[0]), "unit": "year"},
            "rates": [{"discountedSku": f"DSKU{n:012d}", "discountedUsageType": usage, "discountedOperation": operation,
                       "discountedServiceCode": service, "rateCode": f"{sku}.DSKU{n:012d}", "unit": "Hrs",
                       "discountedRate": {"price": price, "currency": "USD"}}
                      for n, (usage, operation, service, price) in enumerate(rates.get(sku, []))],
        })
    return {"version": publication[:10].replace("-", "") + "000000", "publicationDate": publication,
            "regionCode": region, "products": products, "terms": {"savingsPlan": terms}}


SAVINGS_PLAN_CSV_HEADER = (
    "SKU", "RateCode", "Unit", "EffectiveDate", "DiscountedRate", "Currency", "DiscountedSKU",
    "DiscountedServiceCode", "DiscountedUsageType", "DiscountedOperation", "PurchaseOption", "LeaseContractLength",
    "LeaseContractLengthUnit", "ServiceCode", "UsageType", "Operation", "Description", "Instance Family", "Location",
    "Location Type", "Granularity", "Product Family", "DiscountedRegionCode", "DiscountedInstanceType",
)


def savings_plan_csv(publication: str = "2025-06-01T00:00:00Z", region: str = "us-east-1") -> str:
    """The same offer in CSV: one row per rate, 5 metadata lines (OfferCode AmazonComputeSavingsPlan)."""
    doc = savings_plan_json(publication, region)
    plans = {p["sku"]: p for p in doc["products"]}
    rows = []
    for term in doc["terms"]["savingsPlan"]:
        plan = plans[term["sku"]]
        for rate in term["rates"]:
            rows.append({
                "SKU": term["sku"], "RateCode": rate["rateCode"], "Unit": "Hrs", "EffectiveDate": publication,
                "DiscountedRate": rate["discountedRate"]["price"], "Currency": "USD", "DiscountedSKU": rate["discountedSku"],
                "DiscountedServiceCode": rate["discountedServiceCode"], "DiscountedUsageType": rate["discountedUsageType"],
                "DiscountedOperation": rate["discountedOperation"], "PurchaseOption": plan["attributes"]["purchaseOption"],
                "LeaseContractLength": str(term["leaseContractLength"]["duration"]), "LeaseContractLengthUnit": "year",
                "ServiceCode": "ComputeSavingsPlans", "UsageType": plan["usageType"], "Operation": "",
                "Description": term["description"], "Location": "Any", "Location Type": "AWS Region",
                "Granularity": "hourly", "Product Family": plan["productFamily"], "DiscountedRegionCode": region,
            })
    return aws_csv(rows, publication, header=SAVINGS_PLAN_CSV_HEADER, offer="AmazonComputeSavingsPlan")


# --- AWS spot: DescribeSpotPriceHistory and the spot advisor ------------------------------------

def spot_record(zone: str, instance_type: str, price: str, stamp: str, os_name: str = "Linux/UNIX") -> dict:
    """One record exactly as `aws ec2 describe-spot-price-history --output json` prints it."""
    return {"AvailabilityZone": zone, "InstanceType": instance_type, "ProductDescription": os_name,
            "SpotPrice": price, "Timestamp": stamp}


def spot_history() -> dict:
    """p4d in three us-east-1 zones and two us-west-2 zones, p5 in one zone, among decoys.

    Expected (tests/test_prices_spot.py works it out day by day): p4d us-east-1 median 9.5 from
    2025-05-26, 9.9 from 05-31, and on 06-01 the same median with a new low of 9.1; us-west-2 11.2
    from 05-28; p5 us-east-1 21.5 from 05-30 (its one zone lists only "Linux/UNIX (Amazon VPC)")."""
    return {"SpotPriceHistory": [
        spot_record("us-east-1a", "m5.large", "0.0371", "2025-06-01T06:00:00+00:00"),  # the file's newest record
        spot_record("us-east-1c", "p4d.24xlarge", "9.100000", "2025-05-31T23:59:59+00:00"),
        spot_record("us-east-1a", "p4d.24xlarge", "9.900000", "2025-05-30T16:00:00+00:00"),
        spot_record("us-east-1d", "p5.48xlarge", "21.500000", "2025-05-29T12:00:00+00:00", "Linux/UNIX (Amazon VPC)"),
        spot_record("us-west-2a", "p4d.24xlarge", "11.000000", "2025-05-28T00:00:00+00:00"),
        spot_record("us-west-2b", "p4d.24xlarge", "11.400000", "2025-05-27T12:00:00+00:00"),
        spot_record("us-east-1c", "p4d.24xlarge", "8.700000", "2025-05-25T08:30:00+00:00"),
        spot_record("us-east-1a", "p4d.24xlarge", "9.500000", "2025-05-20T10:00:00+00:00"),
        spot_record("us-east-1b", "p4d.24xlarge", "10.200000", "2025-05-18T00:00:00+00:00"),
        # decoys: Windows, SUSE, a Local Zone, a VPC record of a zone that has plain Linux/UNIX ones
        spot_record("us-east-1a", "p4d.24xlarge", "15.000000", "2025-05-29T00:00:00+00:00", "Windows"),
        spot_record("us-east-1b", "p4d.24xlarge", "10.900000", "2025-05-29T00:00:00+00:00", "SUSE Linux"),
        spot_record("us-east-1-bos-1a", "p4d.24xlarge", "5.000000", "2025-05-29T00:00:00+00:00"),
        spot_record("us-east-1b", "p4d.24xlarge", "10.400000", "2025-05-29T00:00:00+00:00", "Linux/UNIX (Amazon VPC)"),
    ], "NextToken": ""}


def spot_advisor() -> dict:
    """The spot advisor JSON (spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json), cut down."""
    labels = ["<5%", "5-10%", "10-15%", "15-20%", ">20%"]
    return {
        "global_rate": "<10%",
        "instance_types": {"p4d.24xlarge": {"emr": True, "cores": 96, "ram_gb": 1152.0},
                           "p5.48xlarge": {"emr": True, "cores": 192, "ram_gb": 2048.0},
                           "m5.large": {"emr": True, "cores": 2, "ram_gb": 8.0}},
        "ranges": [{"index": i, "label": label, "dots": i, "max": 5 * (i + 1) if i < 4 else 100}
                   for i, label in enumerate(labels)],
        "spot_advisor": {
            "us-east-1": {"Linux": {"p4d.24xlarge": {"s": 57, "r": 2}, "p5.48xlarge": {"s": 61, "r": 4},
                                    "m5.large": {"s": 60, "r": 0}},
                          "Windows": {"p4d.24xlarge": {"s": 40, "r": 0}}},
            "us-west-2": {"Linux": {"p4d.24xlarge": {"s": 49, "r": 1}}},
        },
    }
