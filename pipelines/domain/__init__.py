"""The vocabulary every layer shares: column meanings and units, MLPerf rounds, benchmarks and
rules, the :::MLLOG line reader, pricing options. It imports nothing else of the project, so
ingest, metrics, publish and the Dagster wiring can all point down to it (pyproject.toml's
import-linter contracts keep it so)."""
