"""Prices: the price fetch (fetched_price_files, fetch_prices_job) that downloads the providers' lists into RAW_DIR/prices."""
