#!/usr/bin/env bash
# The README's commands. Each creates .venv/ at the repo root when it is missing.
#   ./dev.sh play [ARGS]   the main job: a short tournament on each game among random, heuristic,
#                          mcts and ppo (about three to four minutes on 2 cores); prints the ratings, writes plots
#   ./dev.sh test [ARGS]   the whole test suite (installs chromium with apt for the browser tests)
#   ./dev.sh bench [ARGS]  environment throughput against PettingZoo's classic envs
set -euo pipefail
cd "$(dirname "$0")"

find_python() {
    for py in python3.11 python3.12 python3.13 python3.10 python3; do
        if command -v "$py" >/dev/null 2>&1 &&
            "$py" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
            echo "$py"; return 0
        fi
    done
    echo "dev.sh: Python >= 3.10 is needed (3.11 recommended)" >&2
    exit 1
}

ensure_venv() {
    if [ ! -x .venv/bin/python ]; then
        echo "dev.sh: creating .venv/ ..." >&2
        "$(find_python)" -m venv .venv
    fi
    # Reinstall whenever pyproject.toml or constraints.txt changes.
    local want have=""
    want=$(cat pyproject.toml constraints.txt | cksum | cut -d' ' -f1)
    [ -f .venv/.cardwar-installed ] && have=$(cat .venv/.cardwar-installed)
    if [ "$want" != "$have" ]; then
        echo "dev.sh: installing cardwar and its dependencies into .venv/ ..." >&2
        # torch first, pinned by constraints.txt to the CPU wheel (the package itself asks only
        # torch>=2.3; left loose, pip would pull a CUDA build of several GB)
        .venv/bin/python -m pip install --quiet --disable-pip-version-check -c constraints.txt torch
        .venv/bin/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e ".[test,bench,ray,rllib,openspiel,alphazero]"
        echo "$want" > .venv/.cardwar-installed
    fi
}

# The browser tests (tests/serve/test_browser.py) drive Debian's chromium through Playwright, whose own
# browser download is not available here: install the distribution's package when it is missing.
ensure_chromium() {
    command -v chromium >/dev/null 2>&1 && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "dev.sh: installing chromium with apt-get (for the browser tests) ..." >&2
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
        echo "dev.sh: chromium is missing and cannot be installed here (needs root and apt-get);" \
             "the browser tests will fail: install chromium" >&2
    fi
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
    play)  ensure_venv
           .venv/bin/cardwar tournament configs/tournaments/naval.yaml --name naval-quick --pairs 1 --workers 2 "$@"
           .venv/bin/cardwar tournament configs/tournaments/hexwar.yaml --name hexwar-quick --pairs 1 \
               --workers 2 "$@"
           .venv/bin/cardwar tournament configs/tournaments/tankattack.yaml --name tankattack-quick --pairs 1 \
               --scenario trench_raid --workers 2 "$@"
           exec .venv/bin/cardwar tournament configs/tournaments/skirmish.yaml --name skirmish-quick --pairs 1 \
               --scenario duel --workers 2 "$@" ;;
    test)  ensure_venv; ensure_chromium; exec .venv/bin/python -m pytest -n 2 "$@" ;;
    bench) ensure_venv; exec .venv/bin/cardwar bench "$@" ;;
    *) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
