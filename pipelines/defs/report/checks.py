"""Blocking checks on the report's staging: a failed check stops the run before the marts and the report.

Each failure message names the input file and row (or report.toml entry) to fix.
"""


import dagster as dg

from pipelines.defs.report.marts import report_dates_frame
from pipelines.defs.metadata import RECHECK
from pipelines.defs.resources import PipelineSettings
from pipelines.defs.staging import check_result
from pipelines.domain.mlperf import MLPERF_BENCHMARKS
from pipelines.ingest.names import did_you_mean, listed, unknown_name
from pipelines.warehouse import query


@dg.asset_check(asset="stg_comparisons", blocking=True, automation_condition=RECHECK,
                additional_deps=["stg_instances", "stg_mappings", "stg_prices", "stg_results", "stg_throughput",
                                 "stg_systems", "stg_report_settings"],
                description="Every throughput row and mapping names a known system, benchmark or workload and "
                            "instance, every instance of report.toml's comparisons and discounts is a row of "
                            "instances.csv and every region one with prices (an unknown name lists the valid ones, "
                            "with the nearest for a near miss); every compared instance has a mapping (or throughput "
                            "measured on it) per benchmark and a price in force at the price date; every mapped "
                            "system has results.")
def comparisons_are_covered(settings: PipelineSettings) -> dg.AssetCheckResult:
    with settings.connect(read_only=True) as conn:
        # names first: a misspelled system or benchmark would otherwise read as a missing mapping or result
        problems = _throughput_problems(conn) + _mapping_problems(conn) + _report_config_problems(conn)
        if not problems:
            gaps = query(conn, "check_comparison_coverage", report_dates_in=report_dates_frame(conn))
            problems = [f"{where}: {problem}" for where, problem in gaps.rows()]
    return check_result(problems, "every throughput row and mapping names known things; every compared instance is covered")


def _names(rows: list[tuple]) -> list[str]:
    return [r[0] for r in rows if r[0] is not None]


def _known_benchmarks(conn) -> list[str]:
    workloads = _names(conn.sql("select unnest(workloads).name from stg_report_settings").fetchall())
    return [*MLPERF_BENCHMARKS, *workloads]


# what to do about an unknown benchmark: a team's own workload is declared in report.toml
_HINTS = {"benchmark": "; a workload of your own is declared in report.toml ([workloads.<name>]), else remove its rows"}


def _name_problems(rows: list[tuple], checks: list[tuple[int, str, list[str]]]) -> list[str]:
    """rows of (file, line, value...); checks of (value index, column name, known values). One problem per file,
    column and unknown name, with every line it is on ("example_workload.csv:2, 3, 4 column benchmark: ...")."""
    lines: dict[tuple[str, str, str], list[str]] = {}
    for row in rows:
        for index, column, known in checks:
            problem = unknown_name(column, row[index], known)
            if problem:  # a row derived from another (no line of its own) shares that row's problem
                at = lines.setdefault((row[0], column, problem + _HINTS.get(column, "")), [])
                if row[1] is not None and str(row[1]) not in at:
                    at.append(str(row[1]))
    return [f"{file}{':' + ', '.join(at) if at else ''} column {column}: {problem}"
            for (file, column, problem), at in lines.items()]


def _throughput_problems(conn) -> list[str]:
    """Every throughput row names a known system (a systems JSON, a scored system, a system of
    mappings.csv, or an instance as provider/instance_type) and a known benchmark or workload."""
    systems = _names(conn.sql("select system from stg_systems union select system from stg_results "
                           "union select system from stg_mappings "
                           "union select provider || '/' || instance_type from stg_instances").fetchall())
    rows = conn.sql("select file, line, system, benchmark from stg_throughput order by file, line").fetchall()
    return _name_problems(rows, [(2, "system", systems), (3, "benchmark", _known_benchmarks(conn))])


def _mapping_problems(conn) -> list[str]:
    """Every mapping names an instance of instances.csv, a known benchmark or workload, and a system
    with a systems JSON, a result or measured throughput."""
    systems = _names(conn.sql("select system from stg_systems union select system from stg_results "
                           "union select system from stg_throughput").fetchall())
    instances = _names(conn.sql("select provider || '/' || instance_type from stg_instances").fetchall())
    rows = conn.sql("select file, line, provider || '/' || instance_type, benchmark, system from stg_mappings "
                    "order by file, line").fetchall()
    return (_name_problems(rows, [(2, "instance", instances), (3, "benchmark", _known_benchmarks(conn))])
            + _name_problems([r for r in rows if r[4] is not None], [(4, "system", systems)]))


def _report_config_problems(conn) -> list[str]:
    """report.toml's instances (comparisons and discounts) are rows of instances.csv, and each
    compared instance's region (report.toml [regions], or its own @region) is one its provider has
    prices in: a typo names the instance or region meant, not six gaps it leaves downstream."""
    instances = _names(conn.sql("select provider || '/' || instance_type from stg_instances").fetchall())
    compared = conn.sql("select distinct config_path, provider, instance_type, region from stg_comparisons "
                        "order by config_path").fetchall()
    problems = []
    for where, provider, instance_type, region in compared:
        problem = unknown_name("instance", f"{provider}/{instance_type}", instances)
        if problem:
            problems.append(f"{where}: {problem}; the instances are the rows of instances.csv")
            continue
        regions = _names(conn.sql("select distinct region from stg_prices where provider = ? order by 1",
                                  params=[provider]).fetchall())
        if region not in regions:
            problems.append(f"{where}: {provider}/{instance_type} is priced in region {region!r}, where prices/ has "
                            f"no {provider} price{did_you_mean(region, regions)} (regions with {provider} prices: "
                            f"{listed(regions) or 'none'}; set in report.toml [regions] or as "
                            f"{provider}/{instance_type}@<region>)")
    config, discounts = conn.sql("select config_path, discounts from stg_report_settings").fetchall()[0]
    for i, discount in enumerate(discounts or []):
        if discount["instance_type"] is None:
            continue
        types = [name.split("/", 1)[1] for name in instances if name.startswith(discount["provider"] + "/")]
        problem = unknown_name(f"{discount['provider']} instance", discount["instance_type"], types)
        if problem:
            problems.append(f"{config}:discounts[{i}].instance: {problem}")
    return problems
