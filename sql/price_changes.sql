-- Previous and current price of every instance and the change in percent (pipelines/metrics/price_changes.py).
create or replace table price_changes as select * from price_changes_frame;
