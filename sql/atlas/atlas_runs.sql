-- Every result file of the MLPerf corpus: minutes, scored or dropped, and why.
create or replace table atlas_runs as
select
    round::varchar    as round,
    folder::varchar   as folder,
    system::varchar   as system,
    benchmark::varchar as benchmark,
    run_file::varchar as run_file,
    minutes::double   as minutes,
    status::varchar   as status,
    reason::varchar   as reason
from runs_in
order by round, folder, system, benchmark, run_file;
