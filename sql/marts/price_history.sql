-- Every price snapshot, in the export's columns: the first six as they always were, then the pricing option,
-- then who sells at the price (offer_kind).
create or replace table price_history as
select provider, region, instance_type, usd_per_hour, as_of, source,
       pricing_model, term_years, payment_option, offering_class, upfront_usd, recurring_usd_per_hour,
       certainty, zone_count, zone_min_usd_per_hour, zone_max_usd_per_hour, interruption_frequency, offer_kind,
       file, line
from stg_prices
order by provider, region, instance_type, pricing_model, term_years nulls first, payment_option nulls first,
         offering_class nulls first, as_of;
