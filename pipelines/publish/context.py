"""Everything the report template shows, built from the marts (never from raw/).

Pure: frames in, a plain dict out. Numbers are formatted here once (pipelines/publish/numbers.py)
and the same strings go to the tables, the chart labels and the summary. Figures, tables and
footnotes are numbered here, in reading order, so the HTML and the PDF agree.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import date

import polars as pl

from pipelines.metrics.price_changes import KEY as PRICE_KEY
from pipelines.publish import charts, labels, numbers as fmt


MAX_BARS = 25  # bars per chart
MAX_POINT_LABELS = 15  # labelled points in a scatter plot
MAX_SERIES = 10  # lines in the price history
MAX_OTHER_CHANGES = 5  # price changes of instances outside the comparisons named in the text
MAX_FILES_PER_KIND = 20  # input files of one kind listed one by one in the appendix; more: one row


@dataclass
class Numbering:
    """Counters for figures, tables and footnotes, in reading order."""

    figures: int = 0
    tables: int = 0
    footnotes: int = 0
    seen_notes: dict = field(default_factory=dict)

    def figure(self) -> int:
        self.figures += 1
        return self.figures

    def table(self) -> int:
        self.tables += 1
        return self.tables


def instance_label(row: dict) -> str:
    return f"{labels.provider(row['provider'])} {row['instance_type']}"


def _system_note(system: str, systems: dict, scores: dict, mapping_note: str | None) -> str:
    info = systems.get(system)
    score = scores.get(system)
    parts = [system]
    if info:
        head = ", ".join(p for p in [info.get("submitter"), f"MLPerf Training {score['round']}" if score and score.get("round") else None,
                                     f"{info['division']} division" if info.get("division") else None,
                                     info.get("status")] if p)
        parts = [f"{system} ({head}):"]
        accel = f"{info.get('number_of_nodes') or '?'} node(s) × {info.get('accelerators_per_node') or '?'} {info.get('accelerator_model_name') or 'accelerators'}"
        if info.get("accelerator_memory_capacity"):
            accel += f", {info['accelerator_memory_capacity']} each"
        parts.append(accel + ";")
        host = info.get("host_processor_model_name")
        if host:
            count = info.get("host_processors_per_node")
            parts.append(f"host {count}× {host}" if count else f"host {host}")
            if info.get("host_memory_capacity"):
                parts[-1] += f", {info['host_memory_capacity']} memory"
            parts[-1] += ";"
        if info.get("framework"):
            parts.append(f"{info['framework']};")
        if info.get("software"):
            parts.append(f"software: {info['software']};")
    elif score and score.get("round"):
        parts.append(f"(MLPerf Training {score['round']}; no systems JSON given);")
    if score:
        if score.get("runs") is not None:
            dropped = score["dropped_runs"] or 0
            parts.append(f"runs scored: {score['runs'] - dropped} of {score['runs']} ({dropped} dropped); time to "
                         f"train is their olympic mean (the fastest and the slowest left out, a dropped run "
                         f"counting as the slowest).")
        else:
            parts.append(f"time to train from {score['file']} line {score['line']} (MLPerf result summarizer).")
    if mapping_note:
        parts.append(f"Match: {mapping_note}.")
    return " ".join(parts)


def _price_note(row: dict, price_lines: dict) -> str:
    where = price_lines.get((row["provider"], row["region"], row["instance_type"], row["price_as_of"]))
    text = (f"{row['instance_type']} in {row['region']}: {fmt.usd_hour(row['usd_per_hour'])} per hour on demand, "
            f"as of {fmt.day(row['price_as_of'])}; source: {row.get('price_source') or 'unknown'}")
    return text + (f" ({where})." if where else ".")


def _bar_kind(row: dict) -> str:
    if row["is_baseline"]:
        return "baseline"
    return "best" if row["cost_rank"] == 1 else "normal"


def _since(rows: list[dict], changes: list[dict], previous_date, labels_by_key: dict) -> str:
    """One sentence: what the last price snapshot changed about the cheapest instance of a benchmark."""
    if previous_date is None:
        return "first price snapshot: nothing to compare with"
    now = [r for r in rows if r["cost_rank"] == 1]
    before = [c for c in changes if c["previous_rank"] == 1]
    if not now:
        return "no measured result"
    current = now[0]
    key = (current["provider"], current["region"], current["instance_type"])
    change = next((c for c in changes if (c["provider"], c["region"], c["instance_type"]) == key), None)
    if before and (before[0]["provider"], before[0]["region"], before[0]["instance_type"]) != key:
        was = before[0]
        return (f"new cheapest; was {labels_by_key[(was['provider'], was['region'], was['instance_type'])]} "
                f"({fmt.usd(was['previous_cost_usd'])})"
                + (f", when {labels_by_key[key]} cost {fmt.usd(change['previous_cost_usd'])}"
                   if change and change["previous_cost_usd"] is not None else ""))
    if change and change["cost_change_pct"] is not None and abs(change["cost_change_pct"]) > 1e-9:
        return (f"same cheapest; its cost {fmt.rose_fell(change['cost_change_pct'])} "
                f"({fmt.usd(change['previous_cost_usd'])} → {fmt.usd(change['current_cost_usd'])})")
    if change and change["previous_cost_usd"] is None:
        return "no price on the previous snapshot"
    return "unchanged"


def _changed(price_changes: pl.DataFrame) -> pl.DataFrame:
    """Instances priced on both snapshots whose price differs, biggest cut first."""
    return (price_changes.filter(pl.col("previous_as_of").is_not_null() & (pl.col("change_pct").abs() > 1e-9))
            .sort("change_pct", "provider", "region", "instance_type"))


def _new(price_changes: pl.DataFrame, price_date) -> pl.DataFrame:
    """Instances first priced on the report's price date."""
    return price_changes.filter(pl.col("previous_as_of").is_null() & (pl.col("current_as_of") == price_date))


