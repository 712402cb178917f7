"""Which price format a file holds, from its content (never its name).

Files are fetched or dropped in by hand under any name, so the first bytes decide:
- JSON (first non-blank byte `{`): the top-level keys tell the kind (`json_kind`);
- an AWS Price List CSV starts with its `FormatVersion` metadata line; its OfferCode line tells
  the EC2 offer (AmazonEC2) from the savings plan offer (AmazonComputeSavingsPlan);
- a SkyPilot catalog's header names `InstanceType` (skypilot.py; a file at the catalog's place,
  skypilot_<date>/<cloud>/vms.csv, is read as one whatever its header, so a broken header is
  reported as a catalog's);
- any other text is read as the normalized CSV, whose header check gives a precise error.
Only the head of the file is read here: AWS CSVs are gigabytes.
"""

from __future__ import annotations

import re
from pathlib import Path

from pipelines.domain.errors import InputError

HEAD_BYTES = 4096

NORMALIZED_CSV = "normalized_csv"
AWS_CSV = "aws_csv"
AWS_SAVINGS_PLAN_CSV = "aws_savings_plan_csv"
JSON = "json"
AWS_JSON = "aws_json"
AWS_SAVINGS_PLAN_JSON = "aws_savings_plan_json"
AWS_SPOT_HISTORY_JSON = "aws_spot_history_json"
AWS_SPOT_ADVISOR_JSON = "aws_spot_advisor_json"
AZURE_JSON = "azure_json"
SKYPILOT_CSV = "skypilot_csv"
GCP_JSON = "gcp_json"

_OFFER_CODE = re.compile(rb'^"?OfferCode"?\s*,\s*"?([^"\r\n]*)', re.MULTILINE)


def sniff(path: Path) -> str:
    """NORMALIZED_CSV, AWS_CSV, AWS_SAVINGS_PLAN_CSV, SKYPILOT_CSV or JSON, from the file's first bytes."""
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
        offer = _OFFER_CODE.search(text)
        return AWS_SAVINGS_PLAN_CSV if offer and b"SavingsPlan" in offer.group(1) else AWS_CSV
    first_line = text.split(b"\n", 1)[0]
    if b"InstanceType" in first_line.split(b","):
        return SKYPILOT_CSV
    return NORMALIZED_CSV


def json_kind(doc: object, path: Path) -> str:
    """The kind of a parsed JSON price file, from its top-level keys."""
    if not isinstance(doc, dict):
        raise InputError(path, "$", "JSON top level is not an object")
    if "products" in doc and "terms" in doc:
        terms = doc["terms"]
        return AWS_SAVINGS_PLAN_JSON if isinstance(terms, dict) and "savingsPlan" in terms else AWS_JSON
    if "SpotPriceHistory" in doc:
        return AWS_SPOT_HISTORY_JSON
    if "spot_advisor" in doc:
        return AWS_SPOT_ADVISOR_JSON
    if "Items" in doc:
        return AZURE_JSON
    if "skus" in doc:
        return GCP_JSON
    keys = ", ".join(sorted(map(str, doc))[:8]) or "none"
    raise InputError(
        path, "$",
        f"JSON is not a known price format (keys {keys}); expected AWS offer (products, terms), AWS savings plan "
        "offer (products, terms.savingsPlan), EC2 DescribeSpotPriceHistory (SpotPriceHistory), AWS spot advisor "
        "(spot_advisor), Azure Retail Prices (Items) or GCP Billing Catalog (skus)",
    )
