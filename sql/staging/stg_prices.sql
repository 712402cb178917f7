-- Every price snapshot ever loaded, one row per (provider, region, instance_type, pricing option, as_of).
-- usd_per_hour is the effective hourly rate (recurring + upfront / (term_years x 8760 h)); a spot price that
-- stands for several zones keeps their count and range, and the provider's interruption-frequency bucket;
-- offer_kind: what the price is (list, spot, commitment, quote, marketplace, auction: pipelines/domain/offers.py).
create or replace table stg_prices as
select
    provider::varchar                 as provider,
    region::varchar                   as region,
    instance_type::varchar            as instance_type,
    pricing_model::varchar            as pricing_model,
    term_years::integer               as term_years,
    payment_option::varchar           as payment_option,
    offering_class::varchar           as offering_class,
    usd_per_hour::double              as usd_per_hour,
    upfront_usd::double               as upfront_usd,
    recurring_usd_per_hour::double    as recurring_usd_per_hour,
    'USD'::varchar                    as currency,
    as_of::date                       as as_of,
    source::varchar                   as source,
    certainty::varchar                as certainty,
    zone_count::integer               as zone_count,
    zone_min_usd_per_hour::double     as zone_min_usd_per_hour,
    zone_max_usd_per_hour::double     as zone_max_usd_per_hour,
    interruption_frequency::varchar   as interruption_frequency,
    offer_kind::varchar               as offer_kind,
    file::varchar                     as file,
    line::varchar                     as line
from prices_in
order by provider, region, instance_type, pricing_model, term_years nulls first, payment_option nulls first,
         offering_class nulls first, as_of;
