"""MLPerf results: their raw inputs (result CSVs, result trees, systems JSON), the report's result trees scored
into staging with stg_results and stg_systems, and the corpus's rounds (MLPERF_DIR) as partitions scored one
round per run, with the sensor that finds new and changed rounds."""
