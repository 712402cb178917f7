-- Every price snapshot, in the export's columns.
create or replace table price_history as
select provider, region, instance_type, usd_per_hour, as_of, source, file, line
from stg_prices
order by provider, region, instance_type, as_of;
