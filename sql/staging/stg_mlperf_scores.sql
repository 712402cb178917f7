-- MLPerf scores computed from the trees by the official rules (null time: not scorable, see reason);
-- measured energy per training run where the benchmark has power logs (null otherwise: see energy_note).
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
    global_batch_size::bigint      as global_batch_size,   -- closed division, as the summarizer's detailed CSV
    summarizer_samples_to_converge::double as summarizer_samples_to_converge,  -- its unit: samples or epochs
    samples_to_converge::double    as samples_to_converge, -- the same in training samples
    energy_joules::double          as energy_joules,
    energy_kwh::double             as energy_kwh,
    official_energy_joules::double as official_energy_joules,
    energy_runs::integer           as energy_runs,
    energy_note::varchar           as energy_note,
    tree::varchar                  as tree
from scores_in
order by round, submitter, system, benchmark;
