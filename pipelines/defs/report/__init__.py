"""The report: its own raw inputs and staging (report.toml's comparisons and settings, mappings.csv, the team's
throughput, the described models), the blocking check that every comparison is covered, the marts, and the
published documents (HTML, PDF, data files). Prices and MLPerf results come from defs/prices and defs/mlperf."""
