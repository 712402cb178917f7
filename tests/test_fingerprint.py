"""The project's one hashing scheme (pipelines/fingerprint.py): what each hash covers, and that the hashes
stored state depends on keep their bytes (Dagster's data versions of the raw inputs and of every scored round,
the report's SHA-256 of an input tree)."""

from __future__ import annotations

import hashlib
import os
from importlib import metadata

from pipelines import fingerprint
from pipelines.fingerprint import code_version, files_sha256, named_sha256, walk
from pipelines.ingest.corpus_rounds import stat_fingerprint
from pipelines.ingest.raw_files import input_files
from pipelines.publish.appendix import files_digest


def _tree(root):
    for name, text in {"b.csv": "b", "a/z.csv": "z", "a/b/c.csv": "c", ".hidden.csv": "h", "d.csv~": "d"}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_a_folder_is_hashed_as_the_appendix_says_checkable_by_hand(tmp_path):
    root = _tree(tmp_path / "t")
    files = input_files(root)
    assert [str(f.relative_to(root)) for f in files] == ["a/b/c.csv", "a/z.csv", "b.csv"]  # sorted; hidden, ~ left out
    by_hand = hashlib.sha256(b"".join(f"{f.relative_to(root)}\0{hashlib.sha256(f.read_bytes()).hexdigest()}\n".encode()
                                      for f in files)).hexdigest()
    assert files_sha256(files, root) == by_hand
    rows = [{"file": str(f.relative_to(root)), "sha256": hashlib.sha256(f.read_bytes()).hexdigest()} for f in files]
    assert files_digest(rows[::-1]) == by_hand  # the appendix's combined hash of a kind's files: the same formula
    assert files_sha256([], root) == "empty"  # the data version Dagster keeps for an empty input


def test_a_round_is_fingerprinted_by_stat_in_the_walk_order_its_stored_versions_have(tmp_path):
    round_dir = tmp_path / "training_results_v9.9"
    for name in ("acme/results/sys/bert/result_0.txt", "acme/results/sys/bert/result_1.txt", "acme/results/z.txt",
                 "acme/systems/sys.json", "acme/benchmarks/readme.md"):
        (round_dir / name).parent.mkdir(parents=True, exist_ok=True)
        (round_dir / name).write_text(name)
    os.symlink("nowhere", round_dir / "acme/results/dangling")
    # os.walk's order: a folder's files, then its subfolders (sorted paths would put sys/... before z.txt)
    order = ["acme/results/dangling", "acme/results/z.txt", "acme/results/sys/bert/result_0.txt",
             "acme/results/sys/bert/result_1.txt", "acme/systems/sys.json"]
    lines = []
    for name in order:
        st = os.lstat(round_dir / name)
        lines.append(f"{name}\0{st.st_size}\0{st.st_mtime_ns}\n")
    assert stat_fingerprint(round_dir) == "stat:" + hashlib.sha256("".join(lines).encode()).hexdigest()
    before = stat_fingerprint(round_dir)
    (round_dir / "acme/benchmarks/readme.md").write_text("not read by scoring")
    assert stat_fingerprint(round_dir) == before
    os.utime(round_dir / "acme/systems/sys.json", ns=(1, 1))
    assert stat_fingerprint(round_dir) != before


def test_a_code_version_follows_the_sources_bytes_and_the_packages_versions(tmp_path, monkeypatch):
    source = tmp_path / "charts.py"
    source.write_text("def draw(): ...\n")
    version = code_version([source], ["matplotlib"])
    os.utime(source, ns=(1, 1))
    assert code_version([source], ["matplotlib"]) == version  # touched, the same bytes
    source.write_text("def draw(): return 1\n")
    edited = code_version([source], ["matplotlib"])
    assert edited != version
    assert edited == named_sha256([("charts.py", hashlib.sha256(source.read_bytes()).hexdigest()),
                                   ("matplotlib", metadata.version("matplotlib"))])
    monkeypatch.setattr(fingerprint.metadata, "version", lambda name: "99.0")
    assert code_version([source], ["matplotlib"]) != edited


def test_walk(tmp_path):
    root = _tree(tmp_path / "t")
    assert walk(root / "b.csv") == [root / "b.csv"] and walk(tmp_path / "missing") == []
    assert walk(root, "*.csv", skip=lambda parts: parts[0] == "a") == [root / ".hidden.csv", root / "b.csv"]
    assert walk(root) == sorted(root.rglob("*"))  # folders too: the caller decides what an entry is
