"""The one integration of MLPerf power samples into energy, as the official result summarizer computes it
(mlperf-logging 4.1.68, result_summarizer._compute_power_node and _compute_power_sw), step for step and
in the same order of float operations, so its figures are the same to the last bit and it raises where
that tool raises.

Its two users: the pipeline's power-log reader (power.py: energy per log, with its checks and the
departures from the tool that the rules call for) and the summarizer mirror (summarizer.power_crash:
where the official tool stops). Each hands the samples of one log as (time_ms, key, value) in file
order; a value is what the log's ``value`` field holds, unchecked, so a bad one raises here as it
raises in the official tool.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

START, STOP = "power_measurement_start", "power_measurement_stop"
READING, EFFICIENCY, ESTIMATE = "power_reading", "conversion_eff", "interconnect_power_est"

Sample = tuple[float, object, object]  # (time_ms, key, value)


@dataclass
class Window:
    """One pass over a node log's time-sorted samples."""

    start: float | None = None  # the last power_measurement_start
    stop: float | None = None  # the last power_measurement_stop (None: not logged)
    watt_ms: float = 0.0  # sum of reading x (its time - the previous reading's, or the start's)
    readings: int = 0  # readings integrated
    last_reading: float = 0.0  # the latest reading's time: the stop where none is logged
    efficiency: object = None  # the last conversion_eff logged
    efficiency_logged: bool = False

    @property
    def end(self) -> float:
        """The window's end: the stop, else the last reading (as the official tool takes it)."""
        return self.stop if self.stop is not None else self.last_reading


def integrate(samples: Iterable[Sample], ignore_stop_at: float | None = None) -> Window:
    """_compute_power_node's loop: the samples sorted by time (a stable sort: equal times keep their file
    order); every power_reading after the start and before the stop adds reading x (its time - the
    previous reading's time, or the start's). `ignore_stop_at`: a stop at that time is not taken."""
    window = Window()
    previous = 0.0
    for time_ms, key, value in sorted(samples, key=lambda sample: sample[0]):
        if key == START:
            window.start = previous = time_ms
        elif key == READING and window.stop is None and window.start is not None:
            window.watt_ms += value * (time_ms - previous)  # type: ignore[operator]
            previous = time_ms
            window.last_reading = max(window.last_reading, time_ms)
            window.readings += 1
        elif key == STOP and time_ms != ignore_stop_at:
            window.stop = time_ms
        elif key == EFFICIENCY:
            window.efficiency, window.efficiency_logged = value, True
    return window


def node_joules(efficiency: object, window: Window, time_ms: float) -> float:
    """A node's energy (J) over a run of `time_ms`: the window's average power x conversion_eff x the
    run's time; raises where _compute_power_node raises (a zero-length window: ZeroDivisionError)."""
    return efficiency * window.watt_ms * time_ms / (window.end - window.start) / 1000  # type: ignore[operator]


def switch_estimate(samples: Iterable[Sample]) -> tuple[object, object, bool]:
    """_compute_power_sw's loop: in file order, the conversion_eff logged before the first
    interconnect_power_est (1.0 if none), that estimate (0 if none), and whether there is one."""
    efficiency: object = 1.0
    for _, key, value in samples:
        if key == EFFICIENCY:
            efficiency = value
        if key == ESTIMATE:
            return efficiency, value, True
    return efficiency, 0, False


def switch_joules(efficiency: object, watts: object, time_ms: float) -> float:
    """A switch's energy (J): its estimated power x conversion_eff x the run's time."""
    return efficiency * watts * time_ms / 1000  # type: ignore[operator]
