"""AWS spot: the JSON of EC2 DescribeSpotPriceHistory (per availability zone) and the spot
advisor JSON (interruption-frequency buckets).

Spot is not in the AWS Price List. `aws ec2 describe-spot-price-history` (or the API through any
SDK) returns `{"SpotPriceHistory": [{"AvailabilityZone", "InstanceType", "ProductDescription",
"SpotPrice" (text), "Timestamp"}, ...], "NextToken"}`: each record is the moment a zone's price
changed; given a start time, AWS also returns each zone's price in effect at that time.

Which figure stands for a region on a date (documented rule): the spot price of an instance type
in a region on day D is the median, over the region's availability zones in the file, of each
zone's last price at or before D 00:00 UTC (the price in force when the day starts; the mean of
the two middle zones for an even count). zone_count, zone_min_usd_per_hour and
zone_max_usd_per_hour keep the spread. Days run from the first day on which every zone of the
file has a price to the day of the file's newest record; a row is written on the first day and
on every day the figure or its spread changes, which is all the price history needs (the price in
force on a date is the newest row dated on or before it). Because a day's figure depends only on
records before its midnight, two downloads that overlap give the same figure for the same day.
Only Linux/UNIX records count ("Linux/UNIX (Amazon VPC)" where a zone has no plain "Linux/UNIX"
record); Windows, SUSE and Red Hat records, other instance types, and zones that are not in the
region itself (Local Zones such as us-east-1-bos-1a, Wavelength zones) are left out. A zone's
region is its name without the final letter (us-east-1a -> us-east-1).

The spot advisor (https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json) gives per
region, OS and instance type `{"s": savings %, "r": bucket index}`, with the buckets' labels in
`ranges` ("<5%", "5-10%", "10-15%", "15-20%", ">20%"): how often spot capacity was reclaimed in the
trailing month. The file carries no date of its own, so its date comes from its name (the fetch
saves it as aws-spot-advisor-<YYYY-MM-DD>.json); a file named without a date is an InputError.
Its Linux bucket is attached to the AWS spot price of the same region and type in force on that
date (interruption_frequency); a bucket that a row already has (from a normalized CSV) is kept,
and of two advisor files the newer wins.
"""

from __future__ import annotations

import re
import statistics
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path

import polars as pl

from pipelines.domain.errors import InputError
from pipelines.ingest.prices.instances import instance_types
from pipelines.ingest.prices.jsontools import as_dict, as_list, as_text, key, opt_text
from pipelines.ingest.prices.normalized import parse_day, parse_price, price_frame

LINUX = ("Linux/UNIX", "Linux/UNIX (Amazon VPC)")  # in order of preference
ADVISOR_OS = "Linux"
# us-east-1a, eu-central-2b, us-gov-west-1a; not Local Zones (us-east-1-bos-1a) or Wavelength.
ZONE = re.compile(r"^(?P<region>[a-z]{2}(?:-[a-z]+)+-\d+)[a-z]$")
_DATE_IN_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})")

BUCKET_SCHEMA = {"region": pl.Utf8, "instance_type": pl.Utf8, "as_of": pl.Date, "interruption_frequency": pl.Utf8,
                 "file": pl.Utf8, "line": pl.Utf8}


def empty_buckets() -> pl.DataFrame:
    return pl.DataFrame(schema=BUCKET_SCHEMA)


# --- DescribeSpotPriceHistory ------------------------------------------------------------------

