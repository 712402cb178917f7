-- The comparisons of report.toml, one row per (comparison, instance, benchmark); whole_market: the comparison also
-- takes every other priced offer with the accelerators of a listed instance (pipelines/metrics/market.py).
create or replace table stg_comparisons as
select
    comparison::varchar        as comparison,
    comparison_title::varchar  as comparison_title,
    description::varchar       as description,
    position::integer          as position,
    provider::varchar          as provider,
    region::varchar            as region,
    instance_type::varchar     as instance_type,
    benchmark::varchar         as benchmark,
    benchmark_position::integer as benchmark_position,
    is_baseline::boolean       as is_baseline,
    whole_market::boolean      as whole_market,
    config_path::varchar       as config_path
from comparisons_in
order by comparison, benchmark_position, position;