def files_digest(files: list[dict]) -> str:
    """SHA-256 over "<file>\\0<file's SHA-256>\\n" for each file, sorted by name: one hash that
    stands for a whole group of input files (the appendix's formula, checkable by hand from
    data/input_files.csv)."""
    digest = hashlib.sha256()
    for f in sorted(files, key=lambda f: f["file"]):
        digest.update(f["file"].encode() + b"\0" + f["sha256"].encode() + b"\n")
    return digest.hexdigest()


def input_rows(input_files: pl.DataFrame) -> list[dict]:
    """The appendix's rows: every input file, except that a kind with more than
    MAX_FILES_PER_KIND files is one row (count, rows, combined hash) - 800 systems JSON would
    otherwise fill 30 pages; data/input_files.csv keeps each file with its SHA-256."""
    rows = [{"kind": r["kind"], "file": r["file"], "rows": r["rows"], "sha256": r["sha256"], "bytes": r["bytes"],
             "group": False} for r in input_files.iter_rows(named=True)]
    by_kind: dict[str, list[dict]] = {}
    for r in rows:
        by_kind.setdefault(r["kind"], []).append(r)
    out = []
    for kind, files in by_kind.items():  # kinds in the order of their first file
        if len(files) <= MAX_FILES_PER_KIND:
            out += files
        else:
            out.append({"kind": kind, "file": f"{len(files):,} {kind} files (each with its SHA-256 in data/input_files.csv)",
                        "rows": sum(f["rows"] or 0 for f in files), "sha256": files_digest(files),
                        "bytes": sum(f["bytes"] or 0 for f in files), "group": True})
    return out


def _front_sentence(front: list[str], known: int) -> str:
    if not front:
        return ""
    if len(front) == 1:
        return f"{front[0]} alone is on the Pareto front: no other instance is faster or cheaper."
    return (f"Pareto front: {', '.join(front)} — each is either faster or cheaper than every other; "
            f"the other {known - len(front)} are matched or beaten on both time and cost.")


