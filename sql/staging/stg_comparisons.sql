-- The comparisons of report.toml, one row per (comparison, instance, benchmark).
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
    config_path::varchar       as config_path
from comparisons_in
order by comparison, benchmark_position, position;
