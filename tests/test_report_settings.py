"""report.toml's settings: each declared once (pipelines/domain/report_settings.ReportSettings), and the staging
table, its types and its column meanings derived from that declaration; spot_stale_after_days among them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import polars as pl
import pytest

from pipelines.domain.columns import describe
from pipelines.domain.errors import InputError
from pipelines.domain.report_settings import DOCS, SETTINGS, TABLE_SCHEMA, ReportSettings, table_row
from pipelines.ingest.report_config import parse_report_config

TOML = '''title = "T"
benchmarks = ["resnet"]
{extra}
[regions]
aws = "us-east-1"
[[comparisons]]
id = "c"
title = "C"
baseline = "aws/a"
instances = ["aws/a", "aws/b"]
'''


def _config(tmp_path: Path, extra: str = ""):
    path = tmp_path / "report.toml"
    path.write_text(TOML.format(extra=extra))
    return parse_report_config(path)


def test_spot_stale_after_days_defaults_to_seven_and_is_read(tmp_path):
    assert _config(tmp_path).spot_stale_after_days == 7 == ReportSettings().spot_stale_after_days
    assert _config(tmp_path, "spot_stale_after_days = 30").spot_stale_after_days == 30
    assert _config(tmp_path, "spot_stale_after_days = 0").spot_stale_after_days == 0  # every spot price is stale


@pytest.mark.parametrize("value", ["-1", "true", '"7"', "7.5"])
def test_spot_stale_after_days_must_be_a_whole_number_of_days(tmp_path, value):
    with pytest.raises(InputError, match=r"report\.toml:spot_stale_after_days: .* must be a whole number of days"):
        _config(tmp_path, f"spot_stale_after_days = {value}")


def test_a_misspelled_key_names_the_one_meant(tmp_path):
    with pytest.raises(InputError, match="did you mean 'spot_stale_after_days'"):
        _config(tmp_path, "spot_stale_after_day = 7")


def test_the_staging_row_is_the_declared_settings(tmp_path):
    config = _config(tmp_path, "spot_stale_after_days = 3")
    row = table_row(config, config_path="report.toml")
    # one column per declared setting, typed as declared, in the declaration's order
    assert row.columns == list(SETTINGS) == [f.name for f in dataclasses.fields(ReportSettings)]
    assert dict(row.schema) == TABLE_SCHEMA
    values = row.row(0, named=True)
    assert (values["spot_stale_after_days"], values["stale_after_days"], values["config_path"]) == (3, 365, "report.toml")
    assert values["regions"] == [{"provider": "aws", "region": "us-east-1"}]
    # read back as the marts read it: the parsed settings, the defaults where report.toml says nothing
    settings = ReportSettings.from_row(values)
    assert (settings.spot_stale_after_days, settings.headline_offer_kinds, settings.regions) == (
        3, ("list", "spot", "commitment", "quote"), {"aws": "us-east-1"})


def test_every_setting_column_means_what_its_declaration_says():
    for name in SETTINGS:
        assert describe("stg_report_settings", name).meaning == DOCS[name]
    assert "never the answer's cheapest" in DOCS["spot_stale_after_days"]


def test_a_mapping_source_and_an_empty_source_take_the_defaults():
    row = table_row({"title": "T", "spot_stale_after_days": 2}).row(0, named=True)
    assert (row["title"], row["spot_stale_after_days"], row["stale_after_days"], row["regions"]) == ("T", 2, 365, [])
    assert pl.DataFrame(schema=TABLE_SCHEMA).columns == list(SETTINGS)
