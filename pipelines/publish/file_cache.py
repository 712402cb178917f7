"""Files kept under a key of what made them: the drawn charts (chart_cache.py) and the printed PDFs
(pdf_parts.py) of the report and the atlas.

A key is the SHA-256 of the code version (pipelines/code_versions.code_version_of, the same import-closure code
version Dagster compares for the assets, of the module that makes the file) and of every input, so a kept file is
never served for other inputs or other code: a change to either is a new key, never a stale file. Files are written whole (store.write_atomic: a killed build
never leaves half a file), and `prune` keeps the folder to what the last build used, so it does not grow
with every price snapshot.

The atlas's scored rounds are not kept here: Dagster stores them per round partition (defs/resources.py,
RoundStore) and decides when one is stale from its data version (defs/mlperf/rounds.scored_version).
"""

from __future__ import annotations

from pathlib import Path

from pipelines.fingerprint import text_sha256
from pipelines.publish.store import prune, write_atomic


class FileCache:
    """Files in `folder` named <key><suffix> (None: nothing kept, every `get` misses)."""

    def __init__(self, folder: Path | None, version: str):
        self.folder = folder
        self.version = version
        self.used: set[str] = set()  # the keys this build served or kept: what `prune` leaves

    def key(self, *inputs: str) -> str:
        """The SHA-256 of the code version and the inputs, one a line (only the last may hold a line break)."""
        return text_sha256("\n".join((self.version, *inputs)))

    def get(self, key: str, suffix: str) -> bytes | None:
        if self.folder is None:
            return None
        self.used.add(key)
        try:
            return (self.folder / f"{key}{suffix}").read_bytes()
        except OSError:  # never kept (or unreadable): made again and kept anew
            return None

    def put(self, key: str, suffix: str, data: bytes) -> None:
        if self.folder is None:
            return
        self.used.add(key)
        write_atomic(self.folder / f"{key}{suffix}", data)

    def prune(self) -> int:
        """Removes the files of the keys this cache neither served nor kept; returns how many keys."""
        return len(prune(self.folder, self.used, key=lambda path: path.stem))
