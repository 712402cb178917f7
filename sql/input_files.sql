-- Every raw input file with its SHA-256 and row count, for the report appendix.
create or replace table input_files as select * from input_files_frame;
