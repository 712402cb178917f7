"""Dagster wiring only: assets, checks, sensors, schedules and resources."""
