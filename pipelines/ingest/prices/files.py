"""The files of a price folder (prices/): the one listing that the readers read and that the raw_prices observation
hashes (defs/prices/raw.py), so a file is read exactly when a change to it is a change of the data set.

Every regular file under the folder (ingest/raw_files.input_files: hidden and temporary files such as `x.csv~`
left out, a FIFO or a dangling link refused) but notes and in-flight downloads: README files, `.md` and `.txt`
(the catalogs' SOURCE.md), `.part` and `.tmp`. Editing a note changes no price and rebuilds nothing."""

from __future__ import annotations

from pathlib import Path

from pipelines.ingest.raw_files import input_files

# Files in a price folder that are not price files: notes and in-flight downloads.
NOT_PRICES = (".md", ".txt", ".part", ".tmp")


def is_price_file(relative: Path) -> bool:
    """Whether a file of a price folder (by its path relative to the folder) holds prices (see the docstring)."""
    if any(part.startswith(".") or part.endswith("~") for part in relative.parts):
        return False
    return not (relative.name.lower().startswith("readme") or relative.suffix.lower() in NOT_PRICES)


def price_files(folder: Path) -> list[Path]:
    """The price files under `folder`, sorted by their path relative to it ([] for a folder that is not there)."""
    folder = Path(folder)
    return sorted((path for path in input_files(folder) if is_price_file(path.relative_to(folder))),
                  key=lambda path: path.relative_to(folder).as_posix())
