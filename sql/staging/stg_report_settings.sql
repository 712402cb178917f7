-- Report-wide settings from report.toml (one row); price_date null means the newest on-demand snapshot.
-- regions: the region bought in per provider ([regions]), which the atlas prices in too.
-- pricing_models: the pricing options the report shows, in order; baseline_pricing: the option savings are
-- measured against; exclude_offer_kinds: kinds of offer (pipelines/domain/offers.py) left out of the report and
-- the atlas; headline_offer_kinds: the kinds the answer's "cheapest" considers (the others are shown apart); workloads: a team's own training runs (report.toml [workloads]); discounts: the user's negotiated percent off a pricing model (pipelines/metrics/pricing_options.py).
create or replace table stg_report_settings as
select
    title::varchar       as title,
    subtitle::varchar    as subtitle,
    author::varchar      as author,
    benchmarks::varchar[] as benchmarks,
    price_date::date     as price_date,
    regions::struct(provider varchar, region varchar)[] as regions,
    config_path::varchar as config_path,
    pricing_models::varchar[] as pricing_models,
    baseline_pricing::varchar as baseline_pricing,
    discounts::struct(provider varchar, instance_type varchar, pricing_model varchar, percent double)[] as discounts,
    runs_per_month::integer[] as runs_per_month,
    stale_after_days::integer as stale_after_days,
    exclude_offer_kinds::varchar[] as exclude_offer_kinds,
    headline_offer_kinds::varchar[] as headline_offer_kinds,
    workloads::struct(name varchar, title varchar, samples double, runs_per_month integer, description varchar)[] as workloads
from settings_in;
