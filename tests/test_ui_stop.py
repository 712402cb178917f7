"""The UI's supervision (pipelines/ui.py) with a stand-in for dg dev that makes stopping hard.

The stand-in starts a child that ignores SIGINT and one in a process group of its own that
ignores SIGTERM, the way a code server or a run could outlive dg dev's own shutdown. Whatever
ends the UI (SIGTERM, its stop file deleted, its parent killed, dg dev ending), no process it
started may be left. Fast: the real dg dev is in tests/test_ui_smoke.py.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.pipeline_runner import REPO, make_dirs

pytestmark = pytest.mark.slow

FAKE_DG_DEV = '''
import os, signal, subprocess, sys, time
stubborn = "import os, signal, time; os.setpgid(0, 0); signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)"
deaf = "import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); time.sleep(600)"
subprocess.Popen([sys.executable, "-c", deaf])
subprocess.Popen([sys.executable, "-c", stubborn])
print("fake dg dev started", flush=True)
if len(sys.argv) > 1:
    time.sleep(float(sys.argv[1]))
    sys.exit(3)  # ends by itself, leaving its children
time.sleep(600)  # SIGINT ends it (KeyboardInterrupt), its children stay
'''

SERVE = '''
import sys
from pathlib import Path
from pipelines.ui import serve
stop_file = Path(sys.argv[2]) if sys.argv[2] != "-" else None
sys.exit(serve("127.0.0.1", 0, stop_file=stop_file, wait=2.0, command=[sys.executable, sys.argv[1], *sys.argv[3:]]))
'''


def descendants(root: int) -> set[int]:
    """Every live process below root, by parent links in /proc."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                state, ppid = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:2]
            except (OSError, ValueError):
                continue
            if state != "Z":
                parents[int(entry.name)] = int(ppid)
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, ppid in parents.items() if ppid in frontier} - found
        found |= frontier
    return found


def alive(pids: set[int]) -> set[int]:
    left = set()
    for pid in pids:
        try:
            if (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                left.add(pid)
        except OSError:
            pass
    return left


class Supervised:
    """`serve` in a process of its own (under a wrapper when its parent is to be killed)."""

    def __init__(self, tmp_path: Path, stop_file: bool = False, wrapped: bool = False, fake_args: tuple = ()):
        dirs = make_dirs(tmp_path, raw_source=None)
        fake = tmp_path / "fake_dg_dev.py"
        fake.write_text(FAKE_DG_DEV)
        self.stop_file = tmp_path / "ui.pid" if stop_file else None
        self.log = tmp_path / "ui.log"
        env = {**os.environ, "RAW_DIR": str(dirs.raw), "REPORTS_DIR": str(dirs.reports),
               "WAREHOUSE": str(dirs.warehouse), "DAGSTER_HOME": str(dirs.dagster_home)}
        command = [sys.executable, "-c", SERVE, str(fake), str(self.stop_file or "-"), *fake_args]
        if wrapped:  # a parent that starts the UI and waits, as make does
            command = [sys.executable, "-c", "import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:]))", *command]
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True)
        self.started: set[int] = set()
        self.expected = 4 if wrapped else 3  # (serve,) fake dg dev and its two children

    def wait_started(self) -> None:
        deadline = time.monotonic() + 120
        while "fake dg dev started" not in self.log.read_text() or len(descendants(self.proc.pid)) < self.expected:
            assert self.proc.poll() is None, self.log.read_text()
            assert time.monotonic() < deadline, self.log.read_text()
            time.sleep(0.2)
        time.sleep(0.5)
        self.started = descendants(self.proc.pid)

    def left_after(self, seconds: float = 30) -> set[int]:
        deadline = time.monotonic() + seconds
        while alive(self.started) and time.monotonic() < deadline:
            time.sleep(0.2)
        return alive(self.started)

    def kill_all(self) -> None:
        for pid in alive(self.started | {self.proc.pid}):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def supervised(tmp_path):
    made = []

    def start(**kwargs) -> Supervised:
        made.append(Supervised(tmp_path, **kwargs))
        return made[-1]

    yield start
    for ui in made:
        ui.kill_all()


def test_sigterm_stops_everything_even_what_ignores_signals(supervised):
    ui = supervised()
    ui.wait_started()
    ui.proc.send_signal(signal.SIGTERM)
    assert ui.proc.wait(timeout=60) == 0  # a stop that was asked for: make reports no error
    assert not ui.left_after(), ui.log.read_text()
    assert "ui: stopping (signal SIGTERM)" in ui.log.read_text()


def test_deleting_the_stop_file_stops_everything(supervised):
    """What make does when it gets SIGINT or SIGTERM: it deletes the target of its recipe."""
    ui = supervised(stop_file=True)
    ui.wait_started()
    assert ui.stop_file.read_text().strip() == str(ui.proc.pid)
    ui.stop_file.unlink()
    assert ui.proc.wait(timeout=60) == 0
    assert not ui.left_after(), ui.log.read_text()


