"""The rule files of the official MLPerf compliance checker, read from the mlperf-logging package
and compiled once per process: the quality target of each benchmark and round, and the rules
ingest/mlperf/compliance.py runs over a log.

The files are read here as data at run time, never copied into the project, so a new package
version brings its rules with it (``mlperf_logging/compliance_checker/training_<X.Y.Z>/*.yaml``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from types import CodeType

import yaml

RULES_PACKAGE = "mlperf_logging.compliance_checker"
_CONFIG_NAME = re.compile(r"^training_\d+\.\d+\.\d+/[A-Za-z0-9_.-]+\.yaml$")


class Broken:
    """A snippet that does not compile. eval/exec refuse it with TypeError where the official eval
    raises SyntaxError: the same handling follows (a message, or a stop: neither is a ValueError)."""

    def __init__(self, error: SyntaxError):
        self.error = error


def compile_rule(source: str, mode: str) -> CodeType | Broken:
    try:
        return compile(source.strip(), "<mlperf-logging rule>", mode)
    except SyntaxError as error:
        return Broken(error)


def compile_list(tests) -> tuple[tuple[str, CodeType | Broken], ...]:
    tests = tests if isinstance(tests, list) else [tests]
    return tuple((t, compile_rule(t, "eval")) for t in tests)


@dataclass(frozen=True)
class Key:
    name: str
    req: str | None
    pre: CodeType | Broken | None
    checks: tuple
    post: CodeType | Broken | None
    first_checks: tuple
    at_least_one: tuple[str, CodeType | Broken] | None


@dataclass(frozen=True)
class RuleFile:
    begin: CodeType | Broken | None
    keys: dict[str, Key]
    end_pre: CodeType | Broken | None
    end_checks: tuple


# Every scalar a string, as the official checker's rules expect. libyaml's loader (in PyYAML's wheels) reads the
# same documents as the pure-Python one, 11 times faster (all 319 rule files of the package: 0.06 s vs 0.70 s).
_LOADER = getattr(yaml, "CBaseLoader", yaml.BaseLoader)


@lru_cache(maxsize=None)
def rule_file(name: str) -> RuleFile | None:
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
    keys: dict[str, Key] = {}
    for item in items:
        if list(item)[0] != "KEY":
            continue
        record = item["KEY"]
        at_least = record.get("ATLEAST_ONE_CHECK")
        keys[record["NAME"]] = Key(
            name=record["NAME"], req=record.get("REQ"),
            pre=compile_rule(record["PRE"], "exec") if "PRE" in record else None,
            checks=compile_list(record["CHECK"]) if "CHECK" in record else (),
            post=compile_rule(record["POST"], "exec") if "POST" in record else None,
            first_checks=compile_list(record["FIRST_CHECK"]) if "FIRST_CHECK" in record else (),
            at_least_one=(at_least, compile_rule(at_least, "eval")) if at_least is not None else None,
        )
    end_record = end[0] if end else {}
    return RuleFile(
        begin=compile_rule(begin[0]["CODE"], "exec") if begin else None,
        keys=keys,
        end_pre=compile_rule(end_record["PRE"], "exec") if "PRE" in end_record else None,
        end_checks=compile_list(end_record["CHECK"]) if "CHECK" in end_record else (),
    )


def quality_target(ruleset: str, benchmark: str) -> tuple[str, str] | None:
    """(key, expression) of the closed-division quality target of a benchmark, or None."""
    config = rule_file(f"training_{ruleset}/closed_{benchmark}.yaml")
    if config is None:
        return None
    for rule in config.keys.values():
        if rule.at_least_one is not None:
            return rule.name, rule.at_least_one[0]
    return None
