"""Price age and staleness (pipelines/metrics/price_age.py) against dates counted by hand."""

from datetime import date

import polars as pl

from pipelines.metrics.price_age import with_price_age
from pipelines.publish.context import age_spread


def test_age_in_days_and_the_stale_threshold():
    frame = pl.DataFrame({
        "provider": ["aws"] * 5, "region": ["us-east-1"] * 5,
        "instance_type": ["p4d", "p3", "p3", "x", "none"],
        "pricing_option": ["on_demand", "on_demand", "commitment_1y", "on_demand", "on_demand"],
        "price_as_of": [date(2025, 6, 1), date(2022, 2, 8), date(2019, 4, 5), date(2024, 6, 1), None],
    })
    out = with_price_age(frame, date(2025, 6, 1), 365)
    # 2022-02-08 -> 2025-02-08: 366 + 365 + 365 = 1096 days (2024 is a leap year), then Feb 20 + Mar 31 +
    # Apr 30 + May 31 + 1 = 113: 1209; 2019-04-05 -> 2025-04-05: 6 x 365 + 2 leap days = 2192, + Apr 25 + May 31
    # + 1 = 2249; 2024-06-01 -> 2025-06-01: 365 days, not more than 365: not stale
    assert out["price_age_days"].to_list() == [0, 1209, 2249, 365, None]
    assert out["stale"].to_list() == [False, True, True, False, None]
    assert with_price_age(frame, date(2025, 6, 2), 365)["stale"].to_list()[3] is True  # 366 days
    spread = age_spread(out)
    assert spread == {"oldest": date(2019, 4, 5), "newest": date(2025, 6, 1), "prices": 4, "stale": 2}
