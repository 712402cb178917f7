-- The instances the report compares: the report's instance set for the price date and the previous snapshot
-- (the one rule: pipelines/metrics/price_dates.py). A comparison compares the instances it lists; a whole_market
-- comparison also every instance with the accelerators (model and count) of one it lists. The report_dates mart
-- and the coverage check (checks/check_comparison_coverage.sql), which runs before the marts exist, both use it.
with market as (
    select distinct i.provider, i.instance_type
    from stg_instances i
    join stg_instances listed using (accelerator_model, accelerator_count)
    join stg_comparisons c on c.whole_market and c.provider = listed.provider and c.instance_type = listed.instance_type
)
select distinct provider, instance_type from stg_comparisons
union
select provider, instance_type from market
order by provider, instance_type
