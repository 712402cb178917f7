"""Every name a user types gets "did you mean" for a near miss: report.toml's keys, instances,
baselines, providers, regions' providers, pricing options and discounts, and the fixed words of
instances.csv and the price CSV (pipelines/ingest/names.py). The whole-job cases (an instance of
report.toml that instances.csv lacks, a region without prices) are in tests/bad_inputs/."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipelines.domain.errors import InputError
from pipelines.ingest.names import did_you_mean, not_one_of
from pipelines.ingest.report_config import parse_report_config

TOML = '''title = "Names"
benchmarks = ["resnet"]
pricing_models = ["on_demand", "spot"]
baseline_pricing = "on_demand"

[regions]
aws = "us-east-1"

[[discounts]]
provider = "aws"
pricing_model = "on_demand"
percent = 10

[[comparisons]]
id = "a"
title = "A"
baseline = "aws/p3.16xlarge"
instances = ["aws/p4d.24xlarge", "aws/p3.16xlarge"]
'''


@pytest.mark.parametrize("old, new, where, message", [
    ('pricing_models =', 'pricing_model =', "pricing_model",
     "is not a key of report.toml; did you mean 'pricing_models'?"),
    ('baseline = "aws', 'baselin = "aws', "comparisons[0].baselin",
     "is not a key of comparisons[0]; did you mean 'baseline'?"),
    ('baseline = "aws/p3.16xlarge"', 'baseline = "aws/p3.16xlarg"', "comparisons[0].baseline",
     "aws/p3.16xlarg is not one of the comparison's instances; did you mean 'aws/p3.16xlarge'?"),
    ('"aws/p4d.24xlarge", "aws', '"AWS/p4d.24xlarge", "aws', "comparisons[0].instances[0]",
     "provider 'AWS' is not a provider name: lower-case letters and digits, such as aws, gcp, azure, a public "
     "catalog's cloud (lambda, nebius) or one of your own (coreweave); did you mean 'aws'?"),
    ('"on_demand", "spot"]', '"on_demand", "spott"]', "pricing_models[1]",
     "'spott' is not a pricing option (on_demand, spot, reserved_1y, savings_plan_3y, committed_use_1y, "
     "commitment_3y, ...); did you mean 'spot'?"),
    ('baseline_pricing = "on_demand"', 'baseline_pricing = "ondemand"', "baseline_pricing",
     "'ondemand' is not a pricing option; did you mean 'on_demand'?"),
    ('provider = "aws"\npricing_model', 'provider = "Amazon"\npricing_model', "discounts[0].provider",
     "provider 'Amazon' is not a provider name"),
    ('pricing_model = "on_demand"\npercent', 'pricing_model = "ondemand"\npercent', "discounts[0].pricing_model",
     "'ondemand' is not one of on_demand, spot, reserved, savings_plan, committed_use; did you mean 'on_demand'?"),
    ('percent = 10', 'percnt = 10', "discounts[0].percnt", "is not a discount key (provider, instance, "
     "pricing_model, percent); did you mean 'percent'?"),
    ('aws = "us-east-1"', 'AWS = "us-east-1"', "regions.AWS",
     "must map a provider (aws, gcp, azure, a public catalog's cloud or one of your own) to a region name; did you "
     "mean 'aws'?"),
    ('aws = "us-east-1"', 'awss = "us-east-1"', "regions",  # "awss" may be a catalog's cloud: aws lacks a region
     "has no region for provider aws (used by comparisons[0]); is its 'awss' meant to be 'aws'?"),
])
def test_a_misspelled_name_in_report_toml_names_the_one_meant(tmp_path: Path, old, new, where, message):
    assert old in TOML
    path = tmp_path / "report.toml"
    path.write_text(TOML.replace(old, new, 1))
    with pytest.raises(InputError) as error:
        parse_report_config(path)
    assert f"report.toml:{where}: {message}" in str(error.value)


def test_the_same_file_without_its_typos_is_read(tmp_path: Path):
    """The cases above differ from this file by their typo alone."""
    path = tmp_path / "report.toml"
    path.write_text(TOML)
    config = parse_report_config(path)
    assert config.pricing_models == ("on_demand", "spot") and config.comparisons[0].baseline.key == "aws/p3.16xlarge"
    assert [(d.provider, d.pricing_model, d.percent) for d in config.discounts] == [("aws", "on_demand", 10.0)]


def test_did_you_mean_ignores_case_and_stays_quiet_for_far_misses():
    assert did_you_mean("AWS", ["aws", "gcp", "azure"]) == "; did you mean 'aws'?"
    assert did_you_mean("oracle", ["aws", "gcp", "azure"]) == ""
    assert did_you_mean(7, ["aws"]) == ""  # a value of the wrong type has no near miss
    assert not_one_of("chips", ("instance", "chip")) == "'chips' is not one of instance, chip; did you mean 'chip'?"


def test_readme_shows_every_report_toml_key_in_a_file_that_reads(tmp_path: Path):
    """README's "report.toml keys": the example reads, and it names every key the parser knows."""
    import re

    from pipelines.config import REPO_ROOT
    from pipelines.ingest import report_config

    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### report.toml keys"):]
    example = re.search(r"```toml\n(.*?)```", section, re.S).group(1)
    path = tmp_path / "report.toml"
    path.write_text(example)
    config = parse_report_config(path)
    assert config.discounts and config.workloads and config.comparisons[0].instances[-1].region == "eastus2"
    keys = set(re.findall(r"^\[*([a-z_]+)(?:\.[a-z0-9_]+)?(?:\]+| =)", example, re.M))  # key = ..., [table], [[array]]
    expected = (set(report_config._KEYS) | set(report_config._COMPARISON_KEYS) | report_config._DISCOUNT_KEYS
                | report_config._WORKLOAD_KEYS)
    assert expected <= keys, expected - keys
