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
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from types import CodeType

import yaml
from mlperf_logging.compliance_checker.mlp_compliance import all_same, is_integer

RULES_PACKAGE = "mlperf_logging.compliance_checker"
_CONFIG_NAME = re.compile(r"^training_\d+\.\d+\.\d+/[A-Za-z0-9_.-]+\.yaml$")


TOKEN = ":::MLLOG "  # what starts every record of an MLPerf log line (the official parser's token)


@dataclass(slots=True)
class LogLine:
    """One :::MLLOG record as the official parser builds it (mutable: BEGIN code copies and edits lines)."""

    full_string: str
    timestamp: float
    key: str
    value: dict  # {"value": ..., "metadata": ...}
    lineno: int


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


class _Broken:
    """A snippet that does not compile. eval/exec refuse it with TypeError where the official eval
    raises SyntaxError: the same handling follows (a message, or a stop: neither is a ValueError)."""

    def __init__(self, error: SyntaxError):
        self.error = error


def _compile(source: str, mode: str) -> CodeType | _Broken:
    try:
        return compile(source.strip(), "<mlperf-logging rule>", mode)
    except SyntaxError as error:
        return _Broken(error)


def _compile_list(tests) -> tuple[tuple[str, CodeType | _Broken], ...]:
    tests = tests if isinstance(tests, list) else [tests]
    return tuple((t, _compile(t, "eval")) for t in tests)


@dataclass(frozen=True)
class _Key:
    name: str
    req: str | None
    pre: CodeType | _Broken | None
    checks: tuple
    post: CodeType | _Broken | None
    first_checks: tuple
    at_least_one: tuple[str, CodeType | _Broken] | None


@dataclass(frozen=True)
class _Config:
    begin: CodeType | _Broken | None
    keys: dict[str, _Key]
    end_pre: CodeType | _Broken | None
    end_checks: tuple


# Every scalar a string, as the official checker's rules expect. libyaml's loader (in PyYAML's wheels) reads the
# same documents as the pure-Python one, 11 times faster (all 319 rule files of the package: 0.06 s vs 0.70 s).
_LOADER = getattr(yaml, "CBaseLoader", yaml.BaseLoader)


@lru_cache(maxsize=None)
def _config(name: str) -> _Config | None:
    """A rule file of the package, compiled; None when the package has no such file."""
    if not _CONFIG_NAME.match(name) or ".." in name:
        return None
    path = resources.files(RULES_PACKAGE).joinpath(name)
    if not path.is_file():
        return None
    items = yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER) or []
    begin = [x["BEGIN"] for x in items if list(x)[0] == "BEGIN"]
    end = [x["END"] for x in items if list(x)[0] == "END"]
    assert len(begin) <= 1 and len(end) <= 1, f"{name}: more than one BEGIN or END block"
    keys: dict[str, _Key] = {}
    for item in items:
        if list(item)[0] != "KEY":
            continue
        record = item["KEY"]
        at_least = record.get("ATLEAST_ONE_CHECK")
        keys[record["NAME"]] = _Key(
            name=record["NAME"], req=record.get("REQ"),
            pre=_compile(record["PRE"], "exec") if "PRE" in record else None,
            checks=_compile_list(record["CHECK"]) if "CHECK" in record else (),
            post=_compile(record["POST"], "exec") if "POST" in record else None,
            first_checks=_compile_list(record["FIRST_CHECK"]) if "FIRST_CHECK" in record else (),
            at_least_one=(at_least, _compile(at_least, "eval")) if at_least is not None else None,
        )
    end_record = end[0] if end else {}
    return _Config(
        begin=_compile(begin[0]["CODE"], "exec") if begin else None,
        keys=keys,
        end_pre=_compile(end_record["PRE"], "exec") if "PRE" in end_record else None,
        end_checks=_compile_list(end_record["CHECK"]) if "CHECK" in end_record else (),
    )


def has_rules(ruleset: str) -> bool:
    """True when the installed package ships training rules for this ruleset ('1.0.0')."""
    return _config(f"training_{ruleset}/common.yaml") is not None


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


def quality_target(ruleset: str, benchmark: str) -> tuple[str, str] | None:
    """(key, expression) of the closed-division quality target of a benchmark, or None."""
    config = _config(f"training_{ruleset}/closed_{benchmark}.yaml")
    if config is None:
        return None
    for rule in config.keys.values():
        if rule.at_least_one is not None:
            return rule.name, rule.at_least_one[0]
    return None
