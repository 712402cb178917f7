-- The report's price date (report.toml, else the newest on-demand snapshot of the compared instances) and the
-- on-demand snapshot of those instances before it ("What changed" compares the two). On demand sets the date: spot
-- and commitment snapshots (which may be newer) count from the date on, as their newest price dated on or before it,
-- but do not move it; nor does a price of an instance the report does not compare (the catalog also serves the atlas).
-- A whole_market comparison compares every instance with the accelerators (model and count) of one it lists.
-- One query, the one home of this rule: the report_dates mart stores it, the coverage check
-- (checks/check_comparison_coverage.sql) runs it before the marts exist.
with market as (
    select distinct i.provider, i.instance_type
    from stg_instances i
    join stg_instances listed using (accelerator_model, accelerator_count)
    join stg_comparisons c on c.whole_market and c.provider = listed.provider and c.instance_type = listed.instance_type
),
compared as (
    select p.* from stg_prices p
    where p.pricing_model = 'on_demand'
      and not list_contains(coalesce((select exclude_offer_kinds from stg_report_settings), []), p.offer_kind)
      and (exists (select 1 from stg_comparisons c where c.provider = p.provider and c.instance_type = p.instance_type)
           or exists (select 1 from market m where m.provider = p.provider and m.instance_type = p.instance_type))
),
price_date as (
    select coalesce((select price_date from stg_report_settings), (select max(as_of) from compared)) as price_date
)
select
    price_date,
    (select max(as_of) from compared where as_of < price_date) as previous_price_date,
    (select min(as_of) from stg_prices) as first_price_date
from price_date