def build_context(
    *,
    settings: dict,
    dates: dict,
    cost: pl.DataFrame,
    cost_changes: pl.DataFrame,
    price_changes: pl.DataFrame,
    price_history: pl.DataFrame,
    systems: pl.DataFrame,
    time_to_train: pl.DataFrame,
    input_files: pl.DataFrame,
    generated_on: date,
) -> dict:
    numbering = Numbering()
    summary_table = numbering.table()  # the summary's table comes first in reading order
    systems_by_id = {r["system"]: r for r in systems.iter_rows(named=True)}
    score_by_key = {(r["system"], r["benchmark"]): r for r in time_to_train.iter_rows(named=True)}
    price_lines = {
        (r["provider"], r["region"], r["instance_type"], r["as_of"]): f"{r['file']} line {r['line']}"
        for r in price_history.iter_rows(named=True)
    }
    history_by_instance = {
        key: frame.sort("as_of")
        for key, frame in price_history.filter(pl.col("as_of") <= dates["price_date"])
        .partition_by(["provider", "region", "instance_type"], as_dict=True, maintain_order=True).items()
    }
    changes_by_bench: dict[tuple, list[dict]] = {}
    for r in cost_changes.iter_rows(named=True):
        changes_by_bench.setdefault((r["comparison"], r["benchmark"]), []).append(r)
    previous_date = dates.get("previous_price_date")

    comparison_ids = list(dict.fromkeys(cost["comparison"].to_list()))
    sections = []
    for section_no, cid in enumerate(comparison_ids, start=2):
        comp_rows = cost.filter(pl.col("comparison") == cid)
        first = comp_rows.row(0, named=True)
        notes_seen: dict[str, int] = {}
        section_notes: list[dict] = []

        def footnote(key: str, text: str) -> dict:
            """A footnote at the first mention of a system or price within the comparison."""
            if key in notes_seen:
                return {"ref": notes_seen[key], "text": None}
            numbering.footnotes += 1
            notes_seen[key] = numbering.footnotes
            note = {"ref": numbering.footnotes, "text": text, "id": f"fn-{numbering.footnotes}"}
            section_notes.append(note)
            return note

        benches = []
        for bench_no, bench in enumerate(dict.fromkeys(comp_rows["benchmark"].to_list()), start=1):
            rows = comp_rows.filter(pl.col("benchmark") == bench).sort("position").to_dicts()
            labels_by_key = {(r["provider"], r["region"], r["instance_type"]): instance_label(r) for r in rows}
            short = labels.short_benchmark(bench)
            table_rows = []
            for r in rows:
                score = score_by_key.get((r["system"], r["benchmark"])) if r["system"] else None
                table_rows.append({
                    "instance": instance_label(r),
                    "instance_type": r["instance_type"],
                    "provider": labels.provider(r["provider"]),
                    "region": r["region"],
                    "accelerators": f"{r['accelerator_count']}× {r['accelerator']}" if r["accelerator"] else "–",
                    "system": r["system"] or "none",
                    "system_note": footnote(f"sys:{r['system']}:{bench}" if r["system"] else f"nosys:{r['instance_type']}:{bench}",
                                            _system_note(r["system"], systems_by_id, {r["system"]: score} if score else {}, r.get("mapping_note"))
                                            if r["system"] else f"No measured {short} result for "
                                            f"{r['instance_type']}: {r.get('mapping_note') or 'no mapping'}."),
                    "time": fmt.minutes(r["time_to_train_minutes"]),
                    "usd_per_hour": fmt.usd_hour(r["usd_per_hour"]),
                    "price_note": footnote(f"price:{r['provider']}:{r['region']}:{r['instance_type']}", _price_note(r, price_lines)),
                    "cost": fmt.usd(r["cost_to_train_usd"]) if r["cost_to_train_usd"] is not None else fmt.NO_RESULT,
                    "savings": "baseline" if r["is_baseline"] else fmt.pct(r["savings_pct"]),
                    "speedup": fmt.times(r["speedup"]),
                    "samples_per_dollar": fmt.count(r["samples_per_dollar"]),
                    "price_to_beat": fmt.usd_hour(r["price_to_beat_baseline"]),
                    "price_to_beat_baseline": "baseline" if r["is_baseline"] else fmt.usd_hour(r["price_to_beat_baseline"]),
                    "price_to_beat_cheapest": "cheapest" if r["cost_rank"] == 1 else fmt.usd_hour(r["price_to_beat_cheapest"]),
                    "is_baseline": r["is_baseline"],
                    "is_cheapest": r["cost_rank"] == 1,
                    "on_front": bool(r["on_pareto_front"]),
                    "has_result": r["cost_to_train_usd"] is not None,
                })
            known = [r for r in rows if r["cost_to_train_usd"] is not None]
            baseline = next((r for r in rows if r["is_baseline"]), None)
            table_no = numbering.table()
            cost_fig = numbering.figure()
            savings_fig = numbering.figure() if baseline and baseline["cost_to_train_usd"] is not None and known else None
            pareto_fig = numbering.figure() if len(known) >= 2 else None
            # A chart stays legible: past MAX_BARS instances it shows the cheapest ones and the baseline.
            if len(rows) > MAX_BARS:
                keep = {id(r) for r in sorted(known, key=lambda r: (r["cost_to_train_usd"], r["position"]))[:MAX_BARS - 1]}
                shown = [r for r in rows if id(r) in keep or r["is_baseline"]]
                bars_note = f"the {len(shown) - (1 if baseline else 0)} cheapest of {len(rows)} instances" + (" and the baseline" if baseline else "")
            else:
                shown, bars_note = rows, None
            bars = [charts.Bar(instance_label(r), r["cost_to_train_usd"], fmt.usd(r["cost_to_train_usd"]), _bar_kind(r))
                    for r in shown]
            savings_bars = [charts.Bar(instance_label(r), r["savings_pct"], fmt.pct(r["savings_pct"]), _bar_kind(r))
                            for r in shown if not r["is_baseline"]]
            cheapest = min(known, key=lambda r: (r["cost_to_train_usd"], r["position"])) if known else None
            fastest = min(known, key=lambda r: (r["time_to_train_minutes"], r["position"])) if known else None
            front = [instance_label(r) for r in sorted(known, key=lambda r: (r["time_to_train_minutes"], r["position"]))
                     if r["on_pareto_front"]]
            # Break-even prices of the runner-up: the hourly price at which it would match the cheapest.
            beaters = sorted((r for r in known if r["cost_rank"] != 1), key=lambda r: r["cost_to_train_usd"])
            runner_up = beaters[0] if beaters else None
            cost_alt = (f"Bar chart of the cost to train {short} on each instance: "
                        + "; ".join(f"{b.label} {b.text if b.value is not None else 'no result'}" for b in bars) + ".")
            savings_alt = (f"Bar chart of the savings against the baseline {instance_label(baseline)}: "
                           + "; ".join(f"{b.label} {b.text if b.value is not None else 'no result'}" for b in savings_bars)
                           + ".") if savings_fig else None
            pareto_alt = (f"Scatter plot of time to train against cost to train for {short}: "
                          + "; ".join(f"{instance_label(r)} {fmt.minutes(r['time_to_train_minutes'])}, {fmt.usd(r['cost_to_train_usd'])}"
                                      for r in known)
                          + ". On the Pareto front: " + ", ".join(front) + ".") if pareto_fig else None
            benches.append({
                "benchmark": bench,
                "number": f"{section_no}.{bench_no}",
                "name": labels.benchmark(bench),
                "short": short,
                "anchor": f"{cid}-{bench}",
                "rows": table_rows,
                "table_no": table_no,
                "cost_fig": cost_fig,
                "cost_svg": charts.bar_chart(bars, "Cost to train (USD)", f"chart-{cost_fig}", cost_alt),
                "cost_alt": cost_alt,
                "savings_fig": savings_fig,
                "savings_svg": charts.bar_chart(savings_bars, f"Savings against {instance_label(baseline)} (%)",
                                                f"chart-{savings_fig}", savings_alt, signed=True) if savings_fig else None,
                "savings_alt": savings_alt,
                "pareto_fig": pareto_fig,
                "pareto_svg": charts.pareto_chart(
                    [(instance_label(r) if len(known) <= MAX_POINT_LABELS or r["on_pareto_front"] or r["is_baseline"] else "",
                      r["time_to_train_minutes"], r["cost_to_train_usd"], bool(r["on_pareto_front"])) for r in known],
                    "Time to train (minutes)", "Cost to train (USD)", f"chart-{pareto_fig}", pareto_alt) if pareto_fig else None,
                "pareto_alt": pareto_alt,
                "front": front,
                "bars_note": bars_note,
                "pareto_note": None if len(known) <= MAX_POINT_LABELS else "labels on the front and the baseline only",
                "front_sentence": _front_sentence(front, len(known)),
                "cheapest": instance_label(cheapest) if cheapest else None,
                "cheapest_cost": fmt.usd(cheapest["cost_to_train_usd"]) if cheapest else None,
                "cheapest_savings": fmt.pct(cheapest["savings_pct"]) if cheapest else None,
                "cheapest_savings_words": (
                    "is the baseline" if cheapest["is_baseline"] else "costs " + fmt.less_more(-cheapest["savings_pct"]) + " than the baseline"
                ) if cheapest and cheapest["savings_pct"] is not None else None,
                "cheapest_is_baseline": bool(cheapest and cheapest["is_baseline"]),
                "cheapest_is_fastest": bool(cheapest and fastest and instance_label(cheapest) == instance_label(fastest)),
                "fastest": instance_label(fastest) if fastest else None,
                "fastest_time": fmt.minutes(fastest["time_to_train_minutes"]) if fastest else None,
                "fastest_cost": fmt.usd(fastest["cost_to_train_usd"]) if fastest else None,
                "baseline": instance_label(baseline) if baseline else None,
                "baseline_cost": fmt.usd(baseline["cost_to_train_usd"]) if baseline and baseline["cost_to_train_usd"] is not None else None,
                "runner_up": {
                    "instance": instance_label(runner_up), "price": fmt.usd_hour(runner_up["usd_per_hour"]),
                    "price_to_beat": fmt.usd_hour(runner_up["price_to_beat_cheapest"]),
                    "cut": fmt.pct(100.0 * (1.0 - runner_up["price_to_beat_cheapest"] / runner_up["usd_per_hour"]), signed=False),
                } if runner_up and runner_up["usd_per_hour"] else None,
                "since": _since(rows, changes_by_bench.get((cid, bench), []), previous_date, labels_by_key),
                "missing": [instance_label(r) for r in rows if r["cost_to_train_usd"] is None],
            })
        history_fig = numbering.figure()
        instances_here = comp_rows.select("provider", "region", "instance_type").unique(maintain_order=True)
        history_note = None
        if instances_here.height > MAX_SERIES:  # the baseline, then the cheapest to train, in the table's order
            ranked = comp_rows.sort(pl.col("is_baseline").not_(), "cost_rank", "position", nulls_last=True)
            keep = ranked.select("provider", "region", "instance_type").unique(maintain_order=True).head(MAX_SERIES)
            history_note = f"the baseline and the cheapest to train, {keep.height} of {instances_here.height} instances"
            instances_here = instances_here.join(keep, on=["provider", "region", "instance_type"], how="semi", maintain_order="left")
        series = {}
        for inst in instances_here.iter_rows(named=True):
            pts = history_by_instance.get((inst["provider"], inst["region"], inst["instance_type"]))
            points = [(r["as_of"], r["usd_per_hour"]) for r in pts.iter_rows(named=True)] if pts is not None else []
            series[instance_label(inst)] = points
        history_alt = ("Step chart of each compared instance's on-demand hourly price over the price snapshots, "
                       f"each price in force until the next snapshot or {fmt.day(dates['price_date'])}: "
                       + "; ".join(f"{k}: " + (", ".join(f"{d.isoformat()} {fmt.usd_hour(p)}" for d, p in v) or "no price")
                                   for k, v in series.items()) + ".")
        sections.append({
            "id": cid, "number": section_no, "title": first["comparison_title"],
            "description": first.get("description") or "",
            "baseline": next((instance_label(r) for r in comp_rows.iter_rows(named=True) if r["is_baseline"]), None),
            "benchmarks": benches,
            "history_fig": history_fig,
            "history_svg": charts.price_history_chart(series, "On-demand price (USD per hour)", f"chart-{history_fig}", history_alt,
                                                      until=dates["price_date"]),
            "history_alt": history_alt,
            "history_note": history_note,
            "notes": section_notes,
        })

    summary = [
        {
            "comparison": s["title"], "section": s["number"], "anchor": b["anchor"], "benchmark": b["short"],
            "number": b["number"], "cheapest": b["cheapest"],
            "cheapest_cost": b["cheapest_cost"], "cheapest_savings": b["cheapest_savings"],
            "cheapest_savings_words": b["cheapest_savings_words"], "cheapest_is_baseline": b["cheapest_is_baseline"],
            "cheapest_is_fastest": b["cheapest_is_fastest"], "baseline": b["baseline"], "baseline_cost": b["baseline_cost"],
            "fastest": b["fastest"], "fastest_time": b["fastest_time"], "fastest_cost": b["fastest_cost"],
            "front": b["front"], "since": b["since"], "runner_up": b["runner_up"], "missing": b["missing"],
            "table_no": b["table_no"], "pareto_fig": b["pareto_fig"],
        }
        for s in sections for b in s["benchmarks"]
    ]

    # The report lists the price changes of the instances it compares; those of other priced
    # instances are counted (and named when few): a big price list must not turn the summary
    # and this section into pages of instances nobody compared. data/price_changes.csv has all.
    compared = cost.select(PRICE_KEY).unique()
    in_report = price_changes.join(compared, on=PRICE_KEY, how="semi")
    elsewhere = price_changes.join(compared, on=PRICE_KEY, how="anti")
    changed = _changed(in_report)
    other_changed = _changed(elsewhere)
    changes = {
        "previous_date": previous_date,
        "prices": [
            {"instance": instance_label(r), "region": r["region"],
             "previous": fmt.usd_hour(r["previous_usd_per_hour"]), "previous_as_of": fmt.day(r["previous_as_of"]),
             "current": fmt.usd_hour(r["current_usd_per_hour"]), "current_as_of": fmt.day(r["current_as_of"]),
             "change": fmt.pct(r["change_pct"])}
            for r in changed.iter_rows(named=True)
        ],
        "new": [instance_label(r) for r in _new(in_report, dates["price_date"]).iter_rows(named=True)]
        if previous_date else [],
        "others": {
            "changed": other_changed.height,
            "new": _new(elsewhere, dates["price_date"]).height if previous_date else 0,
            "named": [f"{instance_label(r)} {fmt.pct(r['change_pct'])}" for r in other_changed.iter_rows(named=True)]
            if other_changed.height <= MAX_OTHER_CHANGES else [],
        },
        "costs": [
            {"comparison": r["comparison"], "benchmark": labels.short_benchmark(r["benchmark"]), "instance": instance_label(r),
             "previous": fmt.usd(r["previous_cost_usd"]), "current": fmt.usd(r["current_cost_usd"]),
             "change": fmt.pct(r["cost_change_pct"]),
             "rank": (f"{r['previous_rank']} → {r['current_rank']}" if r["previous_rank"] != r["current_rank"] else f"{r['current_rank']} (same)")}
            for r in cost_changes.filter(
                pl.col("cost_change_pct").is_not_null() & (pl.col("cost_change_pct").abs() > 1e-9)
                | (pl.col("previous_rank") != pl.col("current_rank"))
            ).iter_rows(named=True)
        ],
    }
    comparison_titles = {s["id"]: s["title"] for s in sections}
    for c in changes["costs"]:
        c["comparison"] = comparison_titles.get(c["comparison"], c["comparison"])
    if changes["prices"]:
        changes["table_no"] = numbering.table()
    if changes["costs"]:
        changes["costs_table_no"] = numbering.table()

    appendix_table = numbering.table()
    return {
        "title": settings["title"],
        "subtitle": settings.get("subtitle") or "",
        "author": settings.get("author") or "",
        "price_date": fmt.day(dates["price_date"]),
        "previous_price_date": fmt.day(previous_date) if previous_date else None,
        "generated_on": fmt.day(generated_on),
        "benchmarks": [labels.short_benchmark(b) for b in settings.get("benchmarks") or []],
        "summary": summary,
        "summary_table": summary_table,
        "sections": sections,
        "changes": changes,
        "changes_section": len(sections) + 2,
        "methodology_section": len(sections) + 3,
        "inputs": input_rows(input_files),
        "appendix_table": appendix_table,
        "counts": {"figures": numbering.figures, "tables": numbering.tables, "footnotes": numbering.footnotes},
    }
