"""Blocking checks on staging: a failed check stops the run before the marts and the report.

Each failure message names the input file and row (or report.toml entry) to fix.
"""


import dagster as dg

from pipelines.defs.resources import PipelineSettings
from pipelines.warehouse import sql_text


def _result(problems: list[str], ok: str) -> dg.AssetCheckResult:
    if problems:
        shown = problems[:20] + ([f"... and {len(problems) - 20} more"] if len(problems) > 20 else [])
        return dg.AssetCheckResult(
            passed=False,
            description="; ".join(shown),
            metadata={"problems": dg.MetadataValue.md("\n".join(f"- {p}" for p in shown)), "count": len(problems)},
        )
    return dg.AssetCheckResult(passed=True, description=ok)


@dg.asset_check(asset="stg_prices", blocking=True,
                description="Every price is positive, finite and in USD.")
def prices_are_valid_usd(settings: PipelineSettings) -> dg.AssetCheckResult:
    with settings.connect(read_only=True) as conn:
        rows = conn.sql(
            "select file, line, usd_per_hour, currency from stg_prices "
            "where not (isfinite(usd_per_hour) and usd_per_hour > 0) or currency <> 'USD'"
        ).fetchall()
    return _result([f"{f}:{l}: price {p} {c} is not a positive, finite USD amount" for f, l, p, c in rows],
                   "all prices positive, finite, USD")


@dg.asset_check(asset="stg_prices", blocking=True,
                description="One price per (provider, region, instance_type, pricing option, as_of).")
def one_price_per_instance_and_date(settings: PipelineSettings) -> dg.AssetCheckResult:
    with settings.connect(read_only=True) as conn:
        rows = conn.sql(
            "select provider, region, instance_type, concat_ws(' ', pricing_model, term_years || 'y', payment_option, "
            "offering_class), as_of, string_agg(file || ':' || line, ', ') "
            "from stg_prices group by provider, region, instance_type, pricing_model, term_years, payment_option, "
            "offering_class, as_of having count(*) > 1"
        ).fetchall()
    return _result([f"{p}/{r}/{t} ({option}) on {d} is priced more than once ({where})"
                    for p, r, t, option, d, where in rows],
                   "one price per instance, pricing option and date")


@dg.asset_check(asset="stg_comparisons", blocking=True,
                additional_deps=["stg_instances", "stg_mappings", "stg_prices", "stg_results", "stg_report_settings"],
                description="Every compared instance has an instance row, a mapping per benchmark and a price in "
                            "force at the price date; every mapped system has results.")
def comparisons_are_covered(settings: PipelineSettings) -> dg.AssetCheckResult:
    with settings.connect(read_only=True) as conn:
        rows = conn.sql(sql_text("check_comparison_coverage")).fetchall()
    return _result([f"{where}: {problem}" for where, problem in rows], "every compared instance is covered")
