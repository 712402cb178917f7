"""Everything templates/atlas.html.j2 shows, built from the atlas marts (never from the corpus).

Pure: frames in, a plain dict out; numbers formatted once (pipelines/publish/numbers.py); tables,
figures and footnotes numbered in reading order so the HTML and the PDF agree.
"""

from __future__ import annotations

from datetime import date

import polars as pl

from pipelines.atlas import charts
from pipelines.ingest.mlperf_quirks import MODEL_NAMES
from pipelines.ingest.mlperf_rules import RULES, round_key
from pipelines.publish import labels, numbers as fmt

MAX_UNPRICED_LISTED = 80
TOP_ROWS = 10  # a table lists the 10 cheapest results and every tagged one; data/atlas.csv has all


def model_name(key: str) -> str:
    return MODEL_NAMES.get(key, key)


def instance_label(provider: str, instance_type: str) -> str:
    return f"{labels.provider(provider)} {instance_type}"


def _hours(value: float | None) -> str:
    return "–" if value is None else f"{value:,.1f}"


def _target(round_: str, benchmark: str) -> str:
    rule = RULES.get(round_, {}).get(benchmark)
    if rule is None or rule.target is None:
        return "quality target not checked"
    return rule.target.describe()


class Notes:
    """Footnotes numbered across the document; a chapter lists the notes first called in it."""

    def __init__(self) -> None:
        self.count = 0
        self.chapter: list[dict] = []
        self.seen: dict[str, int] = {}

    def start_chapter(self) -> list[dict]:
        self.chapter, self.seen = [], {}
        return self.chapter

    def note(self, key: str, text: str) -> dict:
        if key in self.seen:
            return {"ref": self.seen[key], "text": None}
        self.count += 1
        self.seen[key] = self.count
        note = {"ref": self.count, "text": text, "id": f"fn-{self.count}"}
        self.chapter.append(note)
        return note


def system_note(r: dict) -> str:
    head = ", ".join(p for p in [r.get("submitter"), f"MLPerf Training {r['round']}",
                                 f"{r['division']} division" if r.get("division") else None,
                                 f"status {r['status']}" if r.get("status") else None] if p)
    text = (f"{r['system']} ({head}): {r.get('number_of_nodes') or '?'} node(s) × "
            f"{r.get('accelerators_per_node') or '?'} {r.get('accelerator_model_name') or 'accelerators'}")
    if r.get("host_processor_model_name"):
        text += f"; host {r['host_processor_model_name']}"
    if r.get("framework"):
        text += f"; {r['framework']}"
    if r.get("software"):
        text += f"; {r['software']}"
    text += f". Catalog model {r.get('accelerator_model') or 'unknown'}"
    if r.get("assumption"):
        text += f" ({r['assumption']})"
    text += f". Runs: {r.get('runs')} result files, {r.get('dropped_runs')} dropped"
    if r.get("scaling_factor") not in (None, 1.0):
        text += f"; scaling.json factor {r['scaling_factor']:g} applied"
    if r.get("quirk"):
        text += f"; layout: {r['quirk']}"
    return text + "."


def price_note(r: dict) -> str:
    billing = "per chip" if r.get("billing") == "chip" else f"per instance of {r['instance_accelerators']} accelerators"
    text = (f"{instance_label(r['provider'], r['instance_type'])} ({r['region']}): {fmt.usd_hour(r['usd_per_hour'])} "
            f"per hour {billing}, as of {r['price_as_of']}; {r['price_source']}.")
    if r.get("price_certainty") == "approximate":
        text += " Approximate price."
    return text


