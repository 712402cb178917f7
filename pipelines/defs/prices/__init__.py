"""Prices: the cloud market's raw inputs (price snapshots, public catalogs, instance and accelerator catalogs,
carbon factors), their staging tables (stg_prices, stg_instances, stg_catalog_offers, stg_accelerators,
stg_board_power, stg_grid_intensity, stg_pue), the price book's blocking checks, and the price fetch
(fetched_price_files, fetch_prices_job) that downloads the providers' lists into RAW_DIR/prices."""
