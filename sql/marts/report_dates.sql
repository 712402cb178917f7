-- The report's price date (report.toml, else the newest on-demand snapshot) and the on-demand snapshot before it.
-- On demand sets the date: spot and commitment snapshots (which may be newer) count from the date on, as
-- their newest price dated on or before it, but do not move it.
create or replace table report_dates as
with price_date as (
    select coalesce((select price_date from stg_report_settings), (select max(as_of) from stg_prices where pricing_model = 'on_demand')) as price_date
)
select
    price_date,
    (select max(as_of) from stg_prices where pricing_model = 'on_demand' and as_of < price_date) as previous_price_date,
    (select min(as_of) from stg_prices) as first_price_date
from price_date;
