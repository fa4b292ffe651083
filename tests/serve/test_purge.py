"""Expired sessions and old finished games are deleted: at start-up and then every --purge-interval."""

from __future__ import annotations

import time

from tests.serve.conftest import make_api


def wait_until(check, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "not within the time given"
        time.sleep(0.05)


def test_the_periodic_purge_drops_expired_sessions_and_keeps_a_finished_game_for_its_time(tmp_path):
    for api in make_api(tmp_path, session_ttl_s=0.3, keep_finished_s=1.2, purge_interval_s=0.1):
        assert api.client.get("/api/games").json()["limits"]["purge_interval_s"] == 0.1
        idle, idle_auth, _ = api.start(seed=1)
        done, done_auth, _ = api.start(seed=2)
        assert api.client.post(f"/api/sessions/{done}/resign", headers=done_auth).status_code == 200
        store = api.manager.store
        wait_until(lambda: store.get(idle) is None)  # expired (idle past the TTL), then deleted
        r = api.state(idle, idle_auth)
        assert r.status_code == 404 and "expired and removed" in r.json()["error"]
        assert store.get(done) is not None and api.record(done).status_code == 200  # kept for keep_finished_s
        wait_until(lambda: store.get(done) is None)
        assert api.record(done).status_code == 404
        assert store.count() == 0


def test_the_purge_runs_at_start_up(tmp_path):
    for api in make_api(tmp_path):  # a server with the default times leaves a game in play and a finished one
        api.start(seed=1)
        sid, auth, _ = api.start(seed=2)
        api.client.post(f"/api/sessions/{sid}/resign", headers=auth)
        assert api.manager.store.count() == 2
    time.sleep(0.3)
    for api in make_api(tmp_path, session_ttl_s=0.2, keep_finished_s=0.2, purge_interval_s=3600):
        assert api.manager.store.count() == 0  # no periodic purge yet: the one at start-up did it
