"""The quick start's launcher, bin/cribcam, and the environment it makes (.ci/ensure-venv).

The install itself is checked by .ci/check_base_install.py, which .ci/run runs: the base
package alone in a fresh environment. These tests cover what a newcomer's machine can lack
(a new enough Python, Debian's python3-venv) and the stamp that makes a rerun instant,
without installing anything.
"""

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAUNCHER = ROOT / "bin" / "cribcam"
ENSURE_VENV = ROOT / ".ci" / "ensure-venv"


def script(path: Path, text: str) -> Path:
    path.write_text("#!/bin/sh\n" + text)
    path.chmod(0o755)
    return path


def run(command, tmp_path: Path, python: str | Path = "python3", *args: str):
    env = {**os.environ, "CRIBCAM_VENV": str(tmp_path / "venv"), "PYTHON": str(python)}
    return subprocess.run([str(command), *args], env=env, capture_output=True, text=True,
                          timeout=60)


def test_a_python_older_than_3_10_is_named_and_nothing_is_made(tmp_path):
    old = script(tmp_path / "python3.8", 'echo "Python 3.8.10"; exit 1\n')
    result = run(LAUNCHER, tmp_path, old, "count", "5H", "5C", "5S", "JD", "--starter", "5D")
    assert result.returncode == 1
    assert "cribcam needs Python 3.10 or newer" in result.stderr
    assert "Python 3.8.10" in result.stderr
    assert not (tmp_path / "venv").exists()


def test_a_python_without_venv_says_what_to_install(tmp_path):
    # Debian's Python before `apt-get install python3-venv`: ensurepip is not there.
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "ensurepip.py").write_text("raise ImportError('ensurepip is not available')\n")
    python = script(tmp_path / "python3", f'PYTHONPATH={shadow} exec {sys.executable} "$@"\n')
    result = run(LAUNCHER, tmp_path, python, "count", "5H", "5C", "5S", "JD", "--starter", "5D")
    assert result.returncode == 1
    assert "sudo apt-get install python3-venv" in result.stderr
    assert not (tmp_path / "venv").exists()


def test_a_python_named_by_a_path_that_is_not_there_is_said_as_a_path(tmp_path):
    result = run(LAUNCHER, tmp_path, "/usr/bin/python3.99", "count", "5H", "5C", "5S", "JD", "--starter", "5D")
    assert result.returncode == 1
    assert "no Python at /usr/bin/python3.99: name a Python 3.10 or newer" in result.stderr
    assert "on the PATH" not in result.stderr


def test_a_python_asked_for_after_the_environment_was_made_with_another_is_said(tmp_path, installed_venv):
    venv = installed_venv("")
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.10.1\n")
    result = run(ENSURE_VENV, tmp_path, sys.executable, "")
    assert result.returncode == 0, result.stderr
    asked = ".".join(map(str, sys.version_info[:3]))
    assert result.stderr == (f"cribcam: {venv} was made with Python 3.10.1, so {sys.executable} (Python "
                             f"{asked}) is not used: PYTHON chooses the Python of a new environment; "
                             f"rm -rf {venv}, then run again to make it with {sys.executable}\n")


def test_a_python_asked_for_that_is_not_there_is_said_when_the_environment_is_made(tmp_path, installed_venv):
    venv = installed_venv("")
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.11.7\n")
    result = run(ENSURE_VENV, tmp_path, "/usr/bin/python3.99", "")
    assert result.returncode == 0, result.stderr
    assert result.stderr == (f"cribcam: no Python at /usr/bin/python3.99: the environment {venv}, made "
                             f"with Python 3.11.7, is used\n")


@pytest.fixture
def installed_venv(tmp_path):
    """An environment stamped as installed, whose python fails anything but a start-up check
    (so a test would see any attempt to install)."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    script(venv / "bin" / "python", '[ "$1" = "-c" ] && [ -z "$2" ] && exit 0\n'
                                    'echo "python $*" >&2; exit 3\n')

    def stamp(extras: str, pyproject: bytes = (ROOT / "pyproject.toml").read_bytes()) -> Path:
        (venv / ".cribcam-installed").write_text(f"{hashlib.sha256(pyproject).hexdigest()} {extras}\n")
        return venv

    return stamp


@pytest.mark.parametrize("stamped, wanted", [("", ""), ("test,train", "test"), ("test,train", "train,test")])
def test_an_environment_stamped_for_this_pyproject_is_reused_at_once(tmp_path, installed_venv, stamped, wanted):
    venv = installed_venv(stamped)
    result = run(ENSURE_VENV, tmp_path, "/no/python", wanted)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{venv}\n" and result.stderr == ""


@pytest.mark.parametrize("stamped, wanted, pyproject, extras", [
    ("", "test", None, "test"),  # an extra not installed yet
    # pyproject.toml changed since: what was installed is installed again, for a true stamp
    ("test,train", "", b"[project]\nname = 'changed'\n", "test,train"),
])
def test_an_environment_not_up_to_date_is_installed_again(tmp_path, installed_venv, stamped, wanted,
                                                          pyproject, extras):
    installed_venv(stamped, **({"pyproject": pyproject} if pyproject else {}))
    result = run(ENSURE_VENV, tmp_path, "/no/python", wanted)
    assert result.returncode == 3  # the stand-in python refused the install
    assert f"python -m pip install --quiet --disable-pip-version-check -e .[{extras}]" in result.stderr
    assert not (tmp_path / "venv" / ".cribcam-installed").exists()  # no stamp until it succeeds
