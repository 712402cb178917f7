-- MLPerf scores computed from the trees by the official rules (null time: not scorable, see reason).
create or replace table stg_mlperf_scores as
select
    round::varchar                 as round,
    submitter::varchar             as submitter,
    system::varchar                as system,
    benchmark::varchar             as benchmark,
    runs::integer                  as runs,
    dropped_runs::integer          as dropped_runs,
    time_to_train_minutes::double  as time_to_train_minutes,
    reason::varchar                as reason,
    samples_per_second::double     as samples_per_second,
    tree::varchar                  as tree
from scores_in
order by round, submitter, system, benchmark;
