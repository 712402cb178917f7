-- The cheapest cost to train per benchmark model and round (pipelines/metrics/atlas.py).
create or replace table atlas_trend as select * from atlas_trend_frame;
