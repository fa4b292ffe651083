"""A version names one state: reads during a move see the last committed state, never a move half played."""

from __future__ import annotations

import json
import random
import threading
from collections import defaultdict

from tests.serve.conftest import make_api


def test_reads_during_moves_see_only_committed_states(tmp_path):
    """One thread plays against a searching bot (it thinks for each of its moves) while another reads the
    state, as the person and as a spectator, as fast as it can. Every read the person gets is its turn or the
    end, never the bot to move; one version is always one and the same state; and it is the state that the
    move's own answer gave at that version."""
    for api in make_api(tmp_path, default_move_ms=100):
        sid, auth, state = api.start(game="hexwar", scenario="river_crossing", agent="mcts", seed=3)
        watch = api.watch[sid]
        seen: dict[str, dict[int, set[str]]] = {"player": defaultdict(set), "public": defaultdict(set)}
        during_moves = 0
        moving = threading.Event()
        done = threading.Event()
        errors: list[str] = []

        def reader() -> None:
            nonlocal during_moves
            while not done.is_set():
                for who, headers, path in (("player", auth, f"/api/sessions/{sid}"),
                                           ("public", watch, f"/api/sessions/{sid}/spectate")):
                    in_move = moving.is_set()
                    r = api.client.get(path, headers=headers)
                    if r.status_code != 200:
                        errors.append(f"{path}: {r.status_code} {r.text}")
                        return
                    s = r.json()
                    during_moves += in_move and moving.is_set()
                    seen[who][s["version"]].add(json.dumps(s, sort_keys=True))
                    if who == "player" and s["status"] not in ("your_turn", "over"):
                        errors.append(f"version {s['version']}: status {s['status']!r}, to move {s['to_move']!r}")

        thread = threading.Thread(target=reader, daemon=True)
        thread.start()
        answers = {state["version"]: json.dumps(state, sort_keys=True)}
        rng = random.Random(5)
        try:
            for _ in range(12):
                if state["status"] != "your_turn":
                    break
                moving.set()
                r = api.move(sid, auth, move=rng.choice(state["legal"])["move"], version=state["version"])
                moving.clear()
                assert r.status_code == 200, r.text
                state = r.json()["state"]
                answers[state["version"]] = json.dumps(state, sort_keys=True)
        finally:
            done.set()
            thread.join(30)
        assert not thread.is_alive()
        assert not errors, errors[:3]
        assert during_moves >= 10, "the reader should have read while moves were being played"
        for who, versions in seen.items():
            for version, states in versions.items():
                assert len(states) == 1, f"{who}: version {version} named {len(states)} different states"
        for version, states in seen["player"].items():
            assert version in answers and states == {answers[version]}, f"version {version} was never committed"
