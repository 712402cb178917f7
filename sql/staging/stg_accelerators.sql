-- The accelerator catalog (accelerators.csv), in file order: the first row that matches a systems
-- JSON's accelerator wins (pipelines/ingest/accelerators.py).
create or replace table stg_accelerators as
select
    model::varchar        as model,
    vendor::varchar       as vendor,
    name_regex::varchar   as name_regex,
    system_regex::varchar as system_regex,
    memory_gb::double     as memory_gb,
    cloud_model::varchar  as cloud_model,
    assumption::varchar   as assumption,
    file::varchar         as file,
    line::integer         as line
from accelerators_in
order by line;
