"""Appendix A: every input file with its SHA-256; a kind with many files is one row whose hash is
checked here against the formula computed by hand with hashlib."""

from __future__ import annotations

import hashlib
import re

import polars as pl

from pipelines.publish.appendix import MAX_FILES_PER_KIND, files_digest, input_rows
from tests.pipeline_runner import BUNDLED_PRICE_DATE


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _frame(kinds: dict[str, int]) -> pl.DataFrame:
    rows = [{"kind": kind, "file": f"{kind}/f{i:03d}.json", "rows": 2, "sha256": _sha(f"{kind}{i}"), "bytes": 10}
            for kind, n in kinds.items() for i in range(n)]
    return pl.DataFrame(rows)


def test_group_digest_by_hand_and_independent_of_order():
    a, b = {"file": "systems/a.json", "sha256": _sha("a")}, {"file": "systems/b.json", "sha256": _sha("b")}
    by_hand = hashlib.sha256(b"systems/a.json\x00" + _sha("a").encode() + b"\n"
                             + b"systems/b.json\x00" + _sha("b").encode() + b"\n").hexdigest()
    assert files_digest([a, b]) == files_digest([b, a]) == by_hand


def test_many_files_of_a_kind_become_one_row_few_stay_listed():
    rows = input_rows(_frame({"prices": 3, "systems": MAX_FILES_PER_KIND + 5, "results": MAX_FILES_PER_KIND}))
    assert [r["kind"] for r in rows] == ["prices"] * 3 + ["systems"] + ["results"] * MAX_FILES_PER_KIND
    group = rows[3]
    assert group["group"] and group["file"].startswith(f"{MAX_FILES_PER_KIND + 5} systems files")
    assert group["rows"] == 2 * (MAX_FILES_PER_KIND + 5) and group["bytes"] == 10 * (MAX_FILES_PER_KIND + 5)
    members = [{"file": f"systems/f{i:03d}.json", "sha256": _sha(f"systems{i}")} for i in range(MAX_FILES_PER_KIND + 5)]
    assert group["sha256"] == files_digest(members)
    assert not any(r["group"] for r in rows if r["kind"] != "systems")


def test_bundled_appendix_lists_every_input_file(bundled_run):
    dated = bundled_run.reports / BUNDLED_PRICE_DATE
    listed = pl.read_csv(dated / "data" / "input_files.csv")
    html = (dated / "report.html").read_text(encoding="utf-8")
    appendix = html[html.index('<section id="sources"'):]  # appendix C, sources, ends with the input files
    hashes = re.findall(r'<td class="hash">([0-9a-f]{64})</td>', appendix)
    # the 94 systems JSON files (8 of the A100/V100 comparisons, 17 of the current generation, 69 of MLPerf v5.1:
    # raw/SOURCES.md) and the 54 price
    # files (20 snapshots of the big three's prices, 8 catalogs of prices/skypilot_2026-12-04/, 10 of the 11 of
    # prices/skypilot_2026-12-06/ and 16 of the 17 of prices/skypilot_2026-12-07/: Yotta's offers have no
    # accelerator the alias table knows) are one row each, whose hash is the digest of their names and hashes;
    # every other file keeps its own row. The instance catalog takes the offers of each cloud's newest catalog:
    # instances.csv and the 16 of 2026-12-07 (every bundled cloud's newest)
    counts = dict(listed.group_by("kind").len().iter_rows())
    assert counts["systems"] == 94 and counts["prices"] == 20 + 8 + 10 + 16 and counts["instances"] == 1 + 16
    grouped = [kind for kind, n in counts.items() if n > MAX_FILES_PER_KIND]
    assert sorted(grouped) == ["prices", "systems"]
    others = listed.filter(~pl.col("kind").is_in(grouped))["sha256"].to_list()
    digests = [files_digest(listed.filter(pl.col("kind") == kind).to_dicts()) for kind in grouped]
    assert sorted(hashes) == sorted(others + digests)
    systems = listed.filter(pl.col("kind") == "systems")
    assert f"{systems.height} systems files" in appendix