def build_context(tables: dict[str, pl.DataFrame], *, price_date: date, generated_on: date, mlperf_dir: str) -> dict:
    costs = tables["atlas_costs"]
    scores = tables["atlas_scores"]
    systems = tables["atlas_systems"].select(
        "round", "folder", "system", "host_processor_model_name", "framework", "software")
    instances = tables["atlas_instances"]
    costs = costs.join(systems, on=["round", "folder", "system"], how="left").join(
        instances.select("provider", "instance_type", "billing"), on=["provider", "instance_type"], how="left")
    counters = {"table": 0, "figure": 0}

    def next_no(kind: str) -> int:
        counters[kind] += 1
        return counters[kind]

    notes = Notes()
    rounds_present = sorted(set(scores["round"].drop_nulls().to_list()), key=round_key)
    priced_rounds = sorted(set(costs["round"].to_list()), key=round_key)

    # ---- summary and trend (chapter 1 and 2)
    trend = tables["atlas_trend"]
    summary_table = next_no("table")
    summary = []
    for model in sorted(set(trend["benchmark_model"].to_list())):
        rows = sorted(trend.filter(pl.col("benchmark_model") == model).to_dicts(), key=lambda r: round_key(r["round"]))
        last, first = rows[-1], rows[0]
        summary.append({
            "model": model_name(model), "round": last["round"], "cost": fmt.usd(last["cheapest_cost_usd"]),
            "config": f"{last['system']} ({last['submitter']}) on {last['instances_needed']} × "
                      f"{instance_label(last['provider'], last['instance_type'])}",
            "time": fmt.minutes(last["time_to_train_minutes"]),
            "since_first": (f"{fmt.less_more(100.0 * (last['cheapest_cost_usd'] / first['cheapest_cost_usd'] - 1.0))} than in {first['round']}"
                            if len(rows) > 1 else "first round priced"),
            "anchor": f"r{last['round'].replace('.', '-')}-{model}",
        })
    trend_fig = next_no("figure")
    round_axis = [r for r in rounds_present]
    series = {}
    for model in sorted(set(trend["benchmark_model"].to_list())):
        pts = [(round_axis.index(r["round"]), r["cheapest_cost_usd"])
               for r in trend.filter(pl.col("benchmark_model") == model).to_dicts() if r["round"] in round_axis]
        series[model_name(model)] = sorted(pts)
    trend_svg = charts.trend_chart(series, round_axis, f"fig-{trend_fig}-chart",
                                   "Cheapest cost to train per benchmark model and MLPerf round") if series else ""
    trend_table = next_no("table")
    trend_rows = []
    for r in sorted(trend.to_dicts(), key=lambda r: (r["benchmark_model"], round_key(r["round"]))):
        target = _target(r["round"], r["benchmark"])
        trend_rows.append({
            "model": model_name(r["benchmark_model"]), "round": r["round"], "benchmark": r["benchmark"],
            "cost": fmt.usd(r["cheapest_cost_usd"]), "change": fmt.pct(r["change_pct"]),
            "config": f"{r['system']} ({r['submitter']})", "instance": f"{r['instances_needed']} × {instance_label(r['provider'], r['instance_type'])}",
            "time": fmt.minutes(r["time_to_train_minutes"]), "target": target, "results": r["results_priced"],
        })
    for i, row in enumerate(trend_rows):  # say where the quality target changed between rounds
        prev = trend_rows[i - 1] if i else None
        row["target_changed"] = bool(prev and prev["model"] == row["model"] and prev["target"] != row["target"])

    # ---- one chapter per round, one section per benchmark model
    chapters = []
    number = 2
    for round_ in priced_rounds:
        number += 1
        chapter_notes = notes.start_chapter()
        in_round = costs.filter(pl.col("round") == round_)
        groups = []
        for sub, model in enumerate(sorted(set(in_round["benchmark_model"].to_list())), start=1):
            group = in_round.filter(pl.col("benchmark_model") == model)
            best = (group.sort("cost_to_train_usd", "provider", "instance_type")
                    .group_by("folder", "system", "benchmark", maintain_order=True).first()
                    .sort("cost_to_train_usd", "submitter", "system"))
            records = best.to_dicts()
            # how many more instances each result was priced on (its best one is the row)
            pairs = {(k[0], k[1]): n for *k, n in group.group_by("folder", "system").len().iter_rows()}
            rows = []
            for rank, r in enumerate(records, start=1):
                rows.append({
                    "rank": rank, "submitter": r["submitter"], "system": r["system"],
                    "accelerators": f"{r['number_of_nodes']} × {r['accelerators_per_node']} {r['accelerator_model']}",
                    "time": fmt.minutes(r["time_to_train_minutes"]),
                    "instance": f"{r['instances_needed']} × {instance_label(r['provider'], r['instance_type'])}",
                    "idle": r["idle_accelerators"],
                    "usd_per_hour": fmt.usd_hour(r["usd_per_hour"]), "cost": fmt.usd(r["cost_to_train_usd"]),
                    "accelerator_hours": _hours(r["accelerator_hours"]),
                    "usd_per_accelerator_hour": fmt.usd(r["usd_per_accelerator_hour"]),
                    "estimate": r["price_basis"] != "same cloud", "basis": r["price_basis"],
                    "approximate": r["price_certainty"] == "approximate",
                    "cheapest_for": r["accelerator_model"] if r["cheapest_for_accelerator"] else None,
                    "fastest": bool(r["fastest"]), "front": bool(r["on_pareto_front"]),
                    "others": pairs[(r["folder"], r["system"])] - 1,
                })
            shown = []
            for row, r in zip(rows, records):
                if row["rank"] <= TOP_ROWS or row["front"] or row["fastest"] or row["cheapest_for"]:
                    # footnotes only for the rows the table shows, numbered in reading order
                    row["system_note"] = notes.note(f"sys:{r['folder']}:{r['system']}", system_note(r))
                    row["price_note"] = notes.note(f"price:{r['provider']}:{r['instance_type']}", price_note(r))
                    shown.append(row)
            front = [row for row in rows if row["front"]]
            fastest = next((row for row in rows if row["fastest"]), None)
            cheapest_per = [row for row in rows if row["cheapest_for"]]
            fig = None
            svg = ""
            if len(rows) >= 2:
                fig = next_no("figure")
                points = [(f"{r['system']}", r["time_to_train_minutes"], r["cost_to_train_usd"], bool(r["on_pareto_front"]))
                          for r in records]
                svg = charts.scatter_chart(points, f"fig-{fig}-chart",
                                           f"{model_name(model)}, MLPerf {round_}: time against cost to train of every priced result")
            benchmarks = sorted(set(group["benchmark"].to_list()))
            groups.append({
                "anchor": f"r{round_.replace('.', '-')}-{model}", "number": f"{number}.{sub}",
                "name": model_name(model), "benchmark": ", ".join(benchmarks),
                "target": "; ".join(_target(round_, b) for b in benchmarks),
                "table_no": next_no("table"), "rows": shown, "hidden": len(rows) - len(shown), "results": len(rows),
                "front": [f"{r['system']}" for r in front],
                "fastest": fastest, "cheapest": rows[0] if rows else None, "cheapest_per": cheapest_per,
                "fig": fig, "svg": svg, "pairs": group.height,
            })
        chapters.append({"id": f"round-{round_.replace('.', '-')}", "number": number, "round": round_,
                         "groups": groups, "notes": chapter_notes})

    # ---- not priced, methodology, instances
    unpriced = tables["atlas_unpriced"]
    unpriced_no = next_no("table")
    reasons = (unpriced.with_columns(pl.col("not_priced_because").str.split(": ").list.first().alias("why"))
               .group_by("why").agg(pl.len().alias("entries")).sort("entries", "why", descending=[True, False]))
    unpriced_rows = [
        {"round": r["round"], "submitter": r["submitter"] or r["folder"], "system": r["system"],
         "benchmark": r["benchmark"] or "?", "why": r["not_priced_because"]}
        for r in unpriced.sort("round", "folder", "system", "benchmark", nulls_last=True).head(MAX_UNPRICED_LISTED).to_dicts()
    ]
    prices = tables["atlas_prices"]
    instances_no = next_no("table")
    in_force = (prices.filter(pl.col("as_of") <= price_date).sort("as_of").group_by("provider", "instance_type", maintain_order=True)
                .last())
    instance_rows = [
        {"instance": instance_label(r["provider"], r["instance_type"]), "accelerators": f"{r['accelerator_count']} × {r['accelerator_model']}",
         "billing": r["billing"], "price": fmt.usd_hour(r["usd_per_hour"]) if r["usd_per_hour"] is not None else "no price",
         "region": r["region"] or "–", "as_of": fmt.day(r["as_of"]), "certainty": r["certainty"] or "–",
         "source": r["source"] or "–", "notes": r["notes"] or ""}
        for r in instances.join(in_force, on=["provider", "instance_type"], how="left").sort("accelerator_model", "provider", "instance_type").to_dicts()
    ]
    scored = scores.filter(pl.col("time_to_train_minutes").is_not_null())
    return {
        "title": "The MLPerf price-performance atlas",
        "subtitle": "Every published MLPerf Training result, priced on every matching cloud instance",
        "author": "Cost-to-train pipeline",
        "price_date": price_date.isoformat(), "generated_on": generated_on.isoformat(),
        "corpus": mlperf_dir.rstrip("/").rsplit("/", 1)[-1],
        "rounds": rounds_present, "priced_rounds": priced_rounds,
        "facts": {"entries": scores.height, "scored": scored.height, "unscored": scores.height - scored.height,
                  "priced_results": costs.select("folder", "system", "round", "benchmark").unique().height,
                  "pairs": costs.height, "unpriced": unpriced.height, "instances": instances.height,
                  "runs": tables["atlas_runs"].height},
        "summary": summary, "summary_table": summary_table,
        "trend_fig": trend_fig, "trend_svg": trend_svg, "trend_table": trend_table, "trend_rows": trend_rows,
        "chapters": chapters,
        "unpriced": {"table_no": unpriced_no, "reasons": reasons.to_dicts(), "rows": unpriced_rows,
                     "total": unpriced.height, "listed": len(unpriced_rows)},
        "unpriced_section": number + 1, "methodology_section": number + 2,
        "instances_table": instances_no, "instances": instance_rows,
    }
