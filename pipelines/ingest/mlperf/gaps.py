"""Facts a systems JSON leaves out, taken from the system's name where it states them unambiguously.

The official summarizer stops on a systems JSON without a field its table prints; the walker then
scores the runs by the rules (mlperf.tree), and the atlas needs the division and the node count
the file should have given. Each is taken only from a statement that the published corpus
(v0.7 ... v5.1) shows to be unambiguous; otherwise it stays unknown, and the entry says so.

- Division: a name ending in ``_close``, ``_closed`` or ``_open`` (SIAT v0.7 names its system
  folders so: ``modelarts_512_tensorflow_close``). In the 28 published systems whose name ends so
  and whose JSON has a division, the two agree. The names read are the system's folder (the JSON's
  file name) and the JSON's ``system_name``; if they say different divisions, none is taken. The
  published trees have no division in their folder layout (every round is
  ``training_results_vX.Y/<submitter>/results/<system>/``), so the name is the only place left.
- Node count: NVIDIA's ``n<N>`` token (``dgxa100_n8_ngc20.06_mxnet``): the JSON says the same in
  296 of the 296 published systems with both. A leading ``<N>x`` is not read: in 19 of 128
  published systems it counts accelerators or GPUs, not nodes (``8xA100_80GB-baseline`` is one
  node, ``128xBM.GPU.H100.8`` sixteen). Nor are the logs: no published training log has a
  ``number_of_nodes`` key (some echo their systems JSON, which adds nothing), and the ``<N>x`` of
  their ``submission_platform`` counts accelerators in 7 of 830 (system, platform) pairs
  (MosaicML's ``8xA100_80GB-baseline`` on one node).
(Measured on v0.7 ... v5.1, 2026-12; each published systems JSON that states the fact itself.)
"""

from __future__ import annotations

import re

_DIVISION = re.compile(r"(?:^|[_.-])(close|closed|open)$", re.I)
_NODES = re.compile(r"(?:^|[_.-])n(\d+)(?=[_.-]|$)")


def _agreed(values: list) -> object:
    """The one value the names state, or None when none states one or they disagree."""
    stated = set(values) - {None}
    return stated.pop() if len(stated) == 1 else None


def division_from_names(*names: str | None) -> str | None:
    """closed or open, where the names that end in a division agree (see the module docstring)."""
    found = [_DIVISION.search(name) if name else None for name in names]
    return _agreed([None if m is None else "open" if m.group(1).lower() == "open" else "closed" for m in found])


def nodes_from_names(*names: str | None) -> int | None:
    """The node count of an ``n<N>`` token (N >= 1), where the names that carry one agree."""
    found = [_NODES.search(name) if name else None for name in names]
    counts = [int(m.group(1)) if m and int(m.group(1)) > 0 else None for m in found]
    return _agreed(counts)  # type: ignore[return-value]
