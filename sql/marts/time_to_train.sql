-- Time to train per (system, benchmark): the newest round that scored it.
create or replace table time_to_train as
select
    system, benchmark, round, submitter, time_to_train_minutes, runs, dropped_runs,
    samples_per_second, global_batch_size, samples_to_converge, origin, file, line
from stg_results
where time_to_train_minutes is not null
qualify row_number() over (
    partition by system, benchmark
    order by round_order desc nulls last, file  -- round_order: domain.rounds.round_order, the one round key
) = 1
order by system, benchmark;
