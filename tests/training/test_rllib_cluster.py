"""A Ray cluster with token authentication (Ray 2.5x turns it on): a second node and a driver join it only with
``RAY_AUTH_MODE=token`` and the cluster's token, and a driver without them is told so in one line (exit 2) instead
of Ray's "Failed to connect to Ray cluster". The two-node test starts a real head and node on this machine."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from ray._private.authentication.authentication_constants import TOKEN_AUTH_ENABLED_BUT_NO_TOKEN_FOUND_ERROR_MESSAGE
from ray.exceptions import AuthenticationError

from cardwar.cli import main
from cardwar.tournament.runner import check_ray_address, ray_auth_problem

RAY = str(Path(sys.executable).with_name("ray"))


def _ray_error(message: str, mode: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The text the installed Ray prints for ``AuthenticationError(message)`` under RAY_AUTH_MODE ``mode``."""
    monkeypatch.setenv("RAY_AUTH_MODE", mode)
    code = ("import sys; from ray.exceptions import AuthenticationError; "
            "print('ray.exceptions.AuthenticationError:', AuthenticationError(sys.argv[1]))")
    return subprocess.run([sys.executable, "-c", code, message], capture_output=True, text=True, check=True,
                          env=dict(os.environ)).stdout + "\nConnectionError: Failed to connect to Ray cluster at X"


@pytest.mark.parametrize("mode, message, words", [
    ("disabled", "RPC error: InvalidAuthToken: Authentication token is missing or incorrect",
     "set RAY_AUTH_MODE=token"),
    ("token", "RPC error: InvalidAuthToken: Authentication token is missing or incorrect",
     "refused this driver's token"),
    ("token", TOKEN_AUTH_ENABLED_BUT_NO_TOKEN_FOUND_ERROR_MESSAGE, "no token was found"),
])
def test_ray_s_own_authentication_errors_are_named(mode, message, words, monkeypatch):
    text = _ray_error(message, mode, monkeypatch)
    assert AuthenticationError.__name__ in text
    problem = ray_auth_problem(text, mode=mode)
    assert problem is not None and words in problem and "~/.ray/auth_token" in problem and "\n" not in problem
    assert ray_auth_problem("ConnectionError: Failed to connect to Ray cluster at 10.0.0.1:6379", mode) is None


def _free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


class RayNode:
    """``ray start --block`` in its own session, ended (its whole process group) by :meth:`stop`."""

    def __init__(self, args: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log
        with log.open("w") as out:
            self.proc = subprocess.Popen([RAY, "start", "--block", *args], stdout=out, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, env=env, start_new_session=True)

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_started(self, timeout: float = 120) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if "Ray runtime started" in self.text():
                return True
            if self.proc.poll() is not None:
                return False
            time.sleep(0.5)
        return False

    def stop(self) -> None:
        for signum, wait in ((signal.SIGTERM, 20), (signal.SIGKILL, 10)):
            try:
                os.killpg(self.proc.pid, signum)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline and _group_alive(self.proc.pid):
                self.proc.poll()
                time.sleep(0.2)
        self.proc.wait(10)


def _group_alive(pgid: int) -> bool:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
                return True
    return False


@pytest.fixture
def token_head() -> Iterator[tuple[str, dict[str, str], Path]]:
    """A head with token authentication, its own HOME (its token in ~/.ray/auth_token) and short socket paths."""
    root = Path(tempfile.mkdtemp(prefix="rt", dir="/tmp"))  # Ray's socket paths must stay short
    env = dict(os.environ, HOME=str(root / "home"))
    env.pop("RAY_AUTH_MODE", None)
    nodes: list[RayNode] = []
    try:
        subprocess.run([RAY, "get-auth-token", "--generate"], env=env, capture_output=True, check=True, timeout=60)
        assert (root / "home" / ".ray" / "auth_token").is_file()
        port, client, agent, grpc, metrics = _free_ports(5)
        head = RayNode(["--head", f"--port={port}", "--num-cpus=1", "--include-dashboard=false",
                        f"--ray-client-server-port={client}", f"--dashboard-agent-listen-port={agent}",
                        f"--dashboard-agent-grpc-port={grpc}", f"--metrics-export-port={metrics}",
                        f"--temp-dir={root / 't'}"], dict(env, RAY_AUTH_MODE="token"), root / "head.log")
        nodes.append(head)
        assert head.wait_started(), head.text()
        yield f"127.0.0.1:{port}", env, root
    finally:
        for node in nodes:
            node.stop()
        shutil.rmtree(root, ignore_errors=True)


def _node_args(address: str, root: Path) -> list[str]:
    agent, grpc, metrics = _free_ports(3)
    return [f"--address={address}", "--num-cpus=1", f"--temp-dir={root / 't'}",
            f"--dashboard-agent-listen-port={agent}", f"--dashboard-agent-grpc-port={grpc}",
            f"--metrics-export-port={metrics}"]


@pytest.mark.slow
def test_a_token_cluster_is_joined_with_ray_auth_mode_token_and_a_driver_without_is_told(token_head, monkeypatch,
                                                                                          capsys):
    address, env, root = token_head
    # A second node without RAY_AUTH_MODE=token is refused by the head ...
    bare = RayNode(_node_args(address, root), env, root / "bare.log")
    try:
        bare.proc.wait(120)
    finally:
        bare.stop()
    assert bare.proc.returncode != 0 and "InvalidAuthToken" in bare.text()
    # ... and joins with it (the same HOME: the cluster's token in ~/.ray/auth_token).
    node = RayNode(_node_args(address, root), dict(env, RAY_AUTH_MODE="token"), root / "node.log")
    try:
        assert node.wait_started(), node.text()
        count = ("import sys, ray; ray.init(address=sys.argv[1], log_to_driver=False); "
                 "print(sum(n['Alive'] for n in ray.nodes())); ray.shutdown()")
        alive = subprocess.run([sys.executable, "-c", count, address], env=dict(env, RAY_AUTH_MODE="token"),
                               capture_output=True, text=True, timeout=120)
        assert alive.stdout.strip().splitlines()[-1] == "2", alive.stderr[-2000:]
        # A driver with the mode and the token passes cardwar's probe; one without is told what is missing.
        monkeypatch.setenv("HOME", env["HOME"])
        monkeypatch.setenv("RAY_AUTH_MODE", "token")
        check_ray_address(address)
        monkeypatch.delenv("RAY_AUTH_MODE")
        assert main(["train", "naval", "--backend", "rllib", "--ray-address", address, "--steps", "10"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "RAY_AUTH_MODE=token" in err[0] and "token authentication" in err[0], err
    finally:
        node.stop()
