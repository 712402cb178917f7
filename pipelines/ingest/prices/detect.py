"""Which price format a file holds, from its content (never its name).

Files are fetched or dropped in by hand under any name, so the first bytes decide:
- JSON (first non-blank byte `{`): the top-level keys tell the provider (`json_kind`);
- the AWS Price List CSV starts with its `FormatVersion` metadata line;
- any other text is read as the normalized CSV, whose header check gives a precise error.
Only the head of the file is read here: AWS CSVs are gigabytes.
"""

from __future__ import annotations

from pathlib import Path

from pipelines.errors import InputError

HEAD_BYTES = 4096

NORMALIZED_CSV = "normalized_csv"
AWS_CSV = "aws_csv"
JSON = "json"
AWS_JSON = "aws_json"
AZURE_JSON = "azure_json"
GCP_JSON = "gcp_json"


def sniff(path: Path) -> str:
    """NORMALIZED_CSV, AWS_CSV or JSON, from the file's first bytes; InputError if unreadable."""
    try:
        with path.open("rb") as handle:
            head = handle.read(HEAD_BYTES)
    except IsADirectoryError:
        raise InputError(path, None, "is a directory, expected a file") from None
    except OSError as exc:
        raise InputError(path, None, f"cannot be read: {exc.strerror or exc}") from None
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if not text:
        raise InputError(path, 1, "is empty, expected a price file")
    if b"\x00" in head:
        raise InputError(path, None, "is binary, expected a price file (CSV or JSON text)")
    if text.startswith(b"{"):
        return JSON
    if text.lstrip(b'"').startswith(b"FormatVersion"):
        return AWS_CSV
    return NORMALIZED_CSV


def json_kind(doc: object, path: Path) -> str:
    """AWS_JSON, AZURE_JSON or GCP_JSON from the top-level keys of a parsed JSON file."""
    if not isinstance(doc, dict):
        raise InputError(path, "$", "JSON top level is not an object")
    if "products" in doc and "terms" in doc:
        return AWS_JSON
    if "Items" in doc:
        return AZURE_JSON
    if "skus" in doc:
        return GCP_JSON
    keys = ", ".join(sorted(map(str, doc))[:8]) or "none"
    raise InputError(
        path, "$",
        f"JSON is not a known price format (keys {keys}); expected AWS offer (products, terms), "
        "Azure Retail Prices (Items) or GCP Billing Catalog (skus)",
    )
