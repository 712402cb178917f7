-- Every benchmark entry of the MLPerf corpus, scored as the official summarizer scores it (null time: see reason).
create or replace table atlas_scores as
select
    round::varchar                 as round,
    submitter::varchar             as submitter,
    system::varchar                as system,
    benchmark::varchar             as benchmark,
    runs::integer                  as runs,
    dropped_runs::integer          as dropped_runs,
    time_to_train_minutes::double  as time_to_train_minutes,
    reason::varchar                as reason,
    division::varchar              as division,
    rule_deviation::varchar        as rule_deviation,
    deviates_from_rules::boolean   as deviates_from_rules,
    official_crash::varchar        as official_crash,
    scaling_factor::double         as scaling_factor,
    benchmark_model::varchar       as benchmark_model,
    folder::varchar                as folder,
    benchmark_path::varchar        as benchmark_path,
    quirk::varchar                 as quirk,
    global_batch_size::bigint      as global_batch_size,   -- closed division, as the summarizer's detailed CSV
    summarizer_samples_to_converge::double as summarizer_samples_to_converge,  -- its unit: samples or epochs
    samples_to_converge::double    as samples_to_converge, -- the same in training samples
    energy_joules::double          as energy_joules,
    energy_kwh::double             as energy_kwh,
    official_energy_joules::double as official_energy_joules,
    energy_runs::integer           as energy_runs,
    energy_note::varchar           as energy_note
from scores_in
order by round, folder, system, benchmark, benchmark_path;
