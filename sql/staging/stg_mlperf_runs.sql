-- Every MLPerf result file read from the trees: minutes, status and why a run was dropped.
create or replace table stg_mlperf_runs as
select
    round::varchar                as round,
    submitter::varchar            as submitter,
    system::varchar               as system,
    benchmark::varchar            as benchmark,
    run_file::varchar             as run_file,
    minutes::double               as minutes,
    status::varchar               as status,
    reason::varchar               as reason,
    samples_per_second::double    as samples_per_second
from runs_in
order by round, submitter, system, benchmark, run_file;
