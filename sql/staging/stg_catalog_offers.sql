-- Every offer of the public catalogs (SkyPilot's vms.csv per cloud, newest snapshot's facts), one row per
-- (provider, instance_type); cloud_model null where the alias table does not know the accelerator.
create or replace table stg_catalog_offers as
select
    provider::varchar               as provider,
    instance_type::varchar          as instance_type,
    catalog_accelerator::varchar    as catalog_accelerator,
    gpu_name::varchar               as gpu_name,
    form_factor::varchar            as form_factor,
    accelerator_count::integer      as accelerator_count,
    accelerator_memory_gb::double   as accelerator_memory_gb,
    vcpus::double                   as vcpus,
    memory_gib::double              as memory_gib,
    offer_kind::varchar             as offer_kind,
    cloud_model::varchar            as cloud_model,
    file::varchar                   as file,
    line::integer                   as line
from offers_in
order by provider, instance_type;
