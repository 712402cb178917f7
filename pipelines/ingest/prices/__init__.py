"""Cloud on-demand prices from every supported format into one validated polars frame.

    read_price_file(path, instances)    one file, any format (recognized by content)
    read_price_folder(folder, instances) every file under a folder: all snapshots, history kept

Columns (PRICE_COLUMNS, in order): provider, region, instance_type, usd_per_hour (Float64),
as_of (Date), source, file (relative to the folder), line (line number or JSON path).
Bad input raises pipelines.errors.InputError, never another exception.

Formats: the normalized CSV (normalized.py), AWS Price List CSV and JSON (aws.py), Azure Retail
Prices API pages (azure.py), GCP Cloud Billing Catalog SKU pages (gcp.py); detect.py tells
them apart, combine.py enforces one price per (provider, region, instance_type, as_of).
"""

from pipelines.ingest.prices.normalized import MAX_USD_PER_HOUR, PRICE_COLUMNS, PRICE_SCHEMA
from pipelines.ingest.prices.read import read_price_file, read_price_folder

__all__ = ["MAX_USD_PER_HOUR", "PRICE_COLUMNS", "PRICE_SCHEMA", "read_price_file", "read_price_folder"]
