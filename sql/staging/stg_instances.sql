-- Instances: accelerator configuration of every cloud instance the report can price.
create or replace table stg_instances as
select
    provider::varchar            as provider,
    instance_type::varchar       as instance_type,
    accelerator::varchar         as accelerator,
    accelerator_count::integer   as accelerator_count,
    accelerator_memory_gb::double as accelerator_memory_gb,
    vcpus::integer               as vcpus,
    memory_gib::double           as memory_gib,
    file::varchar                as file,
    line::integer                as line
from instances_in
order by provider, instance_type;
