"""What one training run of each benchmark the report prices is: the methodology's table (domain/benchmarks.py),
which every benchmark's section links to."""

from __future__ import annotations

from pipelines.domain.benchmarks import benchmark_facts
from pipelines.publish import labels
from pipelines.publish.records import Cell, Column, Row, Table

COLUMNS = (Column("Benchmark", header=True), Column("Model trained"), Column("Data set"),
           Column("Quality target (closed division)", css="wrap"), Column("Runs a score", numeric=True),
           Column("Rounds"))


def benchmarks_table(number: int, benchmarks: list[str]) -> Table:
    """One row per benchmark name, in the report's order."""
    rows = []
    for name in dict.fromkeys(benchmarks):
        facts = benchmark_facts(name)
        rounds = f"{facts.rounds[0]}–{facts.rounds[-1]}" if len(facts.rounds) > 1 else "".join(facts.rounds)
        rows.append(Row((Cell(labels.short_benchmark(name)), Cell(facts.model), Cell(facts.dataset),
                         Cell(facts.target or "not in the rules"), Cell(str(facts.runs or "–"), sort=facts.runs),
                         Cell(rounds))))
    return Table(number, "What one training run of each benchmark trains, and to what quality (the quality target as "
                         "the official MLPerf checker tests it, newest round)", COLUMNS, tuple(rows),
                 css="benchmarks-table")
