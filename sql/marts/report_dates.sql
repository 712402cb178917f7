-- The report's price date (report.toml, else the newest snapshot) and the snapshot before it.
create or replace table report_dates as
with price_date as (
    select coalesce((select price_date from stg_report_settings), (select max(as_of) from stg_prices)) as price_date
)
select
    price_date,
    (select max(as_of) from stg_prices where as_of < price_date) as previous_price_date,
    (select min(as_of) from stg_prices) as first_price_date
from price_date;
