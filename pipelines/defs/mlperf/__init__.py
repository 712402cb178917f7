"""MLPerf results: the report's result trees scored into staging, and the corpus's rounds (MLPERF_DIR) as
partitions scored one round per run, with the sensor that finds new and changed rounds."""
