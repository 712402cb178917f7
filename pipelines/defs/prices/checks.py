"""Blocking checks on the price book: a failed check stops the run before the marts, the report and the atlas.

Each failure message names the input file and row to fix.
"""


import dagster as dg

from pipelines.defs.metadata import RECHECK
from pipelines.defs.resources import PipelineSettings
from pipelines.defs.staging import check_result


@dg.asset_check(asset="stg_prices", blocking=True, automation_condition=RECHECK,
                description="Every price is positive, finite and in USD.")
def prices_are_valid_usd(settings: PipelineSettings) -> dg.AssetCheckResult:
    with settings.connect(read_only=True) as conn:
        rows = conn.sql(
            "select file, line, usd_per_hour, currency from stg_prices "
            "where not (isfinite(usd_per_hour) and usd_per_hour > 0) or currency <> 'USD'"
        ).fetchall()
    return check_result([f"{f}:{l}: price {p} {c} is not a positive, finite USD amount" for f, l, p, c in rows],
                   "all prices positive, finite, USD")


@dg.asset_check(asset="stg_prices", blocking=True, automation_condition=RECHECK,
                description="One price per (provider, region, instance_type, pricing option, as_of).")
def one_price_per_instance_and_date(settings: PipelineSettings) -> dg.AssetCheckResult:
    with settings.connect(read_only=True) as conn:
        rows = conn.sql(
            "select provider, region, instance_type, concat_ws(' ', pricing_model, term_years || 'y', payment_option, "
            "offering_class), as_of, string_agg(file || ':' || line, ', ') "
            "from stg_prices group by provider, region, instance_type, pricing_model, term_years, payment_option, "
            "offering_class, as_of having count(*) > 1"
        ).fetchall()
    return check_result([f"{p}/{r}/{t} ({option}) on {d} is priced more than once ({where})"
                    for p, r, t, option, d, where in rows],
                   "one price per instance, pricing option and date")
