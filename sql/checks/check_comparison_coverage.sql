-- What a comparison needs and lacks: one row (where, problem) per gap; no rows means covered.
-- An instance's price in force on a date is its newest price dated on or before that date; the price date is
-- report_dates_in's (the report_dates mart's row, computed by the check: metrics/price_dates.py).
with price_date as (
    select price_date as d from report_dates_in
),
compared as (
    select distinct c.comparison, c.provider, c.region, c.instance_type, c.benchmark, c.config_path
    from stg_comparisons c
),
no_instance as (
    select c.config_path as "where",
           c.provider || '/' || c.instance_type || ' has no row in instances.csv' as problem
    from compared c
    anti join stg_instances i using (provider, instance_type)
),
no_mapping as (
    select c.config_path,
           c.provider || '/' || c.instance_type || ' has no row for benchmark ' || c.benchmark
           || ' in mappings.csv (leave system empty to say there is no measured result), nor throughput measured on it'
    from compared c
    anti join stg_mappings m using (provider, instance_type, benchmark)
    -- a throughput row measured on the instance itself (system "aws/p4d.24xlarge") needs no mapping
    where not exists (select 1 from stg_throughput t
                      where t.system = c.provider || '/' || c.instance_type and t.benchmark = c.benchmark)
),
no_price as (
    select c.config_path,
           c.provider || '/' || c.instance_type || ' has no price in ' || c.region || ' on or before '
           || strftime((select d from price_date), '%Y-%m-%d') || ' in prices/ (on demand)'
    from (select distinct provider, region, instance_type, config_path from compared) c
    where not exists (
        select 1 from stg_prices p
        where p.provider = c.provider and p.region = c.region and p.instance_type = c.instance_type
          and p.pricing_model = 'on_demand' and p.as_of <= (select d from price_date)
    )
),
no_results as (
    select m.file || ':' || m.line,
           'system ' || m.system || ' (for ' || m.provider || '/' || m.instance_type || ', ' || m.benchmark
           || ') has no ' || m.benchmark || ' result in results/ or mlperf/, nor throughput in throughput/'
    from stg_mappings m
    where m.system is not null
      and exists (select 1 from compared c where c.provider = m.provider and c.instance_type = m.instance_type
                  and c.benchmark = m.benchmark)
      and not exists (select 1 from stg_results r where r.system = m.system and r.benchmark = m.benchmark)
      and not exists (select 1 from stg_throughput t where t.system = m.system and t.benchmark = m.benchmark)
)
select * from no_instance
union all select * from no_mapping
union all select * from no_price
union all select * from no_results
order by 1, 2;
