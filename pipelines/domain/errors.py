"""The one error type for bad input.

Every parser raises InputError with the file, the place in it (line, column or JSON path) and
what is wrong, so the command line can print one line and the Dagster UI can show it on the
failed step without a stack trace.
"""

from __future__ import annotations

from pathlib import Path


class InputError(Exception):
    """Bad input: names the file, where in it, and the problem."""

    def __init__(self, path: str | Path, where: str | int | None, problem: str):
        self.path = str(path)
        self.where = "" if where is None else str(where)
        self.problem = problem
        super().__init__(str(self))

    def __str__(self) -> str:
        place = f"{self.path}:{self.where}" if self.where else self.path
        return f"{place}: {self.problem}"

    def __reduce__(self):  # keeps the error picklable across Dagster's process boundaries
        return (InputError, (self.path, self.where or None, self.problem))
