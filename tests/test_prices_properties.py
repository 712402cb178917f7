"""Property tests: whatever the bytes, a price file gives a valid frame or one InputError."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.domain.errors import InputError
from pipelines.ingest.prices import MAX_USD_PER_HOUR, PRICE_SCHEMA, read_price_file, read_price_folder
from pipelines.domain.pricing import PRICE_OPTION
from tests.price_fixtures import (
    AWS_2022, REFERENCE_PRICES_CSV, aws_csv_2025, aws_json, azure_pages, gcp_pages, instances, savings_plan_csv,
    savings_plan_json, spot_advisor, spot_history,
)

INSTANCES = instances()
SEEDS = {
    "normalized.csv": REFERENCE_PRICES_CSV.encode(),
    "aws.csv": aws_csv_2025().encode(),
    "aws.json": json.dumps(aws_json(AWS_2022)).encode(),
    "azure.json": json.dumps(azure_pages()[0]).encode(),
    "gcp.json": json.dumps({"skus": [s for p in gcp_pages() for s in p["skus"]], "nextPageToken": ""}).encode(),
    "savings-plans.json": json.dumps(savings_plan_json()).encode(),
    "savings-plans.csv": savings_plan_csv().encode(),
    "spot-history.json": json.dumps(spot_history()).encode(),
    "aws-spot-advisor-2025-06-01.json": json.dumps(spot_advisor()).encode(),
}
JSON_SEEDS = {name: json.loads(body) for name, body in SEEDS.items() if name.endswith(".json")}
CHECKS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def read_or_input_error(name: str, content: bytes) -> None:
    """The property: a frame of the right schema with sane values, or InputError; nothing else."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(content)
        try:
            frame = read_price_file(path, INSTANCES)
        except InputError as exc:
            assert exc.path and exc.problem
            return
    assert dict(frame.schema) == PRICE_SCHEMA
    if frame.height:
        assert frame["usd_per_hour"].min() > 0 and frame["usd_per_hour"].max() <= MAX_USD_PER_HOUR
        key = ["provider", "region", "instance_type", *PRICE_OPTION, "as_of"]
        assert frame.select(key).is_duplicated().sum() == 0
        optional = ("term_years", "payment_option", "offering_class", "upfront_usd", "recurring_usd_per_hour",
                    "zone_count", "zone_min_usd_per_hour", "zone_max_usd_per_hour", "interruption_frequency")
        required = [c for c in PRICE_SCHEMA if c not in optional]
        assert frame.select(required).null_count().row(0) == (0,) * len(required)
        committed = frame.filter(pl.col("pricing_model").is_in(["reserved", "savings_plan", "committed_use"]))
        assert committed["term_years"].is_in([1, 3]).all()
        assert frame.filter(pl.col("pricing_model") != "spot").select(optional[5:]).null_count().row(0) == (
            (frame.height - frame.filter(pl.col("pricing_model") == "spot").height,) * 4)


@CHECKS
@given(st.binary(max_size=2000), st.sampled_from(["x.csv", "x.json", "x"]))
def test_arbitrary_bytes(content, name):
    read_or_input_error(name, content)


@CHECKS
@given(st.sampled_from(sorted(SEEDS)), st.data())
def test_byte_mutations_of_valid_files(name, data):
    body = bytearray(SEEDS[name])
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(body)))
        kind = data.draw(st.sampled_from(["flip", "insert", "delete", "truncate"]))
        if kind == "flip" and at < len(body):
            body[at] = data.draw(st.integers(0, 255))
        elif kind == "insert":
            body[at:at] = data.draw(st.sampled_from([b",", b'"', b"\n", b"\r\n", b"{", b"]", b"\x00", b"\xff", b"-", b"0", b"e9"]))
        elif kind == "delete":
            del body[at:at + data.draw(st.integers(1, 50))]
        elif kind == "truncate":
            del body[at:]
    read_or_input_error(name, bytes(body))


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=True) | st.text(max_size=12)
    | st.sampled_from(["USD", "EUR", "OnDemand", "Consumption", "1 Hour", "h", "GiBy.h", "2022-02-08",
                       "2099-01-01T00:00:00Z", "p4d.24xlarge", "Standard_ND96asr_v4", "-1", "1e400", "NaN"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, prefix + (i,))


@CHECKS
@given(st.sampled_from(sorted(JSON_SEEDS)), st.data())
def test_structural_mutations_of_valid_json(name, data):
    doc = json.loads(json.dumps(JSON_SEEDS[name]))
    paths = [p for p in _paths(doc) if p]
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths))
        parent = doc
        try:
            for step in path[:-1]:
                parent = parent[step]
            if data.draw(st.booleans()) and isinstance(parent, dict):
                parent.pop(path[-1], None)
            else:
                parent[path[-1]] = data.draw(JSON_VALUES)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed the path
    read_or_input_error(name, json.dumps(doc).encode())


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(sorted(SEEDS)), min_size=1, max_size=4), st.data())
def test_folders_of_valid_files_and_copies(names, data):
    """Any mix of valid files, copies included, reads without conflict: one price per key.

    A savings plan offer comes with the EC2 price list it joins to, and the spot advisor (which
    holds no prices) with a spot history, as the fetch saves them."""
    if any(name.startswith("savings-plans") for name in names):
        names = names + ["aws.csv"]
    if "aws-spot-advisor-2025-06-01.json" in names:
        names = names + ["spot-history.json"]
    with tempfile.TemporaryDirectory() as tmp:
        for n, name in enumerate(names):
            (Path(tmp) / f"{n}-{name}").write_bytes(SEEDS[name])
        frame = read_price_folder(Path(tmp), INSTANCES)
    assert frame.select(["provider", "region", "instance_type", *PRICE_OPTION, "as_of"]).is_duplicated().sum() == 0
    assert frame.height >= 1 and isinstance(frame, pl.DataFrame)
