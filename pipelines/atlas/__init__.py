"""The MLPerf price-performance atlas: its context, charts and rendering (built by the Dagster assets of pipelines/defs/atlas_*.py)."""
