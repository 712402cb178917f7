-- Location-based grid carbon intensity per cloud region (carbon/grid_intensity.csv), dated and sourced.
create or replace table stg_grid_intensity as
select
    provider::varchar           as provider,
    region::varchar             as region,
    location::varchar           as location,
    grid_gco2e_per_kwh::double  as grid_gco2e_per_kwh,
    cfe::double                 as cfe,
    data_year::integer          as data_year,
    as_of::date                 as as_of,
    source::varchar             as source,
    file::varchar               as file,
    line::integer               as line
from grid_intensity_in
order by provider, region;
