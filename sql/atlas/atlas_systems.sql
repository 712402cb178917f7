-- Systems JSON of the corpus with the accelerator catalog's model (pipelines/ingest/accelerators.py).
create or replace table atlas_systems as
select
    round::varchar                       as round,
    folder::varchar                      as folder,
    system::varchar                      as system,
    submitter::varchar                   as submitter,
    system_name::varchar                 as system_name,
    division::varchar                    as division,
    status::varchar                      as status,
    status_class::varchar                as status_class,
    number_of_nodes::integer             as number_of_nodes,
    accelerators_per_node::integer       as accelerators_per_node,
    accelerators_total::integer          as accelerators_total,
    accelerator_model_name::varchar      as accelerator_model_name,
    accelerator_memory_capacity::varchar as accelerator_memory_capacity,
    host_processor_model_name::varchar   as host_processor_model_name,
    framework::varchar                   as framework,
    software::varchar                    as software,
    problem::varchar                     as problem,
    file::varchar                        as file,
    accelerator_model::varchar           as accelerator_model,
    vendor::varchar                      as vendor,
    cloud_model::varchar                 as cloud_model,
    assumption::varchar                  as assumption
from systems_in
order by round, folder, system;
