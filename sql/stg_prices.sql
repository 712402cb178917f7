-- Every price snapshot ever loaded, one row per (provider, region, instance_type, as_of).
create or replace table stg_prices as
select
    provider::varchar      as provider,
    region::varchar        as region,
    instance_type::varchar as instance_type,
    usd_per_hour::double   as usd_per_hour,
    'USD'::varchar         as currency,
    as_of::date            as as_of,
    source::varchar        as source,
    file::varchar          as file,
    line::varchar          as line
from prices_in
order by provider, region, instance_type, as_of;
