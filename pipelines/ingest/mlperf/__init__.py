"""Readers of MLPerf Training results: result logs and their compliance, power logs, the result
trees of a data set and the rounds of a corpus, scored as the official result summarizer scores them."""
