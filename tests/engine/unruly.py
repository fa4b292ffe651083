"""An engine that plays legal moves but leaves processes behind, and helpers to find them by a marker.

``unruly.py MODE``: on ``hello`` it starts, as MODE asks (comma-separated):

- ``setsid``: a child that calls ``setsid()`` and sleeps (out of the engine's process group);
- ``daemon``: a grandchild by double fork and ``setsid`` (its parent exits at once: an orphan);
- ``stubborn``: the engine itself ignores ``quit``, the end of its input, SIGTERM and SIGHUP.

Every process it starts carries the environment of the engine; the tests set
``CARDWAR_TEST_MARKER`` there and look for it in ``/proc/*/environ``.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

MARKER = "CARDWAR_TEST_MARKER"

SCRIPT = r'''
import json, os, signal, subprocess, sys, time
modes = set(sys.argv[1].split(","))
if "stubborn" in modes:
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(sig, signal.SIG_IGN)
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        if "setsid" in modes:
            subprocess.Popen([sys.executable, "-c", "import os, time; os.setsid(); time.sleep(300)"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        if "daemon" in modes:
            subprocess.Popen([sys.executable, "-c",
                              "import os, time\nif os.fork(): os._exit(0)\nos.setsid()\nif os.fork(): os._exit(0)\n"
                              "time.sleep(300)"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL).wait()
        print(json.dumps({"type": "hello", "protocol": 1, "name": "unruly " + sys.argv[1]}), flush=True)
    elif msg["type"] == "move":
        time.sleep(float(os.environ.get("UNRULY_MOVE_S", "0")))
        print(json.dumps({"type": "move", "move": msg["legal"][0]["move"]}), flush=True)
    elif msg["type"] == "quit" and "stubborn" not in modes:
        break
if "stubborn" in modes:
    while True:
        time.sleep(300)
'''


def write_script(folder: Path) -> Path:
    path = folder / "unruly.py"
    path.write_text(SCRIPT)
    return path


def marked(token: str) -> list[int]:
    """Live processes (not zombies) whose environment holds ``MARKER=token``."""
    needle = f"{MARKER}={token}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            env = Path(f"/proc/{entry}/environ").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in env.split(b"\0") and state != b"Z":
            found.append(int(entry))
    return found


def wait_for(condition, seconds: float) -> bool:
    """Poll ``condition()`` until it is true or ``seconds`` have passed (a bound on waiting, not a timing)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return bool(condition())


def kill_marked(token: str) -> None:
    """SIGKILL every process still carrying the marker (a test's clean-up, whatever happened)."""
    for _ in range(20):
        pids = marked(token)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.05)


@pytest.fixture
def token() -> Iterator[str]:
    """A marker for this test's unruly processes; every one still alive is killed at the end."""
    token = uuid.uuid4().hex
    try:
        yield token
    finally:
        kill_marked(token)
