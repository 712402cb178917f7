-- MLPerf scores in long form: one row per (round, system, benchmark) with a time to train; benchmark is the
-- name the report compares by (v2.0-v4.1 ssd = retinanet, v4.0-v4.1 gnn = rgat: domain.mlperf.report_benchmark).
create or replace table stg_results as
select
    round::varchar                   as round,
    round_order::integer             as round_order,
    submitter::varchar               as submitter,
    system::varchar                  as system,
    benchmark::varchar               as benchmark,
    time_to_train_minutes::double    as time_to_train_minutes,
    runs::integer                    as runs,
    dropped_runs::integer            as dropped_runs,
    samples_per_second::double       as samples_per_second,
    global_batch_size::bigint        as global_batch_size,    -- the summarizer's detailed CSV or the tree's logs
    samples_to_converge::double      as samples_to_converge,  -- training samples to reach the target
    origin::varchar                  as origin,
    file::varchar                    as file,
    line::varchar                    as line,
    division::varchar                as division,                -- closed or open
    accelerator_model_name::varchar  as accelerator_model_name,  -- as the summarizer's CSV names it; null from a
    accelerators_count::integer      as accelerators_count       -- tree (its systems JSON in stg_systems says it)
from results_in
order by system, benchmark, round;
