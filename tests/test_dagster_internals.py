"""Dagster's public API only, but for one module (pipelines/dagster_internals.py) that holds every use of its
internals, written against one Dagster release: a Dagster upgrade fails here, loudly, until each use is checked."""

from __future__ import annotations

import re
from pathlib import Path

import dagster as dg

from pipelines import dagster_internals

PIPELINES = Path(__file__).resolve().parents[1] / "pipelines"
WRITTEN_AGAINST = "1.13.27"


def test_the_internals_were_written_against_this_dagster():
    assert dagster_internals.DAGSTER_VERSION == WRITTEN_AGAINST
    assert dg.__version__ == WRITTEN_AGAINST, (
        f"Dagster is {dg.__version__}, but pipelines/dagster_internals.py was written against {WRITTEN_AGAINST}: "
        f"check every use its docstring lists (stale status, the observation data version tag, a check's latest "
        f"evaluation, the pool slot wait) against the new release, then raise DAGSTER_VERSION and this test's "
        f"WRITTEN_AGAINST")


def test_only_one_module_uses_dagster_internals():
    """`grep -rn "dagster\\._" pipelines/` finds one module: a private name anywhere else is refused here."""
    found = {path.relative_to(PIPELINES.parent).as_posix() for path in PIPELINES.rglob("*.py")
             if re.search(r"dagster\._", path.read_text(encoding="utf-8"))}
    assert found == {"pipelines/dagster_internals.py"}, found


def test_every_internal_it_names_still_answers():
    """Each use works on this release: the stale status of a fresh instance, an unknown check, the pool wait."""
    @dg.asset
    def one():
        return 1

    graph = dg.Definitions(assets=[one]).resolve_asset_graph()
    with dg.DagsterInstance.ephemeral() as instance:
        assert dagster_internals.stale_or_missing(instance, graph, [dg.AssetKey("one")]) == {dg.AssetKey("one")}
        assert dagster_internals.stale_causes(instance, graph, dg.AssetKey("one")) == []
        assert not dagster_internals.check_passed_on_latest(instance, dg.AssetCheckKey(dg.AssetKey("one"), "c"))
    assert dagster_internals.DATA_VERSION_TAG == "dagster/data_version"
    assert dagster_internals.next_claim_wait(dagster_internals.waiting_context({})) == 0
