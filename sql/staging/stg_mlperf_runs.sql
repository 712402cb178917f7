-- Every MLPerf result file read from the trees: minutes, status and why a run was dropped;
-- measured energy of the run where the benchmark has power logs (null otherwise).
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
    samples_per_second::double    as samples_per_second,
    energy_joules::double         as energy_joules,
    energy_kwh::double            as energy_kwh,
    official_energy_joules::double as official_energy_joules,
    power_nodes::integer          as power_nodes,
    power_switches::integer       as power_switches,
    energy_averaged::boolean      as energy_averaged,
    energy_note::varchar          as energy_note
from runs_in
order by round, submitter, system, benchmark, run_file;
