-- Cost to train, savings, speedup and price to beat per comparison, benchmark and instance (pipelines/metrics/cost.py).
create or replace table cost_to_train as select * from cost_to_train_frame;
