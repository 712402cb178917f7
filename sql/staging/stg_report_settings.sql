-- Report-wide settings from report.toml (one row); price_date null means the newest snapshot.
create or replace table stg_report_settings as
select
    title::varchar       as title,
    subtitle::varchar    as subtitle,
    author::varchar      as author,
    benchmarks::varchar[] as benchmarks,
    price_date::date     as price_date,
    config_path::varchar as config_path
from settings_in;
