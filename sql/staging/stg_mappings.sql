-- Which measured system stands for an instance, per benchmark (null system: no measured result); derived_from:
-- the instance with the same accelerators whose mappings.csv row a compared instance without one takes.
create or replace table stg_mappings as
select
    provider::varchar      as provider,
    instance_type::varchar as instance_type,
    benchmark::varchar     as benchmark,
    nullif(system, '')::varchar as system,
    coalesce(note, '')::varchar as note,
    file::varchar          as file,
    line::integer          as line,
    derived_from::varchar  as derived_from
from mappings_in
order by provider, instance_type, benchmark;
