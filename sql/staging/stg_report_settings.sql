-- Report-wide settings from report.toml (one row). Every column, its type and its meaning are declared once, as a
-- field of pipelines/domain/report_settings.py (ReportSettings: TABLE_SCHEMA types the frame read here, DOCS
-- documents the columns); price_date null means the newest on-demand snapshot.
create or replace table stg_report_settings as
select * from settings_in;
