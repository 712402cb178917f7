"""The report: the data set's raw files, staging tables and their blocking checks, the marts, and the
published documents (HTML, PDF, data files)."""
