"""What makes an asset stale besides its inputs (pipelines/defs/versions.py), and that Dagster's answer is what
`make report` builds (pipelines/freshness.py): the code version of each asset follows the code it runs and
nothing else, and an asset built again from the same inputs with the same code changes nothing downstream."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from unittest import mock

import dagster as dg
import pytest

from pipelines.cli import UP_TO_DATE
from pipelines import code_versions as versions
from pipelines.config import REPO_ROOT
from pipelines.runs import execute, session
from tests.pipeline_runner import cli_in_process
from tests.small_raw import write_small_raw

OUTPUTS = ("REPORTS_DIR", "WAREHOUSE", "DAGSTER_HOME", "PIPELINE_KILL_AT")


def _relative(module: str) -> set[str]:
    return {str(path.relative_to(REPO_ROOT)) for path in versions.sources_of(module)}


def test_an_assets_code_is_what_its_module_imports_and_reads():
    prices = _relative("pipelines.defs.prices.staging")
    documents = _relative("pipelines.defs.report.documents")
    # imported directly or not, and the packages' __init__ files run on the way
    assert {"pipelines/defs/prices/staging.py", "pipelines/ingest/prices/azure.py", "pipelines/__init__.py",
            "pipelines/config.py"} <= prices
    assert "sql/staging/stg_prices.sql" in prices  # read through config.SQL_DIR by the warehouse module
    # the report's drawing, printing and templates are not the price staging's code
    assert not {p for p in prices if p.startswith(("templates/", "pipelines/publish/render"))}
    assert {"pipelines/publish/render.py", "pipelines/publish/pdf.py", "templates/report.html.j2"} <= documents


def _clear_caches() -> None:
    for cached in (versions.module_path, versions._read, versions._digest, versions.sources_of,
                   versions._folder_files, versions.code_version_of, versions.parsed, versions._facts,
                   versions._source_files, versions.sources_key):
        cached.cache_clear()


def test_what_is_read_off_the_sources_is_kept_for_the_next_process_and_follows_an_edit(tmp_path):
    """The imports read off each source file are kept between processes (code_versions.keep_facts) under the file's
    bytes: a process that finds them parses nothing and gets the same code versions; an edit that adds an import is
    seen at once; an unreadable file of kept facts is as none."""
    for folder in ("pipelines", "sql", "templates"):
        shutil.copytree(REPO_ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    modules = ("pipelines.defs.prices.staging", "pipelines.defs.report.documents")

    def current() -> dict[str, str]:
        _clear_caches()  # a new process
        return {m: versions.code_version_of(m) for m in modules}

    def unparsable(path):
        raise AssertionError(f"{path} parsed: its imports were kept")

    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(versions, "REPO_ROOT", tmp_path)
            patch.setattr(versions, "READ_FOLDERS", {"SQL_DIR": tmp_path / "sql", "TEMPLATES_DIR": tmp_path / "templates"})
            patch.setattr(versions, "FACTS_FILE", tmp_path / "facts" / "source_facts.json")
            patch.setattr(sys, "dont_write_bytecode", False)
            first = current()
            versions.keep_facts()
            kept = versions.FACTS_FILE.read_text()
            assert f"{versions._digest(tmp_path / 'pipelines' / 'config.py')} imports" in kept

            _clear_caches()  # a new process, which may not parse
            with pytest.MonkeyPatch.context() as no_parsing:
                no_parsing.setattr(versions, "parsed", unparsable)
                assert {m: versions.code_version_of(m) for m in modules} == first

            staging = tmp_path / "pipelines" / "defs" / "prices" / "staging.py"
            assert "pipelines/publish/svg.py" not in {str(p.relative_to(tmp_path)) for p in versions.sources_of(modules[0])}
            staging.write_text(staging.read_text() + "\nimport pipelines.publish.svg  # an edit\n")
            edited = current()
            assert edited[modules[0]] != first[modules[0]] and edited[modules[1]] == first[modules[1]]
            assert "pipelines/publish/svg.py" in {str(p.relative_to(tmp_path)) for p in versions.sources_of(modules[0])}

            versions.FACTS_FILE.write_text("{ cut off")
            assert current() == edited
    finally:
        _clear_caches()


def test_editing_a_module_changes_the_version_of_what_imports_it_only(tmp_path):
    """A copy of the project's code: editing the HTML renderer changes the documents' code version, not the
    price staging's; editing a staging SQL file changes both (both run SQL through the warehouse module)."""
    for folder in ("pipelines", "sql", "templates"):
        shutil.copytree(REPO_ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))

    def current() -> dict[str, str]:
        _clear_caches()
        return {m: versions.code_version_of(m) for m in ("pipelines.defs.prices.staging", "pipelines.defs.report.documents")}

    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(versions, "REPO_ROOT", tmp_path)
            patch.setattr(versions, "READ_FOLDERS", {"SQL_DIR": tmp_path / "sql", "TEMPLATES_DIR": tmp_path / "templates"})
            before = current()
            assert before == current()  # the same code, the same version
            render = tmp_path / "pipelines" / "publish" / "render.py"
            render.write_text(render.read_text() + "\n# an edit\n")
            after = current()
            assert after["pipelines.defs.prices.staging"] == before["pipelines.defs.prices.staging"]
            assert after["pipelines.defs.report.documents"] != before["pipelines.defs.report.documents"]
            sql = tmp_path / "sql" / "staging" / "stg_prices.sql"
            sql.write_text(sql.read_text() + "\n-- an edit\n")
            last = current()
            assert all(last[m] != after[m] for m in last)
    finally:
        _clear_caches()  # the project's own code again for whatever runs next in this process


