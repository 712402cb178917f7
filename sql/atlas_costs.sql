-- Every priced (result, cloud instance) pair with scale-aware cost and ranks (pipelines/metrics/atlas.py).
create or replace table atlas_costs as select * from atlas_costs_frame;
