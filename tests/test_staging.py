"""Every staging table loaded from small fixture files into a real DuckDB file, then the marts."""

import datetime as dt

import duckdb
import pytest

from tests.pipeline_runner import make_dirs, run_pipeline
from tests.small_raw import write_small_raw



@pytest.fixture(scope="module")
def small(tmp_path_factory):
    dirs = make_dirs(tmp_path_factory.mktemp("small"), raw_source=None)
    write_small_raw(dirs.raw)
    result = run_pipeline(dirs)
    assert result.success
    with duckdb.connect(str(dirs.warehouse), read_only=True) as conn:
        yield dirs, conn


def q(conn, sql):
    return conn.sql(sql).fetchall()


def test_stg_instances(small):
    _, conn = small
    assert q(conn, "select provider, instance_type, accelerator_count, vcpus, memory_gib, accelerator_model, billing, "
                   "file, line from stg_instances") == [
        ("aws", "big.8x", 8, 96, 1152.0, "A100-SXM-40GB", "instance", "instances.csv", 2),
        ("aws", "small.8x", 8, 64, 488.0, "V100-SXM2-16GB", "instance", "instances.csv", 3)]


def test_stg_accelerators_in_file_order(small):
    _, conn = small
    assert q(conn, "select model, cloud_model, file, line from stg_accelerators") == [
        ("A100-SXM-40GB", "A100-SXM-40GB", "accelerators.csv", 2), ("V100-SXM2-16GB", "V100-SXM2-16GB", "accelerators.csv", 3)]


def test_stg_report_settings_is_its_own_table_with_the_regions(small):
    _, conn = small
    assert q(conn, "select title, benchmarks, price_date, regions, config_path from stg_report_settings") == [
        ("Small", ["resnet", "bert"], None, [{"provider": "aws", "region": "us-east-1"}], "report.toml")]


def test_a_report_toml_without_settings_reads_back_as_the_settings_defaults(small):
    """The parser's default for a key left out and ReportSettings' are one: the stored row reads back as a
    ReportSettings given only what report.toml says."""
    from pipelines.defs.report.marts import report_settings
    from pipelines.domain.report_settings import ReportSettings

    _, conn = small
    assert report_settings(conn) == ReportSettings(title="Small", benchmarks=("resnet", "bert"),
                                                   regions={"aws": "us-east-1"}, config_path="report.toml")
    assert report_settings(conn).priced_options == ("on_demand", "spot", "commitment_1y", "commitment_3y")


def test_stg_mappings_keeps_explicit_no_result(small):
    _, conn = small
    assert q(conn, "select instance_type, benchmark, system from stg_mappings order by line") == [
        ("big.8x", "resnet", "sysA"), ("small.8x", "resnet", "sysB"), ("big.8x", "bert", "sysA"), ("small.8x", "bert", None)]


def test_stg_prices_keeps_every_snapshot_typed(small):
    _, conn = small
    rows = q(conn, "select instance_type, usd_per_hour, as_of, currency, source, file from stg_prices order by as_of, instance_type")
    assert rows == [
        ("big.8x", 30.0, dt.date(2024, 1, 1), "USD", "list A", "prices/p1.csv"),
        ("small.8x", 20.0, dt.date(2024, 1, 1), "USD", "list A", "prices/p1.csv"),
        ("big.8x", 24.0, dt.date(2024, 6, 1), "USD", "list B", "prices/p2.csv"),
    ]
    types = dict(q(conn, "select column_name, data_type from information_schema.columns where table_name = 'stg_prices'"))
    assert types["usd_per_hour"] == "DOUBLE" and types["as_of"] == "DATE"


def test_stg_results_long_form_from_summarizer_csv(small):
    _, conn = small
    assert q(conn, "select round, system, benchmark, time_to_train_minutes from stg_results order by system, benchmark") == [
        ("v1.0", "sysA", "bert", 20.0), ("v1.0", "sysA", "resnet", 30.0), ("v1.0", "sysB", "resnet", 90.0)]


