"""The official MLPerf compliance checker's verdict on one result log, from the package's own rules.

The result summarizer of mlperf-logging (4.1.68) scores a run only when its compliance checker
passes the log; a run that fails counts as a failed run in olympic scoring. The checker's rules are
YAML files shipped inside the package (``mlperf_logging/compliance_checker/training_<X.Y.Z>/``):
``common.yaml`` names required keys and Python snippets to run on each log line, and enqueues
``<division>_common.yaml`` and ``<division>_<benchmark>.yaml`` from the log's own
submission_division and submission_benchmark lines; those may enqueue more (ResNet's optimizer).
The files are read here as data at run time, never copied into the project, so a new package
version brings its rules with it.

Semantics mirrored from ``mlp_compliance.ComplianceChecker`` (run by the summarizer with
quiet=True, werror=False):
- each file is checked over all log lines with its own state ``s`` (after its BEGIN code, which
  may append lines: Stable Diffusion aggregates FID and CLIP into ``aggregated_eval_accuracy``);
- per line whose key the file names: PRE code, CHECK expressions, POST code (for
  ``submission_*`` keys only on their first line), FIRST_CHECK on the first line, and the
  ATLEAST_ONE_CHECK expression (the quality target) on every line;
- then the occurrence rules (REQ): EXACTLY_ONE (several equal values are only a warning, which
  quiet mode drops), AT_LEAST_ONE, AT_LEAST(n), AT_LEAST_ONE_OR(other), and the END block;
- a message keyed by a log key is withdrawn when a later file redefines that key;
- the log is valid when no message is left.
Where the official checker raises instead of reporting (an ATLEAST_ONE_CHECK or BEGIN block that
fails on a line, a rule file that does not exist) the summarizer stops on that submitter folder:
``OfficialCrash`` carries that. A ValueError is the exception: the summarizer catches it and counts
the run as failed, so it is a message here. (It also leaves the rest of that log's queue of rule
files in the checker's module-level queue, to be read before the next log's; that spill-over
depends on the file system's listing order and is not mirrored.)

Speed: every snippet is compiled once per process, unknown keys are skipped with one dict
lookup, and the log is parsed once (the official tool parses it three times and reads the YAML
files again for every log).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from mlperf_logging.compliance_checker.mlp_compliance import all_same, is_integer

from pipelines.domain.mllog import LogLine
from pipelines.domain.rule_files import Key as _Key, RuleFile as _Config, rule_file as _config


class OfficialCrash(Exception):
    """The official tool raises here instead of judging the log: it stops on the whole folder."""


class _Rejected(Exception):
    """The official checker raises a ValueError, which the summarizer counts as a failed run."""


def _raised(error: Exception, where: str) -> Exception:
    text = f"{where}: {type(error).__name__}: {error}"
    return _Rejected(text) if isinstance(error, ValueError) else OfficialCrash(text)


@dataclass
class Verdict:
    messages: list[str]
    # key -> first line that met that key's ATLEAST_ONE_CHECK (the quality target), last file wins
    target_line: dict[str, LogLine] = field(default_factory=dict)

    @property
    def valid(self) -> bool:
        return not self.messages





class _Messages:
    """The checker's messages: keyed ones can be withdrawn by a later file that redefines the key."""

    def __init__(self) -> None:
        self.keyed: dict[str, str] = {}
        self.fixed: list[str] = []

    def put(self, message: str, key: str | None = None) -> None:
        if key:
            self.keyed[key] = message
        else:
            self.fixed.append(message)

    def all(self) -> list[str]:
        return [*self.fixed, *self.keyed.values()]  # unkeyed first: parse errors, the quality target


def check(lines: list[LogLine], ruleset: str, parse_errors: int = 0) -> Verdict:
    """The checker's verdict on a parsed log (``lines`` may be extended by the rules' BEGIN code).

    ``parse_errors``: :::MLLOG lines that did not parse; the checker fails such a log.
    Raises OfficialCrash where the official checker raises.
    """
    messages = _Messages()
    verdict = Verdict(messages=[])
    if parse_errors:
        messages.put("Log lines had parsing errors.")
    if not lines:
        messages.put("No log lines detected")
    queue = [f"training_{ruleset}/common.yaml"]
    while queue:
        name = queue.pop(0)
        config = _config(name)
        if config is None:
            raise OfficialCrash(f"the rules name {name}, which mlperf-logging does not ship")
        try:
            _check_config(config, lines, queue, messages, verdict)
        except _Rejected as error:
            return Verdict(messages=[str(error)])
    verdict.messages = messages.all()
    return verdict


