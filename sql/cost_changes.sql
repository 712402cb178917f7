-- What the price changes do to cost to train and to the ranking in each comparison.
create or replace table cost_changes as select * from cost_changes_frame;
