"""Cloud prices under every pricing model, from every supported format, into one validated polars frame.

    read_price_file(path, instances)    one file, any format (recognized by content)
    read_price_folder(folder, instances) every file under a folder: all snapshots, history kept

Columns (PRICE_COLUMNS, in order): provider, region, instance_type, usd_per_hour (Float64, the
effective hourly rate), as_of (Date), source, the pricing option (pricing_model, term_years,
payment_option, offering_class), upfront_usd, recurring_usd_per_hour, certainty, the spot spread
(zone_count, zone_min_usd_per_hour, zone_max_usd_per_hour, interruption_frequency), file (relative
to the folder), line (line number, rate code or JSON path). Bad input raises
pipelines.domain.errors.InputError, never another exception.

Formats: the normalized CSV (normalized.py); AWS Price List CSV and JSON with reserved terms
(aws.py, aws_json.py, aws_terms.py), AWS savings plan offers (aws_savings_plans.py), EC2
DescribeSpotPriceHistory and the spot advisor (aws_spot.py); Azure Retail Prices API pages
(azure.py); GCP Cloud Billing Catalog SKU pages (gcp.py). detect.py tells them apart, read.py
combines what needs several files, combine.py enforces one price per (provider, region,
instance_type, pricing option, as_of).
"""

from pipelines.ingest.prices.normalized import MAX_USD_PER_HOUR, PRICE_COLUMNS, PRICE_SCHEMA
from pipelines.ingest.prices.read import read_price_file, read_price_folder

__all__ = ["MAX_USD_PER_HOUR", "PRICE_COLUMNS", "PRICE_SCHEMA", "read_price_file", "read_price_folder"]