def _check_config(config: _Config, lines: list[LogLine], queue: list[str], messages: _Messages,
                  verdict: Verdict) -> None:
    s: dict = {}
    state = {"enqueue_config": queue.append, "s": s, "is_integer": is_integer, "math": math}
    if config.begin is not None:
        try:
            exec(config.begin, state, {"loglines": lines, "s": s, "state": state})  # type: ignore[arg-type]  # noqa: S102
        except Exception as error:
            raise _raised(error, "the rules' BEGIN code fails") from None
    keys = config.keys
    reported: dict[str, list] = {name: [] for name in keys}
    for name in keys:
        messages.keyed.pop(name, None)
    at_least_counts: dict[str, int] = {}
    executed: set[str] = set()
    first_seen: set[str] = set()
    try:
        named = [line for line in lines if line.key in keys]  # a key these rules do not name is allowed
    except TypeError:  # a key that is a JSON list or object: the official lookup skips it the same way
        named = [line for line in lines if isinstance(line.key, str) and line.key in keys]
    for line in named:
        rule = keys[line.key]
        value = line.value
        reported[line.key].append(value["value"])
        if line.key not in executed:
            if rule.pre is not None:
                _exec(rule.pre, state, line, messages, "PRE")
            for source, code in rule.checks:
                _eval_check(source, code, state, line, messages)
            if rule.post is not None:
                _exec(rule.post, state, line, messages, "POST")
        if rule.first_checks and line.key not in first_seen:
            first_seen.add(line.key)
            for source, code in rule.first_checks:
                _eval_check(source, code, state, line, messages)
        if rule.at_least_one is not None:
            source, code = rule.at_least_one
            try:
                met = eval(code, state, {"ll": line, "v": value})  # type: ignore[arg-type]  # noqa: S307
            except Exception as error:
                raise _raised(error, f"line {line.lineno}: the quality check {source.strip()!r} fails on "
                                     f"{line.key} {value['value']!r}") from None
            count = at_least_counts.get(line.key, 0)
            if met and count == 0:
                verdict.target_line[line.key] = line
            at_least_counts[line.key] = count + bool(met)
        if "submission_" in line.key:
            executed.add(line.key)
    for name, count in at_least_counts.items():
        if count == 0:
            verdict.target_line.pop(name, None)
            messages.put(f"Failed checks for {name} : {keys[name].at_least_one[0].strip()}")
    _check_occurrences(keys, reported, messages)
    if config.end_pre is not None:
        try:
            exec(config.end_pre, state)  # type: ignore[arg-type]  # noqa: S102
        except Exception as error:
            raise _raised(error, "the rules' END code fails") from None
    for source, code in config.end_checks:
        try:
            if not eval(code, state):  # type: ignore[arg-type]  # noqa: S307
                messages.put(f"failed test: {source.strip()}")
        except Exception:
            messages.put(f"Failed executing CHECK code: {source.strip()}")


def _check_occurrences(keys: dict[str, _Key], reported: dict[str, list], messages: _Messages) -> None:
    alternatives: set[tuple[str, ...]] = set()
    for name, rule in keys.items():
        req, values = rule.req, reported[name]
        if req is None or (req == "OPTIONAL" and not values):
            continue
        if req == "EXACTLY_ONE" and len(values) != 1 and not (values and all_same(values)):
            detail = f" with different values: [{', '.join(sorted({str(v) for v in values}))}]" if values else ""
            messages.put(f"Required EXACTLY_ONE occurrence of '{name}' but found {len(values)}{detail}", key=name)
        if req == "AT_LEAST_ONE" and not values:
            messages.put(f"Required AT_LEAST_ONE occurrence of '{name}' but found 0", key=name)
        if req.startswith("AT_LEAST("):
            needed = int(req[len("AT_LEAST("):-1])
            if len(values) < needed:
                messages.put(f"Required AT_LEAST({needed}) occurrence of '{name}' but found {len(values)}", key=name)
        if req.startswith("AT_LEAST_ONE_OR"):
            others = [s.strip() for s in req[len("AT_LEAST_ONE_OR("):-1].split(",")]
            alternatives.add(tuple(sorted({name, *others})))
    for group in sorted(alternatives):
        try:
            found = any(reported[k] for k in group)
        except KeyError as error:
            raise OfficialCrash(f"the rules name an alternative key {error} they do not define") from None
        if not found:
            messages.put("Required AT_LEAST_ONE occurrence of " + " or ".join(f"'{k}'" for k in group))


def _exec(code, state: dict, line: LogLine, messages: _Messages, action: str) -> None:
    try:
        exec(code, state, {"ll": line, "v": line.value})  # noqa: S102 - the installed package's rules
    except Exception:
        messages.put(f"Failed executing {action} code triggered by line {line.lineno}", key=line.key)


def _eval_check(source: str, code, state: dict, line: LogLine, messages: _Messages) -> None:
    try:
        if not eval(code, state, {"ll": line, "v": line.value}):  # noqa: S307
            messages.put(f"CHECK for '{line.key}' failed in line {line.lineno}: {source.strip()}", key=line.key)
    except Exception:
        messages.put(f"Failed executing CHECK code: {source.strip()} (line {line.lineno})", key=line.key)
