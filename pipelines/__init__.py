"""Cost-to-train report pipeline: MLPerf results and cloud prices to an HTML and PDF report."""