def read_spot_history(doc: dict, path: Path, rel: str, instances: pl.DataFrame) -> pl.DataFrame:
    """Spot price rows per (region, instance type) and day (see the module docstring)."""
    wanted = set(instance_types(instances, "aws"))
    records: dict[tuple[str, str], dict[tuple[str, str], list]] = {}  # (region, type) -> (zone, os) -> records
    newest = None
    for index, record in enumerate(as_list(doc["SpotPriceHistory"], path, "$.SpotPriceHistory")):
        where = f"$.SpotPriceHistory[{index}]"
        record = as_dict(record, path, where)
        stamp = _timestamp(record.get("Timestamp"), path, f"{where}.Timestamp")
        newest = max(newest, stamp) if newest else stamp
        zone = opt_text(record.get("AvailabilityZone"))
        found = ZONE.match(zone)
        os_name = opt_text(record.get("ProductDescription"))
        if opt_text(record.get("InstanceType")) not in wanted or os_name not in LINUX or not found:
            continue
        price = parse_price(record.get("SpotPrice"), path, f"{where}.SpotPrice")
        if price == 0:
            raise InputError(path, f"{where}.SpotPrice", "spot price is zero")
        series = records.setdefault((found.group("region"), record["InstanceType"].strip()), {})
        series.setdefault((zone, os_name), []).append((stamp, price, where))
    out = []
    for (region, instance_type), by_zone in sorted(records.items()):
        zones = _one_series_per_zone(by_zone, path)
        out += _daily_rows(region, instance_type, zones, newest, rel)
    return price_frame(out)


def _timestamp(value: object, path: Path, where: str) -> datetime:
    text = as_text(value, path, where)
    try:
        stamp = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InputError(path, where, f"timestamp {text!r} is not an ISO date and time") from None
    if stamp.tzinfo is None:
        raise InputError(path, where, f"timestamp {text!r} has no time zone (AWS gives UTC, e.g. 2025-06-01T08:00:00Z)")
    stamp = stamp.astimezone(timezone.utc)
    parse_day(stamp.date().isoformat(), path, where)  # not in the future, not before cloud prices
    return stamp


def _one_series_per_zone(by_zone: dict[tuple[str, str], list], path: Path) -> dict[str, list]:
    """zone -> [(timestamp, price, where)] sorted, plain Linux/UNIX preferred; InputError on a clash."""
    zones: dict[str, list] = {}
    for os_name in reversed(LINUX):  # the preferred description last, so it replaces the other
        for (zone, this_os), series in by_zone.items():
            if this_os == os_name:
                zones[zone] = sorted(series, key=lambda r: r[0])
    for zone, series in zones.items():
        for (stamp, price, where), (stamp2, price2, where2) in zip(series, series[1:]):
            if stamp == stamp2 and price != price2:
                raise InputError(path, where2, f"{zone} has two spot prices at {stamp.isoformat()}: "
                                               f"{price:g} ({where}) and {price2:g}")
    return zones


def _daily_rows(region: str, instance_type: str, zones: dict[str, list], newest: datetime, rel: str) -> list[dict]:
    first = max(_day_known(series[0][0]) for series in zones.values())
    last = newest.date()
    rows, previous = [], None
    day = first
    while day <= last:
        midnight = datetime.combine(day, time(0), timezone.utc)
        in_force = {zone: _last_at(series, midnight) for zone, series in sorted(zones.items())}
        prices = [price for _, price, _ in in_force.values()]
        figure = (round(statistics.median(prices), 9), len(prices), min(prices), max(prices))
        if figure != previous:
            rows.append(_spot_row(region, instance_type, day, figure, in_force, rel))
            previous = figure
        day += timedelta(days=1)
    return rows


def _day_known(stamp: datetime) -> date:
    """The first day whose midnight (UTC) is at or after `stamp`."""
    day = stamp.date()
    return day if stamp.timetz() == time(0, tzinfo=timezone.utc) else day + timedelta(days=1)


def _last_at(series: list, moment: datetime) -> tuple:
    found = series[0]
    for record in series:
        if record[0] > moment:
            break
        found = record
    return found


def _spot_row(region: str, instance_type: str, day: date, figure: tuple, in_force: dict, rel: str) -> dict:
    median, count, low, high = figure
    zones = ", ".join(f"{zone} {price:g}" for zone, (_, price, _) in in_force.items())
    return {
        "provider": "aws", "region": region, "instance_type": instance_type, "usd_per_hour": median, "as_of": day,
        "source": (f"AWS EC2 DescribeSpotPriceHistory, Linux/UNIX, median over {count} zone(s) of each zone's last "
                   f"price at or before {day.isoformat()} 00:00 UTC ({zones})"),
        "pricing_model": "spot", "zone_count": count, "zone_min_usd_per_hour": low, "zone_max_usd_per_hour": high,
        "file": rel, "line": " + ".join(where for _, _, where in in_force.values()),
    }


