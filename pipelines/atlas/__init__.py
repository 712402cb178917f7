"""The MLPerf price-performance atlas (python -m pipelines.atlas)."""
