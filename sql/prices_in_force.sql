-- The price in force at the report date per (provider, region, instance_type): the newest on or before it.
create or replace table prices_in_force as select * from prices_in_force_frame;
