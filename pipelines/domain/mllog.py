"""The ``:::MLLOG`` line format of MLPerf result and power logs, read one way for every reader.

A record is the text after the last ``:::MLLOG `` of a line (what precedes it, a launcher's prefix,
is dropped, as the official parser's re.sub drops it), a JSON object with key, value, time_ms and
metadata. The official parser opens a file in text mode as latin-1 with universal newlines: lines
end at "\\n", "\\r\\n" or "\\r" and every byte is one character.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import BinaryIO, Iterator

TOKEN = ":::MLLOG "  # what starts every record of an MLPerf log line (the official parser's token)
_TOKEN_BYTES = TOKEN.encode("latin-1")


@dataclass(slots=True)
class LogLine:
    """One :::MLLOG record as the official parser builds it (mutable: BEGIN code copies and edits lines)."""

    full_string: str
    timestamp: float
    key: str
    value: dict  # {"value": ..., "metadata": ...}
    lineno: int


def mllog_lines(handle: BinaryIO, block_bytes: int = 1 << 22, containing: bytes | None = None) -> Iterator[tuple[int, str]]:
    """(line number, the line from its last ``:::MLLOG `` on) for every line of a binary file that holds
    the token, as the official parser cuts the lines of the file iterated in text mode; the text keeps
    its spaces (callers strip where the official parser does). ``containing``: only lines that also
    hold these bytes anywhere (a cheap filter before any decoding).

    Lines end at "\\n", "\\r\\n" or "\\r" (universal newlines, which bytes.splitlines splits on) and
    bytes are latin-1. Splitting and the token test run in C; only :::MLLOG lines are decoded.
    Memory: one block (plus a trailing part line).
    """
    lineno, carry = 0, b""
    while True:
        chunk = handle.read(block_bytes)
        data = carry + chunk
        if chunk:  # cut after the last "\n": every line break in data is then complete
            cut = data.rfind(b"\n") + 1
            data, carry = data[:cut], data[cut:]
        lines = data.splitlines()
        for offset, line in enumerate(lines, start=lineno + 1):
            at = line.rfind(_TOKEN_BYTES)
            if at >= 0 and (containing is None or containing in line):
                yield offset, line[at:].decode("latin-1")
        lineno += len(lines)
        if not chunk:
            return
