-- Report-wide settings from report.toml (one row); price_date null means the newest snapshot.
-- regions: the region bought in per provider ([regions]), which the atlas prices in too.
create or replace table stg_report_settings as
select
    title::varchar       as title,
    subtitle::varchar    as subtitle,
    author::varchar      as author,
    benchmarks::varchar[] as benchmarks,
    price_date::date     as price_date,
    regions::struct(provider varchar, region varchar)[] as regions,
    config_path::varchar as config_path
from settings_in;
