"""Issue 19 item 6, the report's wording and order, against values computed by hand from raw/:

- each benchmark's table lists the cheapest instance first, instances without a result last, the
  baseline tagged wherever it falls;
- a negative saving reads as a multiple of the baseline's cost ("1.30× the baseline's cost") in
  the table, the chart label and the chart's alt text;
- "Since <previous snapshot>" says how the savings moved and why: with a snapshot that cuts the
  baseline p3.16xlarge by 25 %, ResNet-50's savings fall from 63.8 % to 51.7 % although the
  cheapest instance and its cost stay the same (it said "unchanged" before).
"""

from __future__ import annotations

import csv
import html as html_lib
import re
from datetime import date

import pytest

from tests.pipeline_runner import BUNDLED_RAW, NEXT_PRICE_DATE, built_report, make_dirs, run_pipeline, without_catalogs

PROVIDER = {"aws": "AWS", "gcp": "GCP", "azure": "Azure"}


def _price(instance: str, on: date, raw=BUNDLED_RAW) -> float:
    """The newest on-demand price of `instance` dated on or before `on`, read from the snapshot files."""
    rows = [r for f in sorted((raw / "prices").glob("*.csv")) for r in csv.DictReader(f.open(newline=""))
            if r["instance_type"] == instance and date.fromisoformat(r["as_of"]) <= on
            and (r.get("pricing_model") or "on_demand") == "on_demand"]
    return float(max(rows, key=lambda r: r["as_of"])["usd_per_hour"])


def _system(provider: str, instance: str, benchmark: str) -> str:
    with (BUNDLED_RAW / "mappings.csv").open(newline="") as handle:
        return next(r["system"] for r in csv.DictReader(handle)
                    if (r["provider"], r["instance_type"], r["benchmark"]) == (provider, instance, benchmark))


def _minutes(system: str, benchmark: str) -> float | None:
    """The summarizer CSV's time for the system (named by its systems JSON in details_url)."""
    for path in sorted((BUNDLED_RAW / "results").glob("*.csv")):
        for r in csv.DictReader(path.open(newline="")):
            if (r["system"] == system or r["details_url"].endswith(f"/systems/{system}.json")) and r[benchmark]:
                return float(r[benchmark])
    return None


def _cost(provider: str, instance: str, benchmark: str, on: date = date(2025, 6, 1)) -> float | None:
    system = _system(provider, instance, benchmark)
    minutes = _minutes(system, benchmark) if system else None
    return None if minutes is None else _price(instance, on) * minutes / 60


A100_VS_V100 = [("aws", "p4d.24xlarge"), ("aws", "p3dn.24xlarge"), ("aws", "p3.16xlarge"), ("gcp", "a2-highgpu-8g"),
                ("gcp", "n1-highmem-96+8xV100"), ("azure", "Standard_ND96asr_v4"), ("azure", "Standard_ND40rs_v2")]


def _text(fragment: str) -> str:
    """What a reader sees: tags as spaces, except <wbr> (a place a long name may break) as nothing."""
    return re.sub(r"\s+", " ", html_lib.unescape(re.sub(r"<[^>]+>", " ", fragment.replace("<wbr>", "")))).strip()


def _table(html: str, number: int) -> list[tuple[str, str]]:
    """(row class, row text) of each body row of Table `number`."""
    body = html[html.index(f'<table id="tab-{number}"'):]
    body = body[body.index("<tbody>"):body.index("</tbody>")]
    return [(cls, _text(row)) for cls, row in re.findall(r'<tr(?: class="([^"]*)")?(?: data-facet=\'[^\']*\')?>(.*?)</tr>', body, re.S)]


def _cost_table(html: str, short: str) -> int:
    """The number of the first chapter's main table of a benchmark ("<short>: time and cost to train ...")."""
    return int(re.search(rf'<table id="tab-(\d+)"(?:(?!</caption>).)*?{re.escape(short)}: time and cost to train',
                         html, re.S).group(1))


def _instance(row_text: str) -> str:
    return next(f"{PROVIDER[p]} {i}" for p, i in A100_VS_V100 if row_text.startswith(f"{PROVIDER[p]} {i} "))


@pytest.fixture(scope="module")
def bundled_html(bundled_2025_report) -> str:
    """The bundled report at price date 2025-06-01, whose "Since" column tells AWS's June 2025 cut."""
    return (bundled_2025_report / "report.html").read_text(encoding="utf-8")


def test_tables_list_the_cheapest_first_and_no_result_last(bundled_html):
    for short, benchmark in (("ResNet-50", "resnet"), ("BERT-Large", "bert"), ("DLRM", "dlrm")):
        number = _cost_table(bundled_html, short)
        costs = {f"{PROVIDER[p]} {i}": _cost(p, i, benchmark) for p, i in A100_VS_V100}
        priced = sorted((c, name) for name, c in costs.items() if c is not None)
        unpriced = [f"{PROVIDER[p]} {i}" for p, i in A100_VS_V100 if costs[f"{PROVIDER[p]} {i}"] is None]  # report.toml order
        rows = _table(bundled_html, number)
        assert [_instance(text) for _, text in rows] == [name for _, name in priced] + unpriced, benchmark
        baseline = [(cls, text) for cls, text in rows if _instance(text) == "AWS p3.16xlarge"]
        assert "baseline" in baseline[0][0].split() and " baseline " in f" {baseline[0][1]} "  # tagged where it falls
    dlrm = [(cls or "").split() for cls, _ in _table(bundled_html, _cost_table(bundled_html, "DLRM"))]  # no V100 has one
    assert [("no-result" in cls) for cls in dlrm] == [False] * 3 + [True] * 4


