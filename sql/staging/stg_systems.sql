-- MLPerf systems JSON: the configuration of each measured system, for the footnotes.
create or replace table stg_systems as
select
    system::varchar                    as system,
    system_name::varchar               as system_name,
    submitter::varchar                 as submitter,
    division::varchar                  as division,
    status::varchar                    as status,
    number_of_nodes::integer           as number_of_nodes,
    accelerators_per_node::integer     as accelerators_per_node,
    accelerators_total::integer        as accelerators_total,
    accelerator_model_name::varchar    as accelerator_model_name,
    accelerator_memory_capacity::varchar as accelerator_memory_capacity,
    host_processor_model_name::varchar as host_processor_model_name,
    host_processors_per_node::integer  as host_processors_per_node,
    host_memory_capacity::varchar      as host_memory_capacity,
    framework::varchar                 as framework,
    software::varchar                  as software,
    operating_system::varchar          as operating_system,
    file::varchar                      as file
from systems_in
order by system;
