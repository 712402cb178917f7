"""Pure polars functions that compute the report's figures."""