def test_every_asset_declares_its_code_version_and_what_reads_the_day_depends_on_it():
    from pipelines.definitions import defs

    graph = defs().resolve_asset_graph()
    materializable = [graph.get(key) for key in graph.get_all_asset_keys() if graph.get(key).is_materializable]
    assert materializable and all(node.code_version for node in materializable)
    node = graph.get(dg.AssetKey("stg_prices"))
    assert node.code_version == versions.code_version_of("pipelines.defs.prices.staging")
    assert node.code_version != graph.get(dg.AssetKey("report_html")).code_version
    readers = {key.to_user_string() for key in graph.get(dg.AssetKey("today")).child_keys}
    # derived from the code (defs/versions.reads_day), not listed: the readers that refuse rows dated after today
    # (the CSV tables, the price files, report.toml), the documents that say the day they were generated
    assert {"stg_prices", "stg_instances", "stg_throughput", "stg_report_settings", "stg_published_runs",
            "report_html", "atlas_html", "atlas_pdf"} <= readers
    # the tables computed from other tables, and the files that carry no date of their own, do not read it
    assert not readers & {"report_data", "report_pdf", "published_report", "atlas_data", "cost_to_train",
                          "report_dates", "time_to_train", "stg_systems"}


def test_which_functions_read_the_day_is_read_from_the_code():
    """reads_day follows what a function names into the project's modules: a call through a default argument
    (`today or calendar_today()`), a helper of the same module, a re-export of a package, a lazy import."""
    from pipelines.defs.report.documents import report_data, report_html
    from pipelines.defs.versions import reads_day
    from pipelines.ingest.csv_table import read_csv_table
    from pipelines.ingest.prices import read_price_folder
    from pipelines.publish.from_marts import report_context

    assert reads_day(read_csv_table) and reads_day(read_price_folder) and reads_day(report_context)
    assert reads_day(report_html) and not reads_day(report_data)


def test_the_outputs_are_inputs_of_what_writes_them():
    """The warehouse file and the published folders (defs/outputs.py) are inputs of what writes into them, read from
    the definitions: every asset of kind duckdb, and each publication's documents."""
    from pipelines.definitions import defs

    graph = defs().resolve_asset_graph()

    def readers(name: str) -> set[str]:
        return {key.to_user_string() for key in graph.get(dg.AssetKey(name)).child_keys}

    tables = {key.to_user_string() for key in graph.get_all_asset_keys()
              if graph.get(key).is_materializable and "duckdb" in graph.get(key).kinds}
    assert readers("warehouse") == tables and {"stg_prices", "cost_to_train", "atlas_costs"} <= tables
    assert readers("published_report_folder") == {"report_html", "report_pdf", "report_data", "published_report"}
    assert readers("published_atlas_folder") == {"atlas_html", "atlas_pdf", "atlas_data", "published_atlas"}
    # the atlas's round tables keep the version of their scoring rules: an edit that scores the same never rescores
    from pipelines.defs.mlperf.rounds import TABLES_VERSION

    assert graph.get(dg.AssetKey("atlas_round_scores")).code_version == TABLES_VERSION


@pytest.mark.slow
def test_staging_built_again_from_the_same_inputs_leaves_the_report_up_to_date(tmp_path):
    """With code versions, a staging asset built again (here alone, as from the UI) from unchanged inputs gets
    the data version it had: nothing downstream is stale, and `make report` builds nothing."""
    raw = write_small_raw(tmp_path / "data")
    env = {k: v for k, v in os.environ.items() if k not in OUTPUTS} | {"RAW_DIR": str(raw),
                                                                         "SOURCE_DATE_EPOCH": "1764374400"}

    def report() -> subprocess.CompletedProcess:
        done = cli_in_process(env, "report")
        assert done.returncode == 0, done.stderr[-3000:]
        return done

    report()
    with mock.patch.dict(os.environ, env, clear=True), session() as instance:  # as from the UI: the asset alone
        assert execute(instance, "report_job", asset_selection=[dg.AssetKey("stg_prices")]).success
    assert UP_TO_DATE in report().stdout
