"""Column names of the AWS Price List (AmazonEC2) bulk CSV, and the ones the reader needs.

AWS adds and reorders columns between versions, so the reader maps columns by name. The full
header below is that of a real 2025 us-east-1 file; the fixtures and the benchmark generator
write it so they match what the fetch step downloads.
"""

from __future__ import annotations

METADATA_KEYS = ("FormatVersion", "Disclaimer", "Publication Date", "Version", "OfferCode")

HEADER_2025 = (
    "SKU", "OfferTermCode", "RateCode", "TermType", "PriceDescription", "EffectiveDate",
    "StartingRange", "EndingRange", "Unit", "PricePerUnit", "Currency", "RelatedTo",
    "LeaseContractLength", "PurchaseOption", "OfferingClass", "Product Family", "serviceCode",
    "Location", "Location Type", "Instance Type", "Current Generation", "Instance Family", "vCPU",
    "Physical Processor", "Clock Speed", "Memory", "Storage", "Network Performance",
    "Processor Architecture", "Storage Media", "Volume Type", "Max Volume Size", "Max IOPS/volume",
    "Max IOPS Burst Performance", "Max throughput/volume", "Provisioned", "Tenancy",
    "EBS Optimized", "Operating System", "License Model", "Group", "Group Description",
    "Transfer Type", "From Location", "From Location Type", "To Location", "To Location Type",
    "usageType", "operation", "AvailabilityZone", "CapacityStatus", "ClassicNetworkingSupport",
    "Dedicated EBS Throughput", "ECU", "Elastic Graphics Type", "Enhanced Networking Supported",
    "From Region Code", "GPU", "GPU Memory", "Instance", "Instance Capacity - 10xlarge",
    "Instance Capacity - 12xlarge", "Instance Capacity - 16xlarge", "Instance Capacity - 18xlarge",
    "Instance Capacity - 24xlarge", "Instance Capacity - 2xlarge", "Instance Capacity - 32xlarge",
    "Instance Capacity - 4xlarge", "Instance Capacity - 8xlarge", "Instance Capacity - 9xlarge",
    "Instance Capacity - large", "Instance Capacity - medium", "Instance Capacity - metal",
    "Instance Capacity - xlarge", "instanceSKU", "Intel AVX2 Available", "Intel AVX Available",
    "Intel Turbo Available", "MarketOption", "Normalization Size Factor", "Physical Cores",
    "Pre Installed S/W", "Processor Features", "Product Type", "Region Code", "Resource Type",
    "serviceName", "SnapshotArchiveFeeType", "To Region Code", "Volume API Name",
    "VPCNetworkingSupport",
)

# What the reader selects, by its own short name -> the file's column name.
NEEDED = {
    "sku": "SKU",
    "rate_code": "RateCode",
    "term_type": "TermType",
    "unit": "Unit",
    "price": "PricePerUnit",
    "currency": "Currency",
    "family": "Product Family",
    "instance_type": "Instance Type",
    "tenancy": "Tenancy",
    "os": "Operating System",
    "license": "License Model",
    "usage_type": "usageType",
    "capacity": "CapacityStatus",
    "software": "Pre Installed S/W",
    "region": "Region Code",
}

# Columns read when the file has them: reserved terms (absent from on-demand-only excerpts), the
# market option (Capacity Blocks share an instance's usage type, and older files lack the column)
# and the operation (with the usage type, what a savings plan rate names).
OPTIONAL = {
    "offer_term_code": "OfferTermCode",
    "lease": "LeaseContractLength",
    "purchase": "PurchaseOption",
    "offering": "OfferingClass",
    "market": "MarketOption",
    "operation": "operation",
}


def column_key(name: str) -> str:
    """A column name without case and spacing, so `usageType` and `Usage Type` match."""
    return "".join(name.lower().split())
