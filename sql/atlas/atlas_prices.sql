-- The atlas's price book: the on-demand price history (from stg_prices) of each atlas instance in
-- the one region it is priced in (pipelines/metrics/atlas.py atlas_price_history), with certainty and source;
-- price_date: the date the atlas prices at (metrics.atlas.atlas_price_date), the same on every row.
create or replace table atlas_prices as
select
    provider::varchar as provider, region::varchar as region, instance_type::varchar as instance_type,
    usd_per_hour::double as usd_per_hour, as_of::date as as_of, certainty::varchar as certainty,
    source::varchar as source, offer_kind::varchar as offer_kind, file::varchar as file, line::varchar as line, price_date::date as price_date
from prices_in
order by provider, instance_type, as_of;
