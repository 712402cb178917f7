-- Entries of the corpus that the atlas cannot price, with why (pipelines/metrics/atlas.py).
create or replace table atlas_unpriced as select * from atlas_unpriced_frame;
