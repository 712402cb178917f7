-- Cloud instances the atlas prices results on: the one instance catalog (stg_instances), each with
-- the accelerator catalog's cloud model it carries, how it is billed (instance, or chip for Cloud TPUs), its
-- inter-node fabric where stated, and where the row comes from (instances.csv or a public catalog).
create or replace table atlas_instances as
select provider, instance_type, accelerator_model, accelerator_count, billing, fabric, fabric_gbps_per_accelerator, origin, notes
from stg_instances
order by provider, instance_type;
