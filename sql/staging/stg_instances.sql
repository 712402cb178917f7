-- The one instance catalog: every cloud instance the report compares or the atlas prices, with its
-- accelerators, linked to the accelerator catalog (accelerator_model = a cloud_model of stg_accelerators):
-- instances.csv's rows and the catalog offers (origin); fabric where the provider states it.
create or replace table stg_instances as
select
    provider::varchar            as provider,
    instance_type::varchar       as instance_type,
    accelerator::varchar         as accelerator,
    accelerator_count::integer   as accelerator_count,
    accelerator_memory_gb::double as accelerator_memory_gb,
    vcpus::integer               as vcpus,
    memory_gib::double           as memory_gib,
    accelerator_model::varchar   as accelerator_model,
    billing::varchar             as billing,
    coalesce(notes, '')::varchar as notes,
    fabric::varchar              as fabric,
    fabric_gbps_per_accelerator::double as fabric_gbps_per_accelerator,
    origin::varchar              as origin,
    file::varchar                as file,
    line::integer                as line
from instances_in
order by provider, instance_type;
