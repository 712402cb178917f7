-- Every result file of the MLPerf corpus: minutes, scored or dropped, and why; measured energy
-- of the run where its benchmark has power logs.
create or replace table atlas_runs as
select
    round::varchar    as round,
    folder::varchar   as folder,
    system::varchar   as system,
    benchmark::varchar as benchmark,
    run_file::varchar as run_file,
    minutes::double   as minutes,
    status::varchar   as status,
    reason::varchar   as reason,
    energy_joules::double         as energy_joules,
    energy_kwh::double            as energy_kwh,
    official_energy_joules::double as official_energy_joules,
    power_nodes::integer          as power_nodes,
    power_switches::integer       as power_switches,
    energy_averaged::boolean      as energy_averaged,
    energy_note::varchar          as energy_note
from runs_in
order by round, folder, system, benchmark, run_file;
