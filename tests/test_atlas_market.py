"""The must-show of issue 33 on the real corpus: `make atlas` on MLPerf Training v5.1 with the bundled
price book leaves at most 10% of the scored entries unpriced. Runs only where ATLAS_CORPUS names a folder
holding training_results_v5.1 (the corpus is not in the repository).

Issue 44 asks for 5%; it stays 10% because what is left unpriced is MI325X and MI350X, which neither the
bundled price book nor SkyPilot's public catalog (v8 and v9, 2026-12) sells: no name fix can price them."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import duckdb
import pytest

from tests.atlas_runner import REPO, atlas_env, make_atlas


def _squashed(name: str) -> str:
    """A name without case and separators: MI325X matches a catalog's "mi-325x" or "MI325X_OAM"."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def test_v5_1_is_priced_on_the_whole_market(tmp_path):
    corpus = Path(os.environ.get("ATLAS_CORPUS", "/nonexistent")) / "training_results_v5.1"
    if not corpus.is_dir():
        pytest.skip("set ATLAS_CORPUS to a folder holding training_results_v5.1")
    only = tmp_path / "mlperf"
    only.mkdir()
    (only / "training_results_v5.1").symlink_to(corpus)
    # the whole bundled price book, the GPU clouds' catalogs included (atlas_env alone leaves them out)
    raw = tmp_path / "raw"
    shutil.copytree(REPO / "raw", raw)
    done = make_atlas(atlas_env(tmp_path, only, raw))
    assert done.returncode == 0, done.stderr[-3000:]
    with duckdb.connect(str(tmp_path / "warehouse" / "pipeline.duckdb"), read_only=True) as conn:
        scored = conn.sql("select count(*) from atlas_scores where time_to_train_minutes is not null").fetchall()[0][0]
        unpriced = dict(conn.sql("select not_priced_because, count(*) from atlas_unpriced "
                                 "where time_to_train_minutes is not null group by all").fetchall())
        models = [m for (m,) in conn.sql("select distinct accelerator_model from atlas_unpriced "
                                         "where time_to_train_minutes is not null").fetchall()]
        unmatched = [n for (n,) in conn.sql("select accelerator from catalog_unknown_accelerators").fetchall()]
    assert sum(unpriced.values()) <= 0.10 * scored, unpriced
    # what is left names what no price list or catalog sells
    assert all(why.startswith("no price list or catalog in the price book sells ") for why in unpriced), unpriced
    # ... and no catalog offers it under a name the alias table leaves unmatched (a naming miss, not a gap)
    assert not [(m, n) for m in models for n in unmatched if _squashed(m) in _squashed(n)], unmatched
