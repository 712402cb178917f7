"""The Dagster UI for a data set (`python -m pipelines.cli ui`, `make ui`), stopped as a whole.

Starts `dg dev` (what Dagster recommends instead of `dagster dev`: the webserver, the daemon that
runs the sensors, the schedule and the run queue, and the code server) on host:port with the data
set's instance, and stops everything it started when
- this process gets SIGTERM, SIGINT (Ctrl-C) or SIGHUP (its terminal closed);
- the process that started it ends, however it ends (make killed with SIGKILL, say);
- the stop file disappears. `make ui` names its recipe's target: GNU make, interrupted by SIGINT
  or SIGTERM, deletes that file ("Interrupts" in make's manual) but forwards SIGINT to nobody (it
  expects the terminal to have signalled the whole process group), so `kill -INT <make pid>`
  would otherwise leave make waiting on a UI that runs on.
dg dev gets a session of its own: a terminal's Ctrl-C reaches it once, from here, and every
process it starts (webserver, daemon, code servers, the runs they launch) can be found. Stopping
is SIGINT to dg dev, which shuts its services down, then SIGTERM and SIGKILL for whatever of its
session is left after STOP_WAIT seconds.

Started in a terminal's foreground (`make ui` typed at a prompt), the UI takes the terminal for a
process group of its own, so Ctrl-C reaches the UI and not make: make sees its recipe end as any
recipe ends, and prints nothing (interrupted itself, it printed "*** Deleting file '.ui-3000.pid'"
and "*** [Makefile:..] Error 130"). The terminal goes back to make's group before the UI exits. A
stop that was asked for (a signal, the stop file deleted, the parent gone) is a success: exit status 0.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from pipelines.config import REPO_ROOT, Paths

STOP_WAIT = 20.0  # seconds dg dev gets to shut its services down before they are killed
POLL = 0.5  # seconds between looks at the signals, the parent, the stop file and dg dev
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def port_problem(host: str, port: int) -> str | None:
    """Why host:port cannot be served, or None. The webserver would take another port silently."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            return f"{host}:{port} is not free ({exc.strerror}); set UI_PORT to another port"
    return None


def dg_dev_command(host: str, port: int) -> list[str]:
    return [sys.executable, "-m", "dagster_dg_cli.cli", "dev", "--host", host, "--port", str(port)]


def dg_dev_env() -> dict[str, str]:
    """This process's environment, plus VIRTUAL_ENV when it runs from one: dg compares it with
    the project's .venv and warns on every start when it is unset."""
    env = dict(os.environ)
    if sys.prefix != sys.base_prefix:
        env["VIRTUAL_ENV"] = sys.prefix
    return env


def session_pids(sid: int) -> list[int] | None:
    """The live processes of a session (zombies are dead), or None where there is no /proc."""
    proc = Path("/proc")
    if not proc.is_dir():
        return None
    found = []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            # the fields after the command's closing parenthesis: state ppid pgrp session ...
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def _running(sid: int) -> bool:
    """Is anything of dg dev's session still running? Without /proc: is its process group."""
    pids = session_pids(sid)
    if pids is not None:
        return bool(pids)
    try:
        os.killpg(sid, 0)  # counts zombies too: on such systems stopping waits the full time
        return True
    except ProcessLookupError:
        return False


def _signal_all(sid: int, sig: int) -> None:
    """The session's process group (dg dev leads both: their ids are its pid), and any process
    of the session that moved to a group of its own."""
    for kill, target in [(os.killpg, sid)] + [(os.kill, pid) for pid in session_pids(sid) or []]:
        try:
            kill(target, sig)
        except (ProcessLookupError, PermissionError):
            pass


