-- Cloud instances the atlas prices results on: the one instance catalog (stg_instances), each with
-- the accelerator catalog's cloud model it carries and how it is billed (instance, or chip for Cloud TPUs).
create or replace table atlas_instances as
select provider, instance_type, accelerator_model, accelerator_count, billing, notes
from stg_instances
order by provider, instance_type;
