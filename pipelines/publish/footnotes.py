"""The footnotes' text, shared by the report and the atlas: what a measured system is, how its
time to train was scored, and where a price comes from."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from pipelines.domain import units as fmt
from pipelines.publish import labels


# Footnotes list a system's software up to this many characters (the systems JSON and the atlas's
# data/atlas_systems.csv have all): a 600-character list of library versions made WeasyPrint 70 push
# footnotes off their call's page, or lose them on a page laid out twice (3 of 590 footnotes of the
# whole MLPerf corpus; the report's current-generation tables with five such systems on one page).
SOFTWARE_LIMIT = 120


def shortened(items: str, limit: int | None) -> str:
    """A "; "-separated list cut after the last whole item that fits in `limit` characters, with "…"."""
    if limit is None or len(items) <= limit:
        return items
    cut = items.rfind("; ", 0, limit)
    return (items[:cut] if cut > 0 else items[:limit]) + " …"


def system_note(system: str, info: Mapping | None, round_: str | None, software_limit: int | None = None,
                detail: bool = True) -> str:
    """The system as its MLPerf systems JSON describes it: "<system> (<submitter>, MLPerf Training
    <round>, <division> division, <status>): <nodes> node(s) × <k> <accelerator>, <memory> each;
    host ...; <framework>; software: ...;" (only the parts the JSON gives). `software_limit` shortens
    the software list, which runs to 600 characters of library versions in some systems JSON;
    `detail=False` stops after the accelerators (the report's note; its sources appendix has the rest)."""
    in_round = f"MLPerf Training {round_}" if round_ else None
    if not info:
        return f"{system} ({in_round}; no systems JSON given);" if in_round else system
    head = ", ".join(p for p in [info.get("submitter"), in_round,
                                 f"{info['division']} division" if info.get("division") else None,
                                 info.get("status")] if p)
    parts = [f"{system} ({head}):" if head else f"{system}:"]
    accelerators = (f"{info.get('number_of_nodes') or '?'} node(s) × {info.get('accelerators_per_node') or '?'} "
                    f"{info.get('accelerator_model_name') or 'accelerators'}")
    if info.get("accelerator_memory_capacity"):
        accelerators += f", {info['accelerator_memory_capacity']} each"
    if not detail:
        return " ".join(parts + [accelerators + "."])
    parts.append(accelerators + ";")
    if info.get("host_processor_model_name"):
        count = info.get("host_processors_per_node")
        host = f"host {count}× {info['host_processor_model_name']}" if count else f"host {info['host_processor_model_name']}"
        if info.get("host_memory_capacity"):
            host += f", {info['host_memory_capacity']} memory"
        parts.append(host + ";")
    if info.get("framework"):
        parts.append(f"{info['framework']};")
    if info.get("software"):
        parts.append(f"software: {shortened(info['software'], software_limit)};")
    return " ".join(parts)


def runs_note(runs: int, dropped: int | None) -> str:
    dropped = dropped or 0
    return f"runs scored: {runs - dropped} of {runs} ({dropped} dropped); time to train is their olympic mean (Methodology)."


def price_note(provider: str, region: str | None, instance_type: str, usd_per_hour: float, as_of: date | str,
               source: str | None, *, where: str | None = None, unit: str | None = None,
               approximate: bool = False, option: str = "on demand", cited: bool = False) -> str:
    """"<Provider> <instance> in <region>: $x per hour <option>[, <unit>], as of <date>; source:
    <source> (<file and line>)." `unit` says what one hour buys when it is not obvious (per chip);
    `option` how the price is paid ("on demand", "spot", "1-year reserved, standard, all upfront").
    `cited`: the note ends at the date, its source and file being an entry of the sources appendix
    (price_source) that the note links to."""
    day = as_of if isinstance(as_of, str) else fmt.day(as_of)
    rate = "" if option in ("on demand", "spot") else " (effective hourly rate)"
    text = (f"{labels.provider(provider)} {instance_type} in {region or 'any region'}: {fmt.usd_hour(usd_per_hour)} "
            f"per hour {option}{rate}{', ' + unit if unit else ''}, as of {day}")
    if cited:
        text += "."
    else:
        text += f"; source: {source or 'unknown'}" + (f" ({where})." if where else ".")
    if approximate:
        text += " Approximate: a public list price not read from a price file."
    return text


def throughput_note(samples_per_second: float, source: str | None, measured_on: date | None,
                    where: str | None) -> str:
    """"<n> samples per second, measured by <source> on <date> (<file> line <n>)": a team's own
    measurement is credited to its source, never to MLPerf."""
    on = f" on {fmt.day(measured_on)}" if measured_on else ""
    return (f"{fmt.count(samples_per_second)} samples per second, measured by {source or 'an unnamed source'}{on}"
            + (f" ({where})" if where else ""))


def workload_note(samples: float, samples_per_second: float, source: str | None, measured_on: date | None,
                  where: str | None) -> str:
    """How a workload's time to train was computed from its measured throughput."""
    return (f"Time to train = {fmt.count(samples)} samples per run (report.toml [workloads]) / "
            f"{throughput_note(samples_per_second, source, measured_on, where)}.")


def price_source(provider: str, region: str | None, instance_type: str, as_of: date | str, source: str | None,
                 where: str | None, option: str = "on demand") -> str:
    """The sources appendix's entry for a price: the instance, the way of paying and the date, then the
    source as its file gives it, and the file and line."""
    day = as_of if isinstance(as_of, str) else fmt.day(as_of)
    return (f"{labels.provider(provider)} {instance_type} in {region or 'any region'}, {option}, as of {day}: "
            f"{source or 'source unknown'}" + (f" ({where})" if where else ""))
