"""The one error type for bad input.

Every parser raises InputError with the file, the place in it (line, column or JSON path) and
what is wrong, so the command line can print one line and the Dagster UI can show it on the
failed step without a stack trace.
"""

from __future__ import annotations

from pathlib import Path

BAD_INPUT = "bad input: "  # how every line that refuses the user's input begins (the command line's, the UI's)
EXIT_BAD_INPUT = 2  # the command line's exit status for bad input; 1 is any other failure


def bad_input(text: object) -> str:
    """The one line a refusal of bad input reads as: its text on one line, after BAD_INPUT."""
    return BAD_INPUT + " ".join(str(text).split())


def exit_status(reason: str) -> int:
    """The exit status of a command that failed for `reason`: EXIT_BAD_INPUT when it refuses input, else 1."""
    return EXIT_BAD_INPUT if reason.startswith(BAD_INPUT) else 1


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
