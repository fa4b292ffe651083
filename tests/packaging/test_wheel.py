"""A plain (non-editable) install of the wheel works from any directory, as a researcher would use it.

The wheel is built from a copy of the checkout, installed with no network into a
temporary target, and the commands run from a temporary directory that holds a
user's own ``envs/`` folder and ``agents.py``: they must not shadow ours. The
``cardwar`` commands of the README's and docs' code blocks run too, from an empty
folder (cheap versions, listed in ``DOCS_RUNS``, which a test keeps equal to the docs).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.subprocesses import run_command

REPO = Path(__file__).resolve().parents[2]


def _source_files() -> list[str]:
    """The files a clean clone would hold, plus new files not yet committed (what git does not ignore)."""
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                         capture_output=True, text=True, check=True).stdout
    return [f for f in out.splitlines() if (REPO / f).is_file()]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Build the wheel from a copy of the source and install it with ``pip --no-index --target``."""
    base = tmp_path_factory.mktemp("wheel")
    src = base / "src"
    for rel in _source_files():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, src / rel)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", str(base / "dist"),
                    str(src)], check=True, capture_output=True, text=True)
    (wheel,) = (base / "dist").glob("cardwar-*.whl")
    site = base / "site"
    subprocess.run([*pip, "install", "--no-deps", "--no-index", "-q", "--target", str(site), str(wheel)],
                   check=True, capture_output=True, text=True)
    cwd = base / "elsewhere"
    (cwd / "envs").mkdir(parents=True)
    (cwd / "envs" / "__init__.py").write_text("raise ImportError('the user own envs package was imported')\n")
    (cwd / "agents.py").write_text("raise ImportError('the user own agents module was imported')\n")
    (cwd / "training.py").write_text("raise ImportError('the user own training module was imported')\n")
    return {"wheel": wheel, "site": site, "cwd": cwd}


