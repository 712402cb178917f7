-- Data-centre PUE per provider (empty region: the fleet figure) and region (carbon/pue.csv).
create or replace table stg_pue as
select
    provider::varchar as provider,
    region::varchar   as region,
    pue::double       as pue,
    as_of::date       as as_of,
    source::varchar   as source,
    file::varchar     as file,
    line::integer     as line
from pue_in
order by provider, region nulls first;