def _wait_until_gone(sid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while _running(sid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def stop(dev: subprocess.Popen, wait: float = STOP_WAIT) -> None:
    """Stop dg dev and everything in its session: ask, then insist."""
    if dev.poll() is None:
        dev.send_signal(signal.SIGINT)  # dg dev's own shutdown: webserver, daemon, code servers
        try:
            dev.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            pass
    _signal_all(dev.pid, signal.SIGTERM)
    if not _wait_until_gone(dev.pid, 3.0):
        _signal_all(dev.pid, signal.SIGKILL)
        _wait_until_gone(dev.pid, 5.0)
    if dev.poll() is None:
        dev.kill()
    dev.wait()


class Terminal:
    """The controlling terminal's foreground, taken for this process's own group and given back."""

    def __init__(self) -> None:
        self.fd: int | None = None
        self.group: int | None = None  # the foreground group to give the terminal back to

    def take(self) -> bool:
        """In the terminal's foreground: a process group of our own, and the terminal for it (True);
        else (no terminal, in the background, a session leader) nothing changes (False)."""
        try:
            fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
        except OSError:
            return False
        try:
            group = os.getpgrp()
            if os.tcgetpgrp(fd) != group:
                raise OSError("not in the terminal's foreground")
            os.setpgid(0, 0)
            self._foreground(fd, os.getpgrp())
        except OSError:
            if os.getpgrp() != group:  # moved, but the terminal was not given: back into make's group
                os.setpgid(0, group)
            os.close(fd)
            return False
        self.fd, self.group = fd, group
        signal.signal(signal.SIGTSTP, signal.SIG_IGN)  # Ctrl-Z would stop the UI with make unaware, waiting
        return True

    def give_back(self) -> None:
        if self.fd is None:
            return
        try:
            self._foreground(self.fd, self.group)
        except OSError:  # make's group is gone (make killed): the shell takes the terminal back itself
            pass
        os.close(self.fd)
        self.fd = None

    @staticmethod
    def _foreground(fd: int, group: int) -> None:
        """tcsetpgrp from a background group: SIGTTOU would stop the caller unless ignored."""
        previous = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        try:
            os.tcsetpgrp(fd, group)
        finally:
            signal.signal(signal.SIGTTOU, previous)


def serve(host: str, port: int, stop_file: Path | None = None, wait: float = STOP_WAIT,
          command: list[str] | None = None) -> int:
    """Run the UI (`command`, default dg dev) until one of the stop conditions above; returns the
    exit status: 0 when it was asked to stop, dg dev's own when dg dev ended by itself."""
    problem = port_problem(host, port)
    if problem:
        print(f"ui: {problem}", file=sys.stderr)
        return 1
    parent = os.getppid()
    received: list[int] = []
    for sig in STOP_SIGNALS:
        signal.signal(sig, lambda number, _frame: received.append(number))
    terminal = Terminal()
    terminal.take()
    try:
        return _serve(host, port, stop_file, wait, command, parent, received)
    finally:
        terminal.give_back()


def _serve(host: str, port: int, stop_file: Path | None, wait: float, command: list[str] | None, parent: int,
           received: list[int]) -> int:
    from pipelines.runs import prepare_instance

    paths = Paths.from_env()
    copied = prepare_instance(paths)
    if copied:
        print(f"ui: {copied}")
    if received:  # stopped while the instance was being prepared: nothing started yet
        return 0
    if stop_file is not None:
        stop_file.write_text(f"{os.getpid()}\n")
    print(f"ui: http://{host}:{port}  (RAW_DIR={paths.raw_dir}, REPORTS_DIR={paths.reports_dir}, "
          f"DAGSTER_HOME={paths.dagster_home})", flush=True)
    dev = subprocess.Popen(command or dg_dev_command(host, port), cwd=REPO_ROOT, env=dg_dev_env(), start_new_session=True)
    why = None
    try:
        while why is None:
            if received:
                why = f"signal {signal.Signals(received[0]).name}"
            elif os.getppid() != parent:
                why = "the process that started it ended"
            elif stop_file is not None and not stop_file.exists():
                why = f"{stop_file} was deleted"
            elif dev.poll() is not None:
                print(f"ui: dg dev ended with status {dev.returncode}", file=sys.stderr)
                return dev.returncode or 1
            else:
                time.sleep(POLL)
        print(f"ui: stopping ({why})", flush=True)
        return 0
    finally:
        stop(dev, wait)
        if stop_file is not None and stop_file.exists() and stop_file.read_text().strip() == str(os.getpid()):
            stop_file.unlink()