def test_negative_savings_read_as_a_multiple_of_the_baseline_cost(bundled_html):
    baseline = _cost("aws", "p3.16xlarge", "resnet")
    gcp_v100 = _cost("gcp", "n1-highmem-96+8xV100", "resnet")
    ratio = gcp_v100 / baseline  # 25.518544 x 88.5557 min against 24.48 x 71.2783 min
    words = f"{ratio:.2f}× the baseline's cost"
    assert words == "1.30× the baseline's cost"
    row = next(text for _, text in _table(bundled_html, 2) if text.startswith("GCP n1-highmem-96+8xV100"))
    assert f"${gcp_v100:.2f} {words}" in row and "-29.5%" not in row
    savings_chart = bundled_html[bundled_html.index('<figure id="fig-3"'):bundled_html.index("</figure>", bundled_html.index('<figure id="fig-3"'))]
    chart_text = html_lib.unescape(savings_chart).replace("\u00a0", " ")
    assert f">{words}</text>" in chart_text  # the bar's label (SVG text)
    assert f"GCP n1-highmem-96+8xV100 {words}" in chart_text  # the alt text
    assert "-29.5%" not in bundled_html


def _since(html: str, section: str) -> str:
    """What a benchmark's section says the last price snapshot changed ("Since <date>: ... See Table ...")."""
    text = _text(html[html.index(f'<section id="{section}"'):])
    return re.search(r"Since \S+: (.*?)\. See Table", text).group(1)


def test_since_names_the_new_cheapest_and_how_the_savings_moved(bundled_html):
    a100 = 28.770861111111106  # dgxa100_ngc21.05_mxnet, resnet (v1.0 summary)
    azure_before = _price("Standard_ND96asr_v4", date(2024, 1, 1)) * a100 / 60
    p4d_before = _price("p4d.24xlarge", date(2024, 1, 1)) * a100 / 60
    baseline = _cost("aws", "p3.16xlarge", "resnet")
    before = 100 * (1 - azure_before / baseline)  # Azure was the cheapest on 2024-01-01
    now = 100 * (1 - _cost("aws", "p4d.24xlarge", "resnet") / baseline)
    expected = (f"new cheapest; was Azure Standard_ND96asr_v4 (${azure_before:.2f}), when AWS p4d.24xlarge cost "
                f"${p4d_before:.2f}; savings +{before:.1f}% → +{now:.1f}%")
    assert expected == ("new cheapest; was Azure Standard_ND96asr_v4 ($13.04), when AWS p4d.24xlarge cost $15.71; "
                        "savings +55.2% → +63.8%")
    assert _since(bundled_html, "a100-vs-v100-resnet") == expected  # section 2.1 (the answer page lists no history)


def test_since_says_the_savings_fell_because_the_baseline_got_cheaper(tmp_path):
    dirs = make_dirs(tmp_path)
    without_catalogs(dirs.raw)  # a snapshot later than the catalogs' cannot be dated yet
    cut = round(24.48 * 0.75, 4)  # p3.16xlarge -25 %
    (dirs.raw / "prices" / f"on_demand_{NEXT_PRICE_DATE}.csv").write_text(
        "provider,region,instance_type,usd_per_hour,as_of,source\n"
        f"aws,us-east-1,p3.16xlarge,{cut},{NEXT_PRICE_DATE},test: a 25% cut of the baseline\n")
    result = run_pipeline(dirs, pdf=False)  # the HTML is read: no PDF
    assert result.success
    html = (built_report(dirs, result) / "report.html").read_text(encoding="utf-8")
    cheapest = _cost("aws", "p4d.24xlarge", "resnet")
    v100 = _minutes("dgx1_ngc20.06_mxnet", "resnet")
    before = 100 * (1 - cheapest / (24.48 * v100 / 60))
    after = 100 * (1 - cheapest / (cut * v100 / 60))
    assert (f"{before:.1f}", f"{after:.1f}") == ("63.8", "51.7")
    expected = (f"same cheapest at the same cost (${cheapest:.2f}); savings +{before:.1f}% → +{after:.1f}%, because the "
                f"baseline AWS p3.16xlarge's price fell 25.0% ($24.4800 → ${cut:.4f} per hour)")
    assert _since(html, "a100-vs-v100-resnet") == expected
    # the Gaudi comparison's baseline is the p4d, whose price did not move: nothing changed there
    assert _since(html, "gaudi-vs-nvidia-resnet").endswith("unchanged")
