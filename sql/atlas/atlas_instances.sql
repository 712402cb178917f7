-- Cloud instances the atlas prices results on (raw/atlas/instances.csv).
create or replace table atlas_instances as
select
    provider::varchar as provider, instance_type::varchar as instance_type,
    accelerator_model::varchar as accelerator_model, accelerator_count::integer as accelerator_count,
    billing::varchar as billing, notes::varchar as notes
from instances_in
order by provider, instance_type;