# --- spot advisor ------------------------------------------------------------------------------

def read_spot_advisor(doc: dict, path: Path, rel: str, instances: pl.DataFrame) -> pl.DataFrame:
    """Linux interruption buckets of our instance types, dated by the file's name."""
    found = _DATE_IN_NAME.search(path.name)
    if not found:
        raise InputError(path, None, "the AWS spot advisor JSON carries no date of its own: name the file with the "
                                     "day it was downloaded, e.g. aws-spot-advisor-2025-06-01.json")
    day = parse_day(found.group(1), path, "file name")
    labels = {}
    for index, entry in enumerate(as_list(doc.get("ranges"), path, "$.ranges")):
        entry = as_dict(entry, path, f"$.ranges[{index}]")
        labels[_bucket_index(entry.get("index"), path, f"$.ranges[{index}].index")] = as_text(
            entry.get("label"), path, f"$.ranges[{index}].label")
    wanted = set(instance_types(instances, "aws"))
    rows = []
    for region, by_os in as_dict(doc["spot_advisor"], path, "$.spot_advisor").items():
        where = f"$.spot_advisor{key(region)}"
        linux = as_dict(as_dict(by_os, path, where).get(ADVISOR_OS, {}), path, f"{where}.{ADVISOR_OS}")
        for instance_type, advice in linux.items():
            if instance_type not in wanted:
                continue
            at = f"{where}.{ADVISOR_OS}{key(instance_type)}"
            bucket = _bucket_index(as_dict(advice, path, at).get("r"), path, f"{at}.r")
            if bucket not in labels:
                raise InputError(path, f"{at}.r", f"interruption bucket {bucket!r} is not one of the file's ranges")
            rows.append({"region": region, "instance_type": instance_type, "as_of": day,
                         "interruption_frequency": labels[bucket], "file": rel, "line": f"{at}.r"})
    return pl.DataFrame(rows, schema=BUCKET_SCHEMA, orient="row") if rows else empty_buckets()


def _bucket_index(value: object, path: Path, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(path, where, f"interruption bucket {value!r} is not a whole number")
    return value


def attach_buckets(prices: pl.DataFrame, buckets: pl.DataFrame, root: Path) -> pl.DataFrame:
    """Each advisor bucket on the AWS spot price of its region and type in force on its date."""
    if buckets.is_empty() or prices.is_empty():
        return prices
    key_ = ["region", "instance_type", "as_of"]
    clash = buckets.group_by(key_).agg(pl.col("interruption_frequency").n_unique().alias("n"), pl.all().first())
    clash = clash.filter(pl.col("n") > 1)
    if clash.height:
        row = clash.row(0, named=True)
        raise InputError(root / row["file"], row["line"], f"spot advisor files of the same date disagree on "
                                                          f"{row['instance_type']} in {row['region']}")
    rows = prices.with_row_index("_row")
    spot = rows.filter((pl.col("provider") == "aws") & (pl.col("pricing_model") == "spot")).select(
        "_row", "region", "instance_type", pl.col("as_of").alias("price_as_of"))
    matched = (
        buckets.unique(key_).join(spot, on=["region", "instance_type"])
        .filter(pl.col("price_as_of") <= pl.col("as_of"))
        .filter(pl.col("price_as_of") == pl.col("price_as_of").max().over("region", "instance_type", "as_of"))
        .sort("as_of").unique("_row", keep="last", maintain_order=True)  # the newer advisor wins
        .select("_row", pl.col("interruption_frequency").alias("_bucket"))
    )
    return (rows.join(matched, on="_row", how="left", maintain_order="left")
            .with_columns(interruption_frequency=pl.coalesce("interruption_frequency", "_bucket"))
            .drop("_row", "_bucket"))
