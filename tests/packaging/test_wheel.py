"""A plain (non-editable) install of the wheel works from any directory, as a researcher would use it.

The wheel is built from a copy of the checkout, installed with no network into a
temporary target, and the commands run from a temporary directory that holds a
user's own ``envs/`` folder and ``agents.py``: they must not shadow ours.
"""

from __future__ import annotations

import os
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
                 "cardwar/agents/pretrained/naval_ppo.zip", "cardwar/agents/pretrained/hexwar_ppo.zip",
                 "cardwar/envs/naval/RULES.md", "cardwar/envs/hexwar/RULES.md",
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
    match = _cardwar(installed, "match", "hexwar", "ppo", "random", "--games", "2", "--scenario",
                     "river_crossing", "--json")
    assert match.returncode == 0, match.stderr
    assert '"games": 2' in match.stdout.splitlines()[-1]
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
    play = _cardwar(installed, "match", "naval", f"ppo:{run / 'final.zip'}", "random", "--games", "2")
    assert play.returncode == 0, play.stderr


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
