"""The one cache of files kept per content (publish/file_cache.py), under the charts and the PDFs: a key of the
code version and every input, whole files, pruned to what the last build used."""

from __future__ import annotations

import os

from pipelines.publish.chart_cache import ChartCache
from pipelines.publish.file_cache import FileCache
from pipelines.publish.pdf_parts import PdfCache


def test_a_file_is_served_only_for_the_same_code_and_inputs(tmp_path):
    cache = FileCache(tmp_path, "code 1")
    key = cache.key("fig-1", "points")
    assert cache.get(key, ".svg") is None
    cache.put(key, ".svg", b"<svg/>")
    assert FileCache(tmp_path, "code 1").get(key, ".svg") == b"<svg/>"
    assert cache.key("fig-1", "points moved") != key
    later = FileCache(tmp_path, "code 2")  # the drawing code changed: every key is another
    assert later.key("fig-1", "points") != key and later.get(later.key("fig-1", "points"), ".svg") is None
    assert not list(tmp_path.glob(".*"))  # written whole: no temporary file left


def test_prune_keeps_what_this_build_used_and_a_live_writer_s_file(tmp_path):
    first = FileCache(tmp_path, "v")
    old, kept = first.key("old"), first.key("kept")
    first.put(old, ".pdf", b"%PDF old")
    first.put(old, ".json", b"{}")
    first.put(kept, ".pdf", b"%PDF kept")
    (tmp_path / "hints").mkdir()  # a folder beside the files (PdfCache's hints) is not the cache's to prune
    writing = tmp_path / f".{first.key('new')}.pdf.{os.getpid()}.tmp"  # a concurrent build's file being written
    writing.write_bytes(b"%PDF half")
    build = FileCache(tmp_path, "v")
    assert build.get(kept, ".pdf") == b"%PDF kept"
    assert build.prune() == 1  # one key: its .pdf and .json
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([f"{kept}.pdf", "hints", writing.name])


def test_without_a_folder_nothing_is_kept(tmp_path):
    cache = FileCache(None, "v")
    cache.put(cache.key("a"), ".svg", b"x")
    assert cache.get(cache.key("a"), ".svg") is None and cache.prune() == 0 and not cache.used


def test_charts_and_pdfs_are_kept_by_the_one_cache_under_their_own_code_version(tmp_path):
    charts, pdfs = ChartCache(tmp_path / "charts"), PdfCache(tmp_path / "pdf")
    assert isinstance(charts, FileCache) and isinstance(pdfs, FileCache)
    assert len({charts.version, pdfs.version}) == 2 and "" not in {charts.version, pdfs.version}
    assert ChartCache(None).version == PdfCache(None).version == ""  # no folder: no code read for a key
    # the same import-closure code version as the assets' (pipelines/code_versions.py), of the drawing and the
    # printing modules: no list of modules kept by hand
    from pipelines.code_versions import code_version_of, sources_of

    assert charts.version == code_version_of("pipelines.publish.charts")
    assert pdfs.version == code_version_of("pipelines.publish.pdf")
    drawing = {path.name for path in sources_of("pipelines.publish.charts")}
    printing = {path.name for path in sources_of("pipelines.publish.pdf")}
    assert {"charts.py", "palette.py", "svg.py"} <= drawing
    assert {"pdf.py", "render.py", "page_breaks.py", "page_numbers.py"} <= printing