def test_the_end_of_its_parent_stops_everything(supervised):
    """make killed with SIGKILL: nothing is deleted and nothing is signalled, the parent just goes."""
    ui = supervised(wrapped=True)
    ui.wait_started()
    os.kill(ui.proc.pid, signal.SIGKILL)
    ui.proc.wait(timeout=10)
    assert not ui.left_after(60), ui.log.read_text()
    assert "the process that started it ended" in ui.log.read_text()


def test_dg_dev_ending_ends_the_ui_and_its_leftovers(supervised):
    ui = supervised(fake_args=("5",))
    ui.wait_started()
    assert ui.proc.wait(timeout=120) == 3
    assert "dg dev ended with status 3" in ui.log.read_text()
    assert not ui.left_after(), ui.log.read_text()


def test_a_busy_port_is_refused(tmp_path):
    import socket

    from pipelines.ui import serve

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert serve("127.0.0.1", port, command=["false"]) == 1


# What `make ui` runs as .venv/bin/python in a copy of the Makefile: the real command line's parser and
# the real `serve`, with the stand-in dg dev.
STAND_IN_PYTHON = '''#!{python}
import sys
from pathlib import Path
sys.path.insert(0, {repo!r})
from pipelines.cli import parser
from pipelines.ui import serve
args = parser().parse_args(sys.argv[3:] if sys.argv[1:3] == ["-m", "pipelines.cli"] else ["bad call"])
sys.exit(serve(args.host, args.port, stop_file=Path(args.stop_file), wait=2.0, command=[sys.executable, {fake!r}]))
'''


def read_until(master: int, wanted: bytes, seconds: float) -> bytes:
    """What the terminal shows until `wanted` appears, or until it closes."""
    import select

    out, deadline = b"", time.monotonic() + seconds
    while wanted not in out and time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:  # EIO: every process holding the terminal has ended
                break
            if not chunk:
                break
            out += chunk
    return out


def test_ctrl_c_in_a_terminal_stops_everything_and_make_prints_no_error(tmp_path):
    """`make ui` typed at a prompt, then Ctrl-C: the terminal sends SIGINT to its foreground group. make
    used to get it too and end with "make: *** Deleting file '.ui-3000.pid'" and "make: *** [Makefile:68:
    .ui-3000.pid] Error 143" (or 130); the UI now holds the foreground, stops everything, gives the
    terminal back, and make ends as after any finished recipe: status 0, nothing printed."""
    import fcntl
    import pty
    import shutil
    import termios

    root = tmp_path / "repo"
    (root / ".venv" / "bin").mkdir(parents=True)
    for name in ("Makefile", "pyproject.toml", "constraints.txt"):
        shutil.copy(REPO / name, root / name)
    fake = tmp_path / "fake_dg_dev.py"
    fake.write_text(FAKE_DG_DEV)
    python = root / ".venv" / "bin" / "python"
    python.write_text(STAND_IN_PYTHON.format(python=sys.executable, repo=str(REPO), fake=str(fake)))
    python.chmod(0o755)
    dirs = make_dirs(tmp_path / "data", raw_source=None)
    env = {**os.environ, "RAW_DIR": str(dirs.raw), "REPORTS_DIR": str(dirs.reports),
           "WAREHOUSE": str(dirs.warehouse), "DAGSTER_HOME": str(dirs.dagster_home)}

    master, slave = pty.openpty()

    def own_terminal():  # the session leader takes the pty as its controlling terminal, as a login shell does
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    make = subprocess.Popen(["make", "--no-print-directory", "-o", "venv", "ui", "UI_PORT=0"], cwd=root, env=env,
                            stdin=slave, stdout=slave, stderr=slave, start_new_session=True, preexec_fn=own_terminal)
    os.close(slave)
    started: set[int] = set()
    try:
        shown = read_until(master, b"fake dg dev started", 120)
        assert b"fake dg dev started" in shown, shown.decode(errors="replace")
        deadline = time.monotonic() + 30
        while len(descendants(make.pid)) < 4 and time.monotonic() < deadline:  # the UI, dg dev, its two children
            time.sleep(0.2)
        started = descendants(make.pid)
        os.write(master, b"\x03")  # Ctrl-C, as the keyboard sends it
        shown += read_until(master, b"\0never", 60)
        assert make.wait(timeout=60) == 0, shown.decode(errors="replace")
    finally:
        for pid in alive(started | {make.pid}):
            os.kill(pid, signal.SIGKILL)
        os.close(master)
    text = shown.decode(errors="replace")
    assert "ui: stopping (signal SIGINT)" in text
    assert "make: ***" not in text and "Error" not in text, text
    assert not alive(started), text
    assert not list(root.glob(".ui-*.pid"))  # the stop file goes with the UI