def test_stg_systems_and_throughput(small):
    _, conn = small
    assert q(conn, "select system, system_name, accelerators_total, host_processor_model_name from stg_systems") == [
        ("sysA", "System A", 8, "CPU X"), ("sysB", "System B", 8, "CPU X")]
    assert q(conn, "select system, benchmark, samples_per_second, measured_on from stg_throughput") == [
        ("sysA", "resnet", 1000.0, dt.date(2024, 2, 2))]


def test_stg_comparisons_from_report_toml(small):
    _, conn = small
    assert q(conn, "select comparison, benchmark, instance_type, is_baseline from stg_comparisons") == [
        ("one", "resnet", "big.8x", False), ("one", "resnet", "small.8x", True),
        ("one", "bert", "big.8x", False), ("one", "bert", "small.8x", True)]


def test_marts_use_price_in_force_at_newest_snapshot(small):
    _, conn = small
    assert q(conn, "select price_date, previous_price_date from report_dates") == [(dt.date(2024, 6, 1), dt.date(2024, 1, 1))]
    rows = {(r[0], r[1]): r[2:] for r in q(conn, "select benchmark, instance_type, usd_per_hour, cost_to_train_usd, savings_pct from cost_to_train")}
    # big.8x: 24 $/h (2024-06-01) x 30 min = 12 $; small.8x: 20 $/h (still in force from 2024-01-01) x 90 min = 30 $
    assert rows[("resnet", "big.8x")] == pytest.approx((24.0, 12.0, 60.0))
    assert rows[("resnet", "small.8x")] == pytest.approx((20.0, 30.0, 0.0))
    # bert: the baseline has no result, so there is a cost but no savings
    assert rows[("bert", "big.8x")][1] == pytest.approx(24.0 * 20 / 60)
    assert rows[("bert", "big.8x")][2] is None and rows[("bert", "small.8x")][1] is None


def test_price_changes_mart(small):
    _, conn = small
    assert q(conn, "select instance_type, previous_usd_per_hour, current_usd_per_hour, round(change_pct, 6) from price_changes order by instance_type") == [
        ("big.8x", 30.0, 24.0, -20.0), ("small.8x", 20.0, 20.0, 0.0)]
    # the price cut moves big.8x's resnet cost from 15 $ to 12 $ (-20 %)
    assert q(conn, "select previous_cost_usd, current_cost_usd, round(cost_change_pct, 6), previous_rank, current_rank "
                   "from cost_changes where instance_type = 'big.8x' and benchmark = 'resnet'") == [(15.0, 12.0, -20.0, 1, 1)]
    # against the baseline small.8x (20 $/h x 90 min = 30 $ on both dates): savings 100 x (1 - 15 / 30) = 50 % before
    assert q(conn, "select round(previous_savings_pct, 6) from cost_changes where instance_type = 'big.8x' "
                   "and benchmark = 'resnet'") == [(50.0,)]


def test_report_settings_from_a_row_take_the_default_only_where_the_row_has_none():
    from pipelines.domain.report_settings import ReportSettings

    row = {"title": "T", "pricing_models": ["spot", "commitment_1y"], "baseline_pricing": "spot",
           "stale_after_days": 0, "headline_offer_kinds": None, "regions": [{"provider": "gcp", "region": "us-central1"}]}
    settings = ReportSettings.from_row(row)
    assert (settings.pricing_models, settings.baseline_pricing, settings.stale_after_days) == (
        ("spot", "commitment_1y"), "spot", 0)  # 0 is a setting, not a missing one
    assert settings.headline_offer_kinds == ReportSettings().headline_offer_kinds
    assert settings.regions == {"gcp": "us-central1"}
    assert settings.priced_options == ("spot", "commitment_1y", "on_demand")  # on demand always priced
