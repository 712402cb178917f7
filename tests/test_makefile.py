"""The Makefile's virtual environment, driven for real in a copy of the repo's Makefile.

A real install takes minutes, so the interpreters are stand-ins: a "system Python" that answers
the Makefile's version question as the version it is told to be and makes a venv whose python
logs every call (pip installs succeed, or fail as pip does for a Python outside
requires-python). Everything else (make, the rules, the stamps, rm -rf) is the real thing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.pipeline_runner import REPO

# A stand-in for `python3.X` on the PATH.
SYSTEM_PYTHON = '''#!{real}
import os, pathlib, stat, sys
VERSION = "{version}"
args = sys.argv[1:]
if args[:1] == ["-c"]:  # the Makefile's questions: answered as this version, from this path
    sys.version = VERSION + " (stand-in)"
    sys.version_info = tuple(int(p) for p in VERSION.split("."))
    sys.executable = os.path.abspath(__file__)
    sys.argv = ["-c", *args[2:]]  # as python -c sets it
    exec(args[1], {{"__name__": "__main__"}})
elif args[:2] == ["-m", "venv"]:
    venv = pathlib.Path(args[2])
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("version = " + VERSION + "\\n")
    python = venv / "bin" / "python"
    python.write_text(pathlib.Path(__file__).with_name("venv_python.py").read_text().replace("@VERSION@", VERSION))
    python.chmod(python.stat().st_mode | stat.S_IEXEC)
else:
    sys.exit("stand-in python: unexpected call " + " ".join(args))
'''

# What `python -m venv` puts in .venv/bin/python: logs each call; pip installs need 3.11 (as
# pyproject's requires-python says); FAKE_PIP_FAIL=pip fails pip's own upgrade, =packages the
# project's install.
VENV_PYTHON = '''#!{real}
import os, pathlib, sys
venv = pathlib.Path(__file__).resolve().parents[1]
with open(venv / "calls.log", "a") as log:
    log.write(" ".join(sys.argv[1:]) + "\\n")
if sys.argv[1:3] == ["-m", "pip"] and "install" in sys.argv:
    if not "@VERSION@".startswith("3.11."):
        sys.exit("ERROR: Package 'pipelines' requires a different Python: @VERSION@ not in '<3.12,>=3.11'")
    if os.environ.get("FAKE_PIP_FAIL") == ("packages" if "-e" in sys.argv else "pip"):
        sys.exit("ERROR: Could not install packages due to an OSError (stand-in failure)")
'''


@pytest.fixture
def repo(tmp_path):
    """A folder with the repo's Makefile, pyproject.toml and constraints.txt, and stand-in Pythons."""
    root = tmp_path / "repo"
    root.mkdir()
    for name in ("Makefile", "pyproject.toml", "constraints.txt"):
        shutil.copy(REPO / name, root / name)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "venv_python.py").write_text(VENV_PYTHON.format(real=sys.executable))
    for name, version in (("py311", "3.11.7"), ("py311b", "3.11.9"), ("py312", "3.12.4")):
        path = bin_dir / name
        path.write_text(SYSTEM_PYTHON.format(real=sys.executable, version=version))
        path.chmod(0o755)
    return root


def make(root: Path, *targets: str, python: str = "py311", fail: bool = False, **env: str) -> subprocess.CompletedProcess:
    interpreter = root.parent / "bin" / python
    done = subprocess.run(["make", "--no-print-directory", *targets, f"PYTHON={interpreter}"], cwd=root,
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=120)
    assert (done.returncode != 0) == fail, f"make {' '.join(targets)}: {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


def calls(root: Path) -> list[str]:
    log = root / ".venv" / "calls.log"
    return log.read_text().splitlines() if log.exists() else []


def installs(root: Path) -> list[str]:
    return [c.split(" -e ", 1)[1] for c in calls(root) if c.startswith("-m pip install") and " -e " in c]


def stamps(root: Path) -> list[str]:
    return sorted(p.name.split("-")[0] for p in (root / ".venv").glob(".*-*")) if (root / ".venv").is_dir() else []


def test_setup_installs_runtime_only_and_test_adds_the_extras(repo):
    make(repo, "venv")
    assert installs(repo) == ["."]  # runtime packages, not pytest, Playwright, pandas
    assert stamps(repo) == [".made", ".runtime"]
    make(repo, "venv")
    assert installs(repo) == ["."]  # ready: nothing installed again

    make(repo, "-o", "system-deps", "test")
    assert installs(repo) == [".", ".[test]"]
    assert re.fullmatch(r"-m pytest -q -n \d+ --dist worksteal --durations=25", calls(repo)[-1])
    assert int(calls(repo)[-1].split()[4]) == len(os.sched_getaffinity(0)) + 2  # two workers more than cores
    assert stamps(repo) == [".made", ".runtime", ".test"]


