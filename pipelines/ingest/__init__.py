"""Pure parsers for every input kind; they know nothing of Dagster or DuckDB."""
