"""Write a synthetic AWS Price List (AmazonEC2) CSV in the exact bulk-file format, of any size.

Real us-east-1 files are GBs; the benchmark needs one without the network. DuckDB builds every
row from its row number (no Python loop per row) and COPY writes it, quoted like AWS writes
(every value quoted, empty values bare). The mix follows the real file: per product one OnDemand
row and the reserved terms as AWS lists them, twelve terms (1yr/3yr x standard/convertible x
No/Partial/All Upfront) in twenty rows: an Hrs row per term and an "Upfront Fee" row (Unit
Quantity) for the Partial and All Upfront ones, both under the term's OfferTermCode. Products vary
the operating system (Linux, Windows, RHEL, SUSE, Ubuntu Pro, RHEL HA), pre-installed SQL,
tenancy (Shared, Dedicated, Host) and capacity status (Used, Unused/Allocated capacity
reservation, the last at price zero); a tenth of the products are non-instance rows (data
transfer, storage, IP addresses). The project's five AWS instances come first with their
2025-06-01 list prices, so each has one kept on-demand row and twelve kept reserved terms.

    python -m bench.gen_aws_price_csv OUT.csv --size-gb 1.0
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import shutil
import tempfile
from datetime import date
from pathlib import Path

import duckdb

from pipelines.ingest.prices.aws_columns import HEADER_2025

# The project's AWS instances and their 2025-06-01 on-demand Linux prices (reference/prices.csv;
# p3dn, p3 and dl1 unchanged since 2022-02-08).
OUR_INSTANCES = {
    "p4d.24xlarge": 21.957642,
    "p3dn.24xlarge": 31.212,
    "p3.16xlarge": 24.48,
    "dl1.24xlarge": 13.10904,
    "p5.48xlarge": 55.04,
}

VARIANTS = 108  # 6 operating systems x 2 pre-installed software x 3 tenancies x 3 capacity statuses
ROWS_PER_PRODUCT = 21  # 1 OnDemand + 12 reserved terms in 20 rows
RESERVED_TERMS_PER_PRODUCT = 12

_ROWS_SQL = """
with base as (
    select i,
        i % 21 as slot,
        (i // 21) % 108 as v,
        (i // 21) // 108 as f,
        i // 21 as p
    from range($n) t(i)
), product as (
    select *,
        v % 6 as os_i, (v // 6) % 2 as sw_i, (v // 12) % 3 as ten_i, (v // 36) % 3 as cap_i,
        f < len($our_types) as ours,
        (f % 10 = 9 and f >= len($our_types)) as other_family,
        case when f < len($our_types) then $our_types[f + 1]
             else ['m5','c5','r5','m6i','c6i','r6i','m7i','c7i','r7i','g5','i4i','t3'][f % 12 + 1]
                  || case when f // 96 = 0 then '' else 'x' || (f // 96)::varchar end
                  || '.' || ['large','xlarge','2xlarge','4xlarge','8xlarge','12xlarge','24xlarge','metal'][(f // 12) % 8 + 1]
        end as itype,
        case when f < len($our_types) then $our_prices[f + 1] else 0.05 + (f % 97) * 0.173 end as base_price
    from base
), termed as (
    -- slot 0: on-demand; slots 1-20: four (lease, class) groups g of five rows k:
    -- No Upfront Hrs, Partial Upfront Hrs and Fee, All Upfront Hrs (0) and Fee
    select *,
        (slot - 1) // 5 as g,
        (slot - 1) % 5 as k
    from product
), priced as (
    select *,
        ['Linux','Windows','RHEL','SUSE','Ubuntu Pro','Red Hat Enterprise Linux with HA'][os_i + 1] as os,
        ['NA','SQL Std'][sw_i + 1] as sw,
        ['Shared','Dedicated','Host'][ten_i + 1] as tenancy,
        ['Used','UnusedCapacityReservation','AllocatedCapacityReservation'][cap_i + 1] as cap,
        slot = 0 as on_demand,
        slot > 0 and k in (2, 4) as fee,
        ['1yr','3yr'][g % 2 + 1] as lease,
        g % 2 * 2 + 1 as years,
        ['standard','convertible'][g // 2 + 1] as offering,
        ['No Upfront','Partial Upfront','Partial Upfront','All Upfront','All Upfront'][k + 1] as purchase,
        [0.70, 0.45, 0.78, 0.55][g + 1] as discount,
        upper(substr(md5('sku' || p::varchar), 1, 16)) as sku,
        case when slot = 0 then 'JRTCKXETXF'
             else ['4NA7Y494T4','HU7G6KETJZ','6QCMYABX3D','BPH4J8HBKS','38NPMPTW36','NQ3QZPMQV9',
                   '7NE97W5U4E','CUZHX8X6JH','VJWZNREJX2','Z2E3P23VKM','R5XV2EPZQZ','MZU6U2429S'][g * 3 + [0, 1, 1, 2, 2][k + 1] + 1]
        end as term
    from termed
), costed as (
    select *,
        case when cap_i = 2 and slot = 0 then 0.0
             when slot = 0 then base_price * (1 + 0.35 * os_i + 0.9 * sw_i + 0.1 * ten_i)
             when k = 0 then base_price * discount
             when k = 1 then base_price * discount * 0.48
             when k = 2 then round(base_price * discount * 0.5 * 8760 * years)
             when k = 3 then 0.0
             else round(base_price * discount * 0.97 * 8760 * years) end as price
    from priced
)
select
    sku as "SKU",
    term as "OfferTermCode",
    sku || '.' || term || '.' || case when fee then '2TG2D8R56U' else '6YS6EN2CT7' end as "RateCode",
    case when on_demand then 'OnDemand' else 'Reserved' end as "TermType",
    case when other_family then '$' || printf('%.3f', price) || ' per GB - data transfer'
         when on_demand then '$' || printf('%.4f', price) || ' per On Demand ' || os || ' ' || itype || ' Instance Hour'
         when fee then 'Upfront Fee'
         else os || ' (Amazon VPC), ' || itype || ' reserved instance applied' end as "PriceDescription",
    $effective as "EffectiveDate",
    case when fee then null else '0' end as "StartingRange",
    case when fee then null else 'Inf' end as "EndingRange",
    case when other_family then 'GB' when fee then 'Quantity' else 'Hrs' end as "Unit",
    case when fee then printf('%.0f', price) else printf('%.10f', price) end as "PricePerUnit",
    'USD' as "Currency",
    null as "RelatedTo",
    case when on_demand then null else lease end as "LeaseContractLength",
    case when on_demand then null else purchase end as "PurchaseOption",
    case when on_demand then null else offering end as "OfferingClass",
    case when other_family then ['Data Transfer','Storage','IP Address'][v % 3 + 1]
         when itype like '%.metal' then 'Compute Instance (bare metal)'
         else 'Compute Instance' end as "Product Family",
    'AmazonEC2' as "serviceCode",
    'US East (N. Virginia)' as "Location",
    'AWS Region' as "Location Type",
    case when other_family then null else itype end as "Instance Type",
    'Yes' as "Current Generation",
    case when ours then 'GPU instance' else 'General purpose' end as "Instance Family",
    case when ours then '96' else ((f % 8 + 1) * 4)::varchar end as "vCPU",
    'Intel Xeon Platinum 8275L' as "Physical Processor",
    '3 GHz' as "Clock Speed",
    case when ours then '1152 GiB' else ((f % 8 + 1) * 16)::varchar || ' GiB' end as "Memory",
    case when ours then '8 x 1000 SSD' else 'EBS only' end as "Storage",
    case when ours then '400 Gigabit' else 'Up to 12500 Megabit' end as "Network Performance",
    '64-bit' as "Processor Architecture",
    null as "Storage Media", null as "Volume Type", null as "Max Volume Size", null as "Max IOPS/volume",
    null as "Max IOPS Burst Performance", null as "Max throughput/volume", null as "Provisioned",
    tenancy as "Tenancy",
    'Yes' as "EBS Optimized",
    os as "Operating System",
    'No License required' as "License Model",
    null as "Group", null as "Group Description", null as "Transfer Type", null as "From Location",
    null as "From Location Type", null as "To Location", null as "To Location Type",
    case when other_family then 'DataTransfer-Out-Bytes'
         else [['BoxUsage:','UnusedBox:','Reservation:'], ['DedicatedUsage:','UnusedDed:','DedicatedRes:'],
               ['HostBoxUsage:','HostUnused:','HostRes:']][ten_i + 1][cap_i + 1] || itype end as "usageType",
    case when sw_i = 1 then ['RunInstances:0004','RunInstances:0102','RunInstances:0014','RunInstances:0a04','RunInstances:0g04','RunInstances:1014'][os_i + 1]
         else ['RunInstances','RunInstances:0002','RunInstances:0010','RunInstances:000g','RunInstances:0g00','RunInstances:1010'][os_i + 1] end as "operation",
    'NA' as "AvailabilityZone",
    cap as "CapacityStatus",
    'false' as "ClassicNetworkingSupport",
    '19000 Mbps' as "Dedicated EBS Throughput",
    'NA' as "ECU", null as "Elastic Graphics Type",
    'Yes' as "Enhanced Networking Supported", null as "From Region Code",
    case when ours then '8' else null end as "GPU",
    case when ours then '320 GB' else null end as "GPU Memory",
    null as "Instance",
    null as "Instance Capacity - 10xlarge", null as "Instance Capacity - 12xlarge", null as "Instance Capacity - 16xlarge",
    null as "Instance Capacity - 18xlarge", null as "Instance Capacity - 24xlarge", null as "Instance Capacity - 2xlarge",
    null as "Instance Capacity - 32xlarge", null as "Instance Capacity - 4xlarge", null as "Instance Capacity - 8xlarge",
    null as "Instance Capacity - 9xlarge", null as "Instance Capacity - large", null as "Instance Capacity - medium",
    null as "Instance Capacity - metal", null as "Instance Capacity - xlarge",
    null as "instanceSKU",
    'Yes' as "Intel AVX2 Available", 'Yes' as "Intel AVX Available", 'Yes' as "Intel Turbo Available",
    'OnDemand' as "MarketOption",
    '192' as "Normalization Size Factor",
    '48' as "Physical Cores",
    sw as "Pre Installed S/W",
    'Intel AVX; Intel AVX2; Intel AVX512; Intel Turbo' as "Processor Features",
    null as "Product Type",
    'us-east-1' as "Region Code",
    null as "Resource Type",
    'Amazon Elastic Compute Cloud' as "serviceName",
    null as "SnapshotArchiveFeeType", null as "To Region Code", null as "Volume API Name",
    'true' as "VPCNetworkingSupport"
from costed
"""


def metadata_lines(publication: date) -> str:
    """The five metadata lines and the header line, as AWS writes them."""
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(["FormatVersion", "v1.0"])
    writer.writerow([
        "Disclaimer",
        "This pricing list is for informational purposes only. All prices are subject to the "
        "additional terms included in the pricing pages on http://aws.amazon.com. All Free Tier "
        "prices are also subject to the terms included at https://aws.amazon.com/free/",
    ])
    writer.writerow(["Publication Date", f"{publication.isoformat()}T00:00:00Z"])
    writer.writerow(["Version", f"{publication.strftime('%Y%m%d')}000000"])
    writer.writerow(["OfferCode", "AmazonEC2"])
    writer.writerow(HEADER_2025)
    return out.getvalue()


def _copy_rows(conn: duckdb.DuckDBPyConnection, target: Path, n: int, publication: date) -> None:
    params = {
        "n": n,
        "our_types": list(OUR_INSTANCES),
        "our_prices": list(OUR_INSTANCES.values()),
        "effective": publication.isoformat(),
    }
    rel = conn.sql(_ROWS_SQL, params=params)
    rel.write_csv(str(target), header=False, quotechar='"', quoting="ALL")


def generate(path: Path, size_gb: float = 1.0, publication: date = date(2025, 6, 1)) -> Path:
    """Write a file of about `size_gb` GB (1 GB = 1e9 bytes) to `path`, atomically; return it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = duckdb.connect()
    conn.sql("set preserve_insertion_order = true")
    with tempfile.TemporaryDirectory(dir=path.parent) as tmp:
        sample = Path(tmp) / "sample.csv"
        sample_rows = 20_000
        _copy_rows(conn, sample, sample_rows, publication)
        bytes_per_row = sample.stat().st_size / sample_rows
        n = max(ROWS_PER_PRODUCT * VARIANTS * len(OUR_INSTANCES), int(size_gb * 1e9 / bytes_per_row))
        body = Path(tmp) / "rows.csv"
        _copy_rows(conn, body, n, publication)
        partial = Path(tmp) / "index.csv"
        with partial.open("wb") as out, body.open("rb") as rows:
            out.write(metadata_lines(publication).encode())
            shutil.copyfileobj(rows, out, 16 << 20)
        os.replace(partial, path)
    conn.close()
    return path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--size-gb", type=float, default=1.0)
    parser.add_argument("--publication", type=date.fromisoformat, default=date(2025, 6, 1))
    args = parser.parse_args(argv)
    path = generate(args.out, args.size_gb, args.publication)
    print(f"{path}: {path.stat().st_size / 1e9:.2f} GB")


if __name__ == "__main__":
    main()