def test_report_runs_in_the_venv_after_a_runtime_install(repo):
    make(repo, "report")
    assert installs(repo) == ["."]
    assert calls(repo)[-1] == "-m pipelines.cli report"


def test_a_failed_setup_with_another_python_leaves_no_broken_venv(repo):
    """The issue's trap: `make report PYTHON=python3.12` failed, and the plain `make report` after
    it reused the 3.12 venv for ever."""
    failed = make(repo, "report", python="py312", fail=True)
    assert "needs Python 3.11" in failed.stderr and "3.12.4" in failed.stderr
    assert not (repo / ".venv").exists()  # refused before anything was made

    make(repo, "report")
    assert installs(repo) == ["."] and calls(repo)[-1] == "-m pipelines.cli report"
    assert "version = 3.11.7" in (repo / ".venv" / "pyvenv.cfg").read_text()

    # with a working venv in place, the wrong Python is refused before it touches it
    make(repo, "report", python="py312", fail=True)
    assert "version = 3.11.7" in (repo / ".venv" / "pyvenv.cfg").read_text()
    before = calls(repo)
    make(repo, "venv")
    assert calls(repo) == before  # still ready, nothing redone


def test_a_failed_install_is_not_marked_installed_and_is_redone(repo):
    failed = make(repo, "report", fail=True, FAKE_PIP_FAIL="packages")
    assert "stand-in failure" in failed.stderr
    assert ".runtime" not in stamps(repo)
    assert "-m pipelines.cli report" not in calls(repo)  # the report never ran on a half-made venv

    make(repo, "report")
    assert installs(repo) == [".", "."]  # the install was done again, then the report ran
    assert calls(repo)[-1] == "-m pipelines.cli report"
    assert ".runtime" in stamps(repo)


def test_a_venv_whose_making_failed_is_made_again_from_scratch(repo):
    make(repo, "venv", fail=True, FAKE_PIP_FAIL="pip")
    assert (repo / ".venv").is_dir() and stamps(repo) == []
    (repo / ".venv" / "left-over").touch()
    make(repo, "venv")
    assert not (repo / ".venv" / "left-over").exists()
    assert stamps(repo) == [".made", ".runtime"] and installs(repo) == ["."]


def test_the_venv_is_made_again_when_its_python_or_the_pins_change(repo):
    make(repo, "venv")
    marker = repo / ".venv" / "made-by-the-first-setup"
    marker.touch()

    make(repo, "venv")
    assert marker.exists()  # nothing changed: kept

    make(repo, "venv", python="py311b")  # another Python 3.11 (a new release, another path)
    assert not marker.exists()
    assert "version = 3.11.9" in (repo / ".venv" / "pyvenv.cfg").read_text()
    assert installs(repo) == ["."]

    marker.touch()
    with open(repo / "constraints.txt", "a") as pins:
        pins.write("example-package==1.0\n")
    make(repo, "venv", python="py311b")
    assert not marker.exists()  # new pins: made again from scratch
    assert installs(repo) == ["."]


def test_a_pyproject_change_reinstalls_in_place(repo):
    make(repo, "venv-test")
    marker = repo / ".venv" / "kept"
    marker.touch()
    pyproject = repo / "pyproject.toml"
    os.utime(pyproject, (pyproject.stat().st_mtime + 10, pyproject.stat().st_mtime + 10))
    make(repo, "venv-test")
    assert marker.exists()
    assert installs(repo) == [".", ".[test]", ".", ".[test]"]


def test_clean_venv_removes_it_and_clean_keeps_it(repo):
    make(repo, "venv")
    make(repo, "clean")
    assert (repo / ".venv").is_dir() and ".runtime" in stamps(repo)
    assert calls(repo)[-1] == "-m pipelines.cli clean"  # the data set's outputs only
    make(repo, "clean-venv")
    assert not (repo / ".venv").exists()


def test_help_lists_every_target_with_what_it_does_and_is_the_default(repo):
    """`make help` did not exist; plain `make` made the virtual environment's first stamp."""
    shown = make(repo, "help").stdout
    targets = {"report", "atlas", "prices", "ui", "clean", "test", "bench", "venv", "venv-test", "clean-venv",
               "system-deps"}
    described = dict(line.split(None, 1) for line in shown.splitlines() if line.startswith("  ") and
                     line.split(None, 1)[0] in targets)
    assert set(described) == targets, shown
    assert all(len(text) > 20 for text in described.values()), described
    assert "MLPERF_DIR" in shown and "UI_PORT" in shown
    assert make(repo).stdout == shown  # the default goal
    assert not (repo / ".venv").exists()  # nothing was set up


def test_a_misspelled_target_names_the_one_meant(repo):
    failed = make(repo, "reprot", fail=True)
    assert "no target 'reprot'; did you mean 'report'? (make help lists the targets)" in failed.stderr
    assert failed.stderr.count("\n") == 1 and not (repo / ".venv").exists()