def _run(installed: dict[str, Path], *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONPATH"] = str(installed["site"])
    return run_command([sys.executable, *args], cwd=installed["cwd"], env=env, timeout=timeout)


def _cardwar(installed: dict[str, Path], *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return _run(installed, str(installed["site"] / "bin" / "cardwar"), *args, timeout=timeout)


def test_the_wheel_installs_one_namespace_with_its_data(installed):
    names = zipfile.ZipFile(installed["wheel"]).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith((".dist-info", ".data"))}
    assert top == {"cardwar"}, top  # no top-level envs, agents or training a user's folder could shadow
    for data in ("cardwar/py.typed", "cardwar/configs/scenarios/hexwar/meeting_engagement.yaml",
                 "cardwar/configs/training/naval.yaml", "cardwar/configs/training/hexwar.yaml",
                 "cardwar/configs/training/best_response/naval.yaml", "cardwar/configs/tournaments/naval.yaml",
                 "cardwar/configs/tournaments/gauntlet.yaml", "cardwar/configs/tournaments/hexwar.yaml",
                 "cardwar/configs/tournaments/tankattack.yaml", "cardwar/envs/tankattack/RULES.md",
                 "cardwar/agents/pretrained/naval_ppo.zip", "cardwar/agents/pretrained/hexwar_ppo.zip",
                 "cardwar/envs/naval/RULES.md", "cardwar/envs/hexwar/RULES.md",
                 "cardwar/envs/skirmish/RULES.md", "cardwar/envs/skirmish/SCENARIOS.md",
                 "cardwar/configs/scenarios/skirmish/ww2_squads.yaml",
                 "cardwar/serve/static/index.html", "cardwar/serve/static/app.js", "cardwar/serve/static/style.css"):
        assert data in names, data
    meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
    requires = [ln for ln in zipfile.ZipFile(installed["wheel"]).read(meta).decode().splitlines()
                if ln.startswith("Requires-Dist: torch")]
    assert requires and "==" not in requires[0], requires  # a lower bound: a GPU user wants the CUDA build


def test_imports_and_registration_come_from_the_installed_package(installed):
    code = (
        "import cardwar, cardwar.envs, cardwar.agents, pettingzoo\n"
        "from cardwar.envs import naval_v0, hexwar_v0\n"
        "from cardwar.envs.hexwar import action_to_string\n"
        "site = %r\n"
        "assert cardwar.__file__.startswith(site) and cardwar.envs.__file__.startswith(site), cardwar.envs.__file__\n"
        "assert cardwar.agents.__file__.startswith(site)\n"
        "e = pettingzoo.make('aec', 'cardwar/hexwar-v0')\n"
        "e.reset(seed=0)\n"
        "a = cardwar.agents.make('heuristic', 'naval')\n"
        "from cardwar.envs.skirmish.scenario import scenario_names\n"
        "assert 'ww2_squads' in scenario_names(), scenario_names()\n"
        "s = pettingzoo.make('aec', 'cardwar/skirmish-v0', scenario='ww2_squads', render_mode='rgb_array')\n"
        "s.reset(seed=0)\n"
        "assert s.render().ndim == 3\n"
        "p = pettingzoo.make('parallel', 'cardwar/skirmish-v0', scenario='duel')\n"
        "p.reset(seed=0)\n"
        "print(cardwar.__version__)\n" % str(installed["site"]))
    done = _run(installed, "-c", code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


def test_commands_find_their_packaged_scenarios_and_models_from_another_directory(installed):
    version = _cardwar(installed, "--version")
    assert version.returncode == 0 and version.stdout.startswith("cardwar "), version.stderr
    play = _cardwar(installed, "play", "hexwar", "--quiet", "--seed", "3")  # the default scenario is packaged
    assert play.returncode == 0, play.stderr
    assert "meeting" in play.stdout.lower() or play.stdout.strip(), play.stdout
    # `cardwar match hexwar ppo random ...` (the packaged model): test_the_docs_commands_run_from_an_empty_folder
    tour = _cardwar(installed, "tournament", "--game", "naval", "--entrant", "r=random", "--entrant", "h=heuristic",
                    "--pairs", "1", "--rounds", "20", "--quiet")
    assert tour.returncode == 0, tour.stderr[-2000:]
    assert (installed["cwd"] / "tournaments" / "naval-tournament" / "ratings.png").is_file()


def test_train_without_a_config_uses_the_packaged_default(installed):
    done = _cardwar(installed, "train", "naval", "--steps", "64", "--quiet", "--set", "env.n_envs=1",
                    "--set", "env.vec_env=dummy", "--set", "ppo.n_steps=64", "--set", "ppo.batch_size=64",
                    "--set", "eval.games=2", "--runs", "wheel_runs")
    assert done.returncode == 0, done.stderr[-2000:]
    (run,) = (installed["cwd"] / "wheel_runs").iterdir()
    packaged = (installed["site"] / "cardwar" / "configs" / "training" / "naval.yaml").read_text()
    resolved = (run / "config.yaml").read_text()
    assert "heuristic:samples=16" in packaged and "heuristic:samples=16" in resolved  # the packaged opponents
    assert (run / "final.zip").is_file() and (run / "curve.png").is_file()
    # a trained model as an agent, `cardwar match naval ppo:RUN/final.zip ...`: test_the_docs_commands_run_...


def test_pyproject_lists_every_package_of_the_source_tree():
    """The package list is explicit (the layout maps folders): a new sub-package must be added to it."""
    import tomllib

    data = tomllib.loads((REPO / "pyproject.toml").read_text())
    listed = set(data["tool"]["setuptools"]["packages"])
    roots = data["tool"]["setuptools"]["package-dir"]
    found = set()
    for package, folder in roots.items():
        for init in (REPO / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(REPO / folder)
            found.add(".".join([package, *rel.parts]) if rel.parts else package)
    found = {p for p in found if not any(part.startswith((".", "_")) or part in ("tests",) for part in p.split("."))}
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"


# ---- the docs' commands, run from an empty folder with the installed wheel (issue 19, section 5) ----

DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
_COMMAND = re.compile(r"^(?:[A-Z_]+=\S*\s+)*(?:nice\s+)?(?:\.venv/bin/)?(?:cardwar\s|python\s+-m\s+cardwar\b)")
_SYNOPSIS = re.compile(r"\[--|\b(GAME|SPEC|SPEC_A|FILE|CONFIG)\b")
"""A usage synopsis (optional flags in brackets, placeholders in capitals), not a command to run."""


def docs_commands() -> list[str]:
    """Every cardwar command line in the code blocks of README.md and docs/*.md (not Python blocks), with
    continuation lines joined, the trailing comment dropped and spaces collapsed."""
    out = []
    for doc in DOCS:
        for lang, block in re.findall(r"^```(\w*)\n(.*?)^```", doc.read_text(encoding="utf-8"), flags=re.S | re.M):
            if lang == "python":
                continue
            lines, i = block.splitlines(), 0
            while i < len(lines):
                line = lines[i]
                while line.rstrip().endswith("\\") and i + 1 < len(lines):
                    i += 1
                    line = line.rstrip()[:-1] + " " + lines[i].strip()
                i += 1
                line = " ".join(re.sub(r"\s+#\s.*$", "", line).split())
                if _COMMAND.match(line) and not re.match(r"cardwar [\w-]+: error:", line):  # an error it prints
                    out.append(line)
    return out


TINY_TRAIN = ("--steps 64 --quiet --set env.n_envs=1 --set env.vec_env=dummy --set ppo.n_steps=64 "
              "--set ppo.batch_size=64 --set eval.games=0")
QUICK = "--pairs 1 --rounds 10 --quiet --workers 1"
TWO = "--entrant r=random --entrant h=heuristic"
SKIP = "skip: "

# Each command in the docs' code blocks, as written there -> the cheap version that runs (smaller
# --games/--pairs/--steps, two quick entrants instead of the ladder's searchers), in this order, from
# one empty folder; or "skip: why". A command added to the docs must be added here (a test says so),
# and an entry whose command left the docs fails too, so the list cannot drift.
DOCS_RUNS: list[tuple[str, str, str | None]] = [  # (docs, run, stdin)
    ("cardwar configs", "cardwar configs", None),
    ("cardwar tournament naval --workers 2", f"cardwar tournament naval {TWO} {QUICK}", None),
    ("cardwar tournament naval --report-only", f"cardwar tournament naval --report-only {TWO} {QUICK}", None),
    ("cardwar replay --db tournaments/naval-ladder.sqlite --list",
     "cardwar replay --db tournaments/naval-ladder.sqlite --list", None),
    ("cardwar tournament gauntlet", f"cardwar tournament gauntlet {TWO} --gauntlet h {QUICK}", None),
    ("cardwar tournament naval --backend ray [--ray-address HOST:PORT]",
     SKIP + "the optional [ray] extra and a Ray cluster; tests/tournament/ run the Ray backend", None),
    ("cardwar tournament --game naval --entrant h=heuristic --entrant bot='engine:python mybot.py' --pairs 50",
     "cardwar tournament --game naval --entrant h=heuristic --entrant bot='engine:python mybot.py' " + QUICK, None),
    ("cardwar tournament --game naval --entrant h=heuristic --entrant bot='engine:python docs/examples/engine_bot.py' "
     "--pairs 20", SKIP + "a file of the checkout, as the doc says; the same engine runs above as mybot.py", None),
    ("cardwar tournament --game hexwar --scenario random:test --entrant h=heuristic --entrant m=mcts:seconds=0.2 "
     "--entrant bot='engine:python docs/examples/engine_bot.py' --pairs 50",
     SKIP + "a file of the checkout, as the doc says; the same engine runs above as mybot.py", None),
    ("cardwar engine --game naval --agent heuristic", "cardwar engine --game naval --agent heuristic", ""),
    ("cardwar tournament --game naval --entrant h=heuristic "
     "--entrant m='engine:cardwar engine --game naval --agent mcts:iterations=400'",
     "cardwar tournament --game naval --entrant h=heuristic "
     f"--entrant m='engine:cardwar engine --game naval --agent mcts:iterations=20' --name engines {QUICK}",
     None),  # its own --name: the README's mybot.py tournament above took the default name in this folder
    ("cardwar tournament --game naval --name eng18 --entrant e='engine:python -m cardwar engine --game naval "
     "--agent random' --entrant h=heuristic --pairs 6 --move-ms 100 --workers 1",
     "cardwar tournament --game naval --name eng18 --entrant e='engine:python -m cardwar engine --game naval "
     f"--agent random' --entrant h=heuristic --move-ms 1000 {QUICK}", None),
    ("cardwar play naval --opponent heuristic --save my_game.json",
     "cardwar play naval --opponent heuristic --save my_game.json", "quit\n"),
    ("cardwar play hexwar --scenario river_crossing --opponent mcts --seat red",
     "cardwar play hexwar --scenario river_crossing --opponent mcts:iterations=20 --seat red", "quit\n"),
    ("cardwar match hexwar ppo random --scenario random:test --games 200",
     "cardwar match hexwar ppo random --scenario random:test --games 2", None),
    ("cardwar match naval openspiel:ismcts random --games 4",
     "cardwar match naval openspiel:ismcts,iterations=10 random --games 2", None),
    ("cardwar match hexwar openspiel:ismcts,iterations=50 heuristic --games 10",
     "cardwar match hexwar openspiel:ismcts,iterations=5 heuristic --games 2", None),
    ("python -m cardwar.openspiel.train naval --episodes 2000 --out nfsp_naval.pt",
     "python -m cardwar.openspiel.train naval --episodes 20 --hidden 8 --log-every 0 --out nfsp_naval.pt", None),
    ("cardwar match naval openspiel:policy=nfsp_naval.pt random --games 20",
     "cardwar match naval openspiel:policy=nfsp_naval.pt random --games 2", None),
    ("python -m cardwar.openspiel.alphazero tankattack --scenario trench_raid --steps 6 --simulations 16 "
     "--out az_trench_raid", SKIP + "minutes of OpenSpiel's AlphaZero (the alphazero extra); "
     "tests/openspiel/test_alphazero.py trains a learner step and plays a game with it", None),
    ("python -m cardwar.openspiel.alphazero tankattack --scenario trench_raid --out az_trench_raid --eval-only "
     "--eval-games 20", SKIP + "a run of the command above; tests/openspiel/test_alphazero.py plays its network", None),
    ("python -m cardwar.openspiel.alphazero tankattack --scenario trench_raid --out az_trench_raid --eval-only "
     "--eval-games 20 --checkpoint 0",
     SKIP + "a run of the command above; tests/openspiel/test_alphazero.py plays its network", None),
    ("python -m cardwar.training.imitation_check hexwar --set policy.distance_fields=true --set imitation.epochs=2 "
     "--dagger 3 --eval-games 100 --workers 2 --out runs/imitation/hex_fields",
     SKIP + "the imitation check above with more DAgger rounds (it runs above with --dagger 1)", None),
    ("cardwar train hexwar --config hexwar --set init=runs/imitation/hex_fields/imitated_3.zip --set imitation.games=0 "
     "--export agents/pretrained/hexwar_ppo.zip",
     SKIP + "starts from the imitation check's model; `cardwar train hexwar --config hexwar` runs above", None),
    ("cardwar match hexwar ppo:runs/hexwar__ppo__0__20261127-203013/final.zip heuristic --games 200 --seed 50000 --scenario random:test --workers 2",
     SKIP + "a run folder of the training docs/training.md describes; the shipped ppo plays above", None),
    ("cardwar match hexwar ppo:runs/hexwar__ppo__0__20261127-203013/final.zip heuristic --games 50 --seed 50000 --scenario river_crossing --workers 2",
     SKIP + "a run folder of the training docs/training.md describes; the shipped ppo plays above", None),
    ("cardwar match hexwar ppo:runs/hexwar__ppo__0__20261127-203013/final.zip ppo:agents/pretrained/hexwar_ppo.zip --games 200 --seed 50000 "
     "--scenario random:test --workers 2", SKIP + "a run folder of the training docs/training.md describes; the shipped ppo plays above", None),
    ("cardwar match hexwar ppo:runs/hexwar__ppo__0__20261127-203013/final.zip random --games 1000 --seed 50000 --scenario random:test --workers 2",
     SKIP + "a run folder of the training docs/training.md describes; the shipped ppo plays above", None),
    ("cardwar match hexwar ppo:runs/imitation/hex_fields/imitated_3.zip heuristic --games 200 --seed 50000 "
     "--scenario random:test --workers 2 --secret 50b1e3db9f39ef15ec01df8746de8ddc", SKIP + "a run folder of the training docs/training.md describes; the shipped ppo plays above", None),
    ("python -m cardwar.training.imitation_check skirmish --games 250 --set imitation.epochs=6 --dagger 1 "
     "--eval-games 100 --workers 1 --out runs/imitation/skirmish_dagger",
     "python -m cardwar.training.imitation_check skirmish --games 2 --test-games 1 --eval-games 2 --workers 1 "
     "--set imitation.epochs=1 --dagger 1 --out runs/imitation/skirmish_dagger", None),
    ("cardwar train skirmish --config skirmish --set init=runs/imitation/skirmish_dagger/imitated_1.zip "
     "--set imitation.games=0 --set ppo.imitation_kl=0.5",
     SKIP + "starts from the imitation check's model; `cardwar train skirmish --config skirmish` runs above", None),
    ("cardwar match skirmish ppo:runs/skirmish__ppo__0__20261127-233430/final.zip heuristic --games 200 --seed 50000 --scenario random:test --workers 1 "
     "--reproducible-seeds", SKIP + "a run folder of the training docs/training.md describes; the shipped ppo plays above", None),
    ("cardwar match skirmish ppo:runs/skirmish__ppo__0__20261127-233430/final.zip random --games 200 --seed 50000 --scenario random:test --workers 1 "
     "--reproducible-seeds", SKIP + "a run folder of the training docs/training.md describes; the shipped ppo plays above", None),
    ("cardwar match skirmish ppo:runs/skirmish__ppo__0__20261127-233430/final.zip ppo --games 200 --seed 50000 --scenario random:test --workers 1 "
     "--reproducible-seeds", SKIP + "a run folder of the training docs/training.md describes; the shipped ppo plays above", None),
    ("cardwar match skirmish ppo:runs/imitation/skirmish_dagger/imitated_1.zip heuristic --games 200 --seed 50000 "
     "--scenario random:test --workers 1 --reproducible-seeds",
     SKIP + "a run folder of the training docs/training.md describes; the shipped ppo plays above", None),
    ("cardwar levels calibrate hexwar --base heuristic --pairs 40 --skills 0.25 0.5 0.7 0.85 --workers 1",
     "cardwar levels calibrate hexwar --base heuristic --pairs 1 --skills 0.5 --workers 1 --quiet "
     "--write hexwar_levels.json", None),  # --write: not over the installed package's table
    ("cardwar levels calibrate naval --base ppo --pairs 100 --skills 0.25 0.5 0.7 0.85 --workers 1",
     SKIP + "hexwar's command above, on another game (minutes)", None),
    ("cardwar levels calibrate skirmish --base heuristic --pairs 30 --skills 0.25 0.5 0.7 0.85 --workers 2",
     SKIP + "hexwar's command above, on another game (minutes)", None),
    ("cardwar levels calibrate tankattack --base heuristic --pairs 20 --skills 0.25 0.5 0.6 0.7 0.85 --workers 1",
     SKIP + "hexwar's command above, on another game (minutes)", None),
    ("cardwar levels bench hexwar --pairs 40", "cardwar levels bench hexwar --pairs 1 --elo 100 --rounds 20 --quiet",
     None),
    ("cardwar levels bench naval --pairs 25", "cardwar levels bench naval --pairs 1 --elo 100 --rounds 20 --quiet",
     None),
    ("cardwar levels bench skirmish --pairs 8", SKIP + "hexwar's and naval's above, on another game (minutes)", None),
    ("cardwar levels bench tankattack --pairs 8", SKIP + "hexwar's and naval's above, on another game (minutes)",
     None),
    ("cardwar match hexwar level:elo=300 random --scenario random:test --games 100",
     "cardwar match hexwar level:elo=300 random --scenario random:test --games 2", None),
    ("cardwar train naval --config naval --export agents/pretrained/rounds/naval_round0.zip",
     f"cardwar train naval --config naval --export agents/pretrained/rounds/naval_round0.zip {TINY_TRAIN}", None),
    ("cardwar match naval ppo:runs/naval__ppo__0__.../final.zip heuristic --games 200 --workers 2",
     "cardwar match naval ppo:{naval_run}/final.zip heuristic --games 2", None),
    ("cardwar train hexwar --config hexwar --export agents/pretrained/hexwar_ppo.zip",
     f"cardwar train hexwar --config hexwar --export agents/pretrained/hexwar_ppo.zip {TINY_TRAIN}", None),
    ("cardwar train hexwar --config hexwar", SKIP + "run just above, with --export", None),
    ("cardwar train skirmish --config skirmish --export agents/pretrained/skirmish_ppo.zip",
     f"cardwar train skirmish --config skirmish --export agents/pretrained/skirmish_ppo.zip {TINY_TRAIN}", None),
    ("cardwar train skirmish --resume runs/skirmish__ppo__0__<time>", SKIP + "resume is tested in tests/training/",
     None),
    ("cardwar tournament skirmish --workers 2", f"cardwar tournament skirmish {TWO} {QUICK} --scenario duel", None),
    ("cardwar match skirmish ppo random --games 200 --seed 50000 --scenario random:test --workers 2 "
     "--reproducible-seeds",
     "cardwar match skirmish ppo random --games 2 --seed 50000 --scenario random:test --reproducible-seeds", None),
    ("cardwar match skirmish ppo heuristic --games 200 --seed 50000 --scenario random:test --workers 2 "
     "--reproducible-seeds",
     "cardwar match skirmish ppo heuristic --games 2 --seed 50000 --scenario random:test --reproducible-seeds", None),
    ("cardwar match skirmish heuristic:bounds=false heuristic --games 200 ...",
     "cardwar match skirmish heuristic:bounds=false heuristic --games 2 --scenario duel", None),
    ("cardwar train tankattack --config tankattack --export agents/pretrained/tankattack_ppo.zip",
     f"cardwar train tankattack --config tankattack --export agents/pretrained/tankattack_ppo.zip {TINY_TRAIN} "
     "--set imitation.games=2 --set imitation.dagger_rounds=0 --set imitation.epochs=1", None),
    ("cardwar train tankattack --resume runs/tankattack__ppo__0__<time>", SKIP + "resume is tested in tests/training/",
     None),
    ("cardwar match tankattack ppo random --games 100 --scenario random:test --seed 30 --workers 1 "
     "--reproducible-seeds",
     "cardwar match tankattack ppo random --games 2 --scenario trench_raid --seed 30 --reproducible-seeds", None),
    ("cardwar match tankattack ppo heuristic --games 100 --scenario random:test --seed 30 --workers 1 "
     "--reproducible-seeds",
     "cardwar match tankattack ppo heuristic --games 2 --scenario trench_raid --seed 30 --reproducible-seeds", None),
    ("cardwar match tankattack ppo:runs/tankattack__ppo__0__20261127-164855/checkpoints/model_000000000.zip random "
     "--games 100 ...", SKIP + "a checkpoint of the run docs/training.md describes; the shipped ppo plays above", None),
    ("cardwar match skirmish ppo:runs/skirmish__ppo__0__20261124-215002/checkpoints/model_000000000.zip heuristic "
     "--games 200 ...", SKIP + "a checkpoint of the run docs/training.md describes; the shipped ppo plays above", None),
    ("python -m cardwar.training.imitation_check hexwar --out runs/imitation/hex_base",
     "python -m cardwar.training.imitation_check hexwar --out runs/imitation/hex_base --games 2 --test-games 1 --eval-games 2 --workers 1 --set imitation.epochs=1", None),
    ("python -m cardwar.training.imitation_check hexwar --set policy.distance_fields=true --dagger 1 "
     "--out runs/imitation/hex_fields",
     "python -m cardwar.training.imitation_check hexwar --set policy.distance_fields=true --dagger 1 "
     "--out runs/imitation/hex_fields --games 2 --test-games 1 --eval-games 2 --workers 1 --set imitation.epochs=1", None),
    ("python -m cardwar.training.imitation_check naval --games 2000 --dagger 2 --out runs/imitation/naval_heuristic",
     "python -m cardwar.training.imitation_check naval --games 2 --dagger 2 --out runs/imitation/naval_heuristic "
     "--test-games 1 --eval-games 2 --workers 1 --set imitation.epochs=1", None),
    ("cardwar train naval --config exit/naval --export runs/exit/naval_next.zip",
     f"cardwar train naval --config exit/naval --export runs/exit/naval_next.zip {TINY_TRAIN}", None),
    ("cardwar train naval --config exit/naval --set init=agents/pretrained/rounds/naval_round0.zip "
     "--set \"imitation.opponents=[heuristic, 'ppo:agents/pretrained/rounds/naval_round0.zip']\" "
     "--export agents/pretrained/rounds/naval_round1.zip",
     "cardwar train naval --config exit/naval --set init=agents/pretrained/rounds/naval_round0.zip "
     "--set \"imitation.opponents=[heuristic, 'ppo:agents/pretrained/rounds/naval_round0.zip']\" "
     f"--export agents/pretrained/rounds/naval_round1.zip {TINY_TRAIN}", None),
    ("cardwar train naval --config exit/naval --set init=agents/pretrained/rounds/naval_round1.zip --set seed=2 "
     "--set \"imitation.teacher=mcts:seconds=0.2\" "
     "--set \"imitation.opponents=[heuristic, 'ppo:agents/pretrained/rounds/naval_round1.zip']\" "
     "--export agents/pretrained/naval_ppo.zip",
     "cardwar train naval --config exit/naval --set init=agents/pretrained/rounds/naval_round1.zip --set seed=2 "
     "--set \"imitation.teacher=mcts:seconds=0.2\" "
     "--set \"imitation.opponents=[heuristic, 'ppo:agents/pretrained/rounds/naval_round1.zip']\" "
     f"--export agents/pretrained/naval_ppo.zip {TINY_TRAIN}", None),
    ("cardwar tournament naval_rounds --workers 2",
     SKIP + "the round models of the checkout (agents/pretrained/rounds/), as the doc says", None),
    ("python -m cardwar.training.parameter_sharing --steps 30000 --out runs/ps_duel",
     "python -m cardwar.training.parameter_sharing --steps 600 --out runs/ps_duel --eval-games 2 --no-progress", None),
    ("cardwar train naval --config best_response/naval --set opponents.heuristic=BOT "
     "--set \"eval.opponents=[BOT]\" --set name=br-BOT",
     "cardwar train naval --config best_response/naval --set opponents.heuristic=heuristic "
     f"--set eval.opponents=[heuristic] --set name=br-heuristic {TINY_TRAIN}", None),
    ("cardwar train naval --steps 20000",
     SKIP + "test_train_without_a_config_uses_the_packaged_default runs it, with these small settings", None),
    ("cardwar train naval --resume runs/naval__ppo__0__...", SKIP + "resume is tested in tests/training/", None),
    ("cardwar train naval --resume runs/naval__ppo__0__20261122-095006", SKIP + "resume is tested in tests/training/",
     None),
    ("cardwar train naval --set imitation.games=400 --set imitation.teacher=mcts:model=ppo,seconds=0.1 "
     "--set imitation.targets=visits --export models/naval_exit1.zip",
     SKIP + "a research recipe, minutes of search; tests/training/test_imitation.py covers it", None),
    ("cardwar train naval --set imitation.games=400 --set imitation.teacher=mcts:model=models/naval_exit1.zip,"
     "seconds=0.1 --set imitation.targets=visits --export models/naval_exit2.zip",
     SKIP + "a research recipe, minutes of search; tests/training/test_imitation.py covers it", None),
    ("nice .venv/bin/python -m cardwar.cli.hexwar_balance --maps 500 --seed 0 --workers 2 [--hidden-units]",
     "python -m cardwar.cli.hexwar_balance --maps 4 --seed 0 --workers 1", None),
    ("nice .venv/bin/python -m cardwar.cli.tankattack_balance --seeds 0-19,5000-5019,90000-90019 --games 2 "
     "--agents random --workers 1",
     "python -m cardwar.cli.tankattack_balance --seeds 0-1,5000-5001 --games 2 --agents random --workers 1", None),
    ("nice .venv/bin/python -m cardwar.cli.tankattack_balance --seeds 0-39,5000-5039,90000-90039 --games 2 "
     "--agents advance --workers 1",
     "python -m cardwar.cli.tankattack_balance --seeds 0-1,5000-5001 --games 2 --agents advance --workers 1", None),
    ("nice .venv/bin/python -m cardwar.cli.tankattack_balance --seeds 0-39,5000-5039,90000-90039 --games 2 "
     "--agents heuristic --workers 1",
     "python -m cardwar.cli.tankattack_balance --seeds 1,5001 --games 1 --agents heuristic --workers 1", None),
    (".venv/bin/python -m cardwar.engine.bench --agent heuristic --games 10",
     "python -m cardwar.engine.bench --agent heuristic --games 1 --game naval", None),
    (".venv/bin/python -m cardwar.engine.bench", SKIP + "the line above, with both default agents and games", None),
    ("cardwar train naval --backend rllib --steps 200000 --set num_envs_per_env_runner=8",
     SKIP + "the optional [rllib] extra and minutes of Ray; tests/training/test_rllib.py runs short ones", None),
    ("nice cardwar train naval --backend rllib --steps 200000 --set num_envs_per_env_runner=8 --set eval_games=100",
     SKIP + "the optional [rllib] extra and minutes of Ray; tests/training/test_rllib.py runs short ones", None),
    ("cardwar train hexwar --backend rllib --steps 30000 --set num_envs_per_env_runner=8",
     SKIP + "the optional [rllib] extra and minutes of Ray; tests/training/test_rllib.py runs short ones", None),
    ("nice cardwar train hexwar --backend rllib --steps 30000 --set num_envs_per_env_runner=8 --set eval_every=10000 "
     "--set eval_games=40",
     SKIP + "the optional [rllib] extra and minutes of Ray; tests/training/test_rllib.py runs short ones", None),
    ("cardwar train skirmish --backend rllib --steps 20000",
     SKIP + "the optional [rllib] extra and minutes of Ray; tests/training/test_rllib*.py run short ones", None),
    ("cardwar train naval --backend rllib --resume runs/naval__rllib__0__20260101-120000 --steps 400000",
     SKIP + "a run of the command above; tests/training/test_rllib_resume.py resumes short ones", None),
    ("cardwar match naval rllib:runs/naval__rllib__0__20260101-120000 heuristic --games 100",
     SKIP + "a run of the command above; tests/training/ play rllib:RUN in whole matches", None),
    ("RAY_AUTH_MODE=token cardwar train naval --backend rllib --ray-address HEAD_IP:6379 --set num_env_runners=16 "
     "--set num_envs_per_env_runner=8 --steps 2000000", SKIP + "a Ray cluster of several machines", None),
    ("RAY_AUTH_MODE=token cardwar train naval --backend rllib --ray-address HEAD_IP:6379 --set num_env_runners=16 --steps 2000000",
     SKIP + "a Ray cluster of several machines", None),
    ("cardwar bench --time-to-strength naval --minutes 34",
     "cardwar bench --time-to-strength naval --minutes 0.2 --eval-every 2048 --eval-games 2 --slice 2 "
     "--set total_steps=2048 --set ours:imitation.games=1 --set ours:env.n_envs=2 --set ours:ppo.n_steps=1024",
     None),
    ("cardwar bench --time-to-strength naval --report", "cardwar bench --time-to-strength naval --report", None),
    ("cardwar bench --time-to-strength hexwar --minutes 50 --eval-games 50",
     SKIP + "the naval bench above runs the same code (a hexwar run is 100+ minutes)", None),
    ("cardwar bench --time-to-strength hexwar --report", SKIP + "reads the run of the command above", None),
    ("cardwar serve", SKIP + "a server that runs until stopped; tests/serve/ start it", None),
    (".venv/bin/cardwar serve", SKIP + "a server that runs until stopped; tests/serve/ start it", None),
    (".venv/bin/cardwar serve --host 0.0.0.0 --port 8080 --db /var/lib/cardwar/sessions.db "
     "--cors-origin https://mygame.example", SKIP + "a public server that runs until stopped", None),
]
_DOCS_TIMEOUT = 180
EXTRAS = {"openspiel": ("pyspiel", "pip install 'cardwar[openspiel]'")}  # openspiel: specs, cardwar.openspiel.train
"""An agent spec that needs an optional extra: without its module, the documented answer is exit 2 naming it."""


def _curated() -> dict[str, tuple[str, str | None]]:
    return {docs: (run, stdin) for docs, run, stdin in DOCS_RUNS}


def test_every_docs_command_is_in_the_list_and_every_listed_command_is_in_the_docs():
    found = docs_commands()
    curated = _curated()
    assert len(curated) == len(DOCS_RUNS), "a command listed twice in DOCS_RUNS"
    new = sorted({c for c in found if c not in curated and not _SYNOPSIS.search(c)})
    assert not new, f"commands in the docs that DOCS_RUNS does not list (add a cheap version or a skip): {new}"
    gone = sorted(set(curated) - set(found))
    assert not gone, f"DOCS_RUNS lists commands that are no longer in the docs: {gone}"
    for docs, (run, _) in curated.items():  # a cheap version is the same command: program, subcommand, argument
        if not run.startswith(SKIP):
            words = docs.replace(".venv/bin/", "").removeprefix("nice ").split()
            assert run.split()[:3] == words[:3], (docs, run)


def test_the_docs_commands_run_from_an_empty_folder(installed):
    cwd = installed["cwd"].parent / "docs_commands"
    cwd.mkdir()
    shutil.copy(REPO / "docs" / "examples" / "engine_bot.py", cwd / "mybot.py")  # the README's mybot.py, a user's
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONPATH"] = str(installed["site"])
    # after `pip install`: the cardwar script and the python that has the package come first on PATH
    env["PATH"] = os.pathsep.join([str(installed["site"] / "bin"), str(Path(sys.executable).parent), env["PATH"]])
    failures, outputs = [], {}
    for docs, run, stdin in DOCS_RUNS:
        if run.startswith(SKIP):
            continue
        if "{naval_run}" in run:  # the naval run of the docs' first `cardwar train naval --config naval`
            (naval_run,) = (cwd / "runs").glob("naval__ppo__0__*")
            run = run.replace("{naval_run}", str(naval_run.relative_to(cwd)))
        done = run_command(shlex.split(run), cwd=cwd, env=env, input=stdin, timeout=_DOCS_TIMEOUT)
        outputs[docs] = done.stdout
        missing = [hint for key, (module, hint) in EXTRAS.items()
                   if key in run and importlib.util.find_spec(module) is None]
        if missing:  # the extra is not installed here: the documented one line naming it, exit 2
            if done.returncode != 2 or missing[0] not in done.stderr or done.stderr.count("\n") != 1:
                failures.append(f"{run!r} without its extra exited {done.returncode}: {done.stderr[-1500:]}")
            outputs.pop(docs)
        elif done.returncode != 0 or "Traceback" in done.stderr:
            failures.append(f"{run!r} (the docs: {docs!r}) exited {done.returncode}: {done.stderr[-1500:]}")
    assert not failures, "\n".join(failures)
    site_configs = installed["site"] / "cardwar" / "configs"
    assert str(site_configs / "tournaments" / "naval.yaml") in outputs["cardwar configs"]
    assert "best_response/naval" in outputs["cardwar configs"]
    assert (cwd / "tournaments" / "naval-ladder" / "ratings.png").is_file()  # `naval` is the naval-ladder
    assert (cwd / "tournaments" / "naval-gauntlet" / "report.md").is_file()
    assert (cwd / "agents" / "pretrained" / "naval_ppo.zip").is_file()
    assert (cwd / "agents" / "pretrained" / "hexwar_ppo.zip").is_file()
    assert list((cwd / "runs").glob("naval__br-heuristic__*/final.zip"))
    assert (cwd / "my_game.json").is_file()
    for docs, run, _ in DOCS_RUNS:  # the matches played their games (the packaged model, a run's final.zip)
        if docs.startswith("cardwar match") and docs in outputs:
            agent = run.split()[3].split("{")[0].split(",")[0]  # ppo, ppo:(the run), openspiel:ismcts
            assert ": 2 games, seats swapped" in outputs[docs], outputs[docs]
            assert f"score rate of {agent}" in outputs[docs], outputs[docs]
