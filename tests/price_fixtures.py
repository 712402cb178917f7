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


def aws_row(instance_type: str, price: str, **changes: str) -> dict[str, str]:
    """A plain Linux on-demand row of the bulk CSV; `changes` (by column name) make decoys."""
    sku = "".join(ch for ch in instance_type.upper() if ch.isalnum())[:10].ljust(10, "X") + "SKU001"
    usage = changes.pop("usageType", f"BoxUsage:{instance_type}")
    row = {name: "" for name in HEADER_2025}
    row.update({
        "SKU": sku, "OfferTermCode": "JRTCKXETXF", "RateCode": f"{sku}.JRTCKXETXF.6YS6EN2CT7",
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


def aws_decoys(instance_type: str, price: str) -> list[dict[str, str]]:
    """Every row kind of the bulk file that is not the plain Linux on-demand price."""
    p = float(price)
    return [
        aws_row(instance_type, f"{p * 1.2:.10f}", **{"Operating System": "Windows", "operation": "RunInstances:0002"}),
        aws_row(instance_type, f"{p * 1.1:.10f}", **{"Operating System": "RHEL", "operation": "RunInstances:0010"}),
        aws_row(instance_type, f"{p * 1.3:.10f}", **{"Pre Installed S/W": "SQL Std", "operation": "RunInstances:0004"}),
        aws_row(instance_type, f"{p * 1.1:.10f}", **{"Tenancy": "Dedicated", "usageType": f"DedicatedUsage:{instance_type}"}),
        aws_row(instance_type, "0.0000000000", **{"Tenancy": "Host", "usageType": f"HostBoxUsage:{instance_type}"}),
        aws_row(instance_type, f"{p:.10f}", **{"CapacityStatus": "UnusedCapacityReservation", "usageType": f"UnusedBox:{instance_type}"}),
        aws_row(instance_type, "0.0000000000", **{"CapacityStatus": "AllocatedCapacityReservation", "usageType": f"Reservation:{instance_type}"}),
        aws_row(instance_type, f"{p * 1.05:.10f}", **{"License Model": "Bring your own license", "Operating System": "Windows"}),
        aws_row(instance_type, f"{p * 0.6:.10f}", **{"TermType": "Reserved", "OfferTermCode": "4NA7Y494T4",
                                                   "LeaseContractLength": "1yr", "PurchaseOption": "No Upfront",
                                                   "OfferingClass": "standard"}),
        aws_row(instance_type, f"{p * 8760 * 0.5:.0f}", **{"TermType": "Reserved", "Unit": "Quantity",
                                                        "PriceDescription": "Upfront Fee", "LeaseContractLength": "3yr",
                                                        "PurchaseOption": "All Upfront"}),
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
    """Plain rows of four instances with all decoys, a zero-priced dl1, a duplicate, a foreign type."""
    rows = []
    for instance_type, price in AWS_2025.items():
        rows += [aws_row(instance_type, price), *aws_decoys(instance_type, price)]
    rows.append(aws_row("dl1.24xlarge", "0.0000000000"))  # zero price: dropped
    rows.append(aws_row("p4d.24xlarge", AWS_2025["p4d.24xlarge"], RateCode="P4DCOPY.JRTCKXETXF.6YS6EN2CT7"))
    rows.append(aws_row("m5.large", "0.0960000000", **{"Instance Family": "General purpose"}))
    rows.append(aws_row("", "0.0200000000", **{"Product Family": "Data Transfer", "Unit": "GB", "usageType": "DataTransfer-Out-Bytes"}))
    return aws_csv(rows)


def aws_json(prices: dict[str, str], publication: str = "2022-02-08T00:00:00Z", currency: str = "USD") -> dict:
    """An AWS offer file in JSON (camelCase attributes) with decoy products and reserved terms."""
    products, on_demand, reserved = {}, {}, {}
    for n, (instance_type, price) in enumerate(prices.items()):
        variants = [
            ("", {}),
            ("WIN", {"operatingSystem": "Windows"}),
            ("SQL", {"preInstalledSw": "SQL Std"}),
            ("DED", {"tenancy": "Dedicated", "usagetype": f"DedicatedUsage:{instance_type}"}),
            ("UCR", {"capacitystatus": "UnusedCapacityReservation", "usagetype": f"UnusedBox:{instance_type}"}),
            ("ACR", {"capacitystatus": "AllocatedCapacityReservation", "usagetype": f"Reservation:{instance_type}"}),
        ]
        for tag, change in variants:
            sku = f"SKU{n}{tag}".ljust(16, "Q")
            attrs = {
                "servicecode": "AmazonEC2", "location": "US East (N. Virginia)", "locationType": "AWS Region",
                "instanceType": instance_type, "currentGeneration": "Yes", "instanceFamily": "GPU instance",
                "vcpu": "96", "memory": "1152 GiB", "tenancy": "Shared", "operatingSystem": "Linux",
                "licenseModel": "No License required", "usagetype": f"BoxUsage:{instance_type}",
                "operation": "RunInstances", "capacitystatus": "Used", "preInstalledSw": "NA",
                "regionCode": "us-east-1", "servicename": "Amazon Elastic Compute Cloud",
            } | change
            products[sku] = {"sku": sku, "productFamily": "Compute Instance", "attributes": attrs}
            unit_price = "0.0000000000" if tag == "ACR" else price
            term = f"{sku}.JRTCKXETXF"
            on_demand[sku] = {term: {
                "offerTermCode": "JRTCKXETXF", "sku": sku, "effectiveDate": publication,
                "priceDimensions": {f"{term}.6YS6EN2CT7": {
                    "rateCode": f"{term}.6YS6EN2CT7", "description": f"${unit_price} per On Demand {instance_type}",
                    "beginRange": "0", "endRange": "Inf", "unit": "Hrs", "pricePerUnit": {currency: unit_price},
                    "appliesTo": [],
                }},
                "termAttributes": {},
            }}
            reserved[sku] = {f"{sku}.4NA7Y494T4": {
                "offerTermCode": "4NA7Y494T4", "sku": sku, "effectiveDate": publication,
                "priceDimensions": {f"{sku}.4NA7Y494T4.6YS6EN2CT7": {
                    "rateCode": f"{sku}.4NA7Y494T4.6YS6EN2CT7", "unit": "Hrs",
                    "pricePerUnit": {currency: f"{float(price) * 0.6:.10f}"}, "appliesTo": [],
                }},
                "termAttributes": {"LeaseContractLength": "1yr", "OfferingClass": "standard", "PurchaseOption": "No Upfront"},
            }}
    products["STORAGE000000000"] = {"sku": "STORAGE000000000", "productFamily": "Storage",
                                    "attributes": {"volumeType": "General Purpose", "regionCode": "us-east-1"}}
    return {
        "formatVersion": "v1.0", "disclaimer": _AWS_DISCLAIMER, "offerCode": "AmazonEC2",
        "version": publication[:10].replace("-", "") + "000000", "publicationDate": publication,
        "products": products, "terms": {"OnDemand": on_demand, "Reserved": reserved},
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


def azure_items_for(arm_sku: str, sku_name: str, series: str, price: float, effective: str) -> list[dict]:
    """The plain Linux pay-as-you-go item and every decoy kind for one VM size."""
    product = f"Virtual Machines {series} Series"
    return [
        azure_item(arm_sku, sku_name, product, price, effective),
        azure_item(arm_sku, sku_name, f"{product} Windows", price * 1.2, effective),
        azure_item(arm_sku, f"{sku_name} Spot", product, price * 0.3, effective),
        azure_item(arm_sku, f"{sku_name} Low Priority", product, price * 0.2, effective),
        azure_item(arm_sku, f"{sku_name} Spot", f"{product} Windows", price * 0.35, effective),
        azure_item(arm_sku, sku_name, product, price * 5000, effective, type_="Reservation", reservationTerm="1 Year"),
        azure_item(arm_sku, sku_name, product, price * 0.9, effective, type_="DevTestConsumption"),
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
    """Three pages of SKUs: the parts of a2-highgpu-8g and n1-highmem-96+8xV100 are split across
    pages, among decoys (preemptible, spot, commitment, custom, sole tenancy, 80 GB A100, other
    regions). Unit prices: core 0.031611, RAM 0.004237, A100 2.933908, V100 2.48 (reference)."""
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
    pages = [page1, page2, page3]
    return [{"skus": skus, "nextPageToken": f"token-{n + 1}" if n + 1 < len(pages) else ""}
            for n, skus in enumerate(pages)]
