-- Board power (TDP) per accelerator model, from the accelerator catalog's board_power_* columns
-- (null: no vendor figure, no estimate). The energy estimate of a result without power logs.
create or replace table stg_board_power as
select
    model::varchar              as model,
    board_power_w::double       as board_power_w,
    board_power_source::varchar as board_power_source,
    board_power_as_of::date     as board_power_as_of
from board_power_in
order by model;
