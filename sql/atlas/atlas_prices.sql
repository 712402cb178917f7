-- Dated on-demand prices of the atlas instances (raw/atlas/prices.csv), with certainty and source.
create or replace table atlas_prices as
select
    provider::varchar as provider, region::varchar as region, instance_type::varchar as instance_type,
    usd_per_hour::double as usd_per_hour, as_of::date as as_of, certainty::varchar as certainty,
    source::varchar as source
from prices_in
order by provider, instance_type, as_of;
