-- Throughput a team measured itself (samples per second), per system and benchmark.
create or replace table stg_throughput as
select
    system::varchar               as system,
    benchmark::varchar            as benchmark,
    samples_per_second::double    as samples_per_second,
    framework::varchar            as framework,
    precision::varchar            as precision,
    global_batch_size::integer    as global_batch_size,
    source::varchar               as source,
    measured_on::date             as measured_on,
    file::varchar                 as file,
    line::integer                 as line
from throughput_in
order by system, benchmark;
