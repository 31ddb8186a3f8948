"""The wheel: built from this checkout, installed into a fresh environment outside it, it reads
a photo and serves the pages (issue 47: a wheel once carried no models, pages or deck list)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
import urllib.request
import zipfile
from pathlib import Path

import pytest

from processes import stop_with_ctrl_c

ROOT = Path(__file__).resolve().parents[1]
PHOTOS = ROOT / "tests" / "data" / "photos"
LABELS = json.loads((PHOTOS / "labels.json").read_text())


def test_the_wheel_lists_every_package_of_cribcam():
    tomllib = pytest.importorskip("tomllib")
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(init.parent.relative_to(ROOT).parts) for init in (ROOT / "cribcam").rglob("__init__.py")}
    assert found <= listed, f"pyproject.toml does not list {sorted(found - listed)}"
    assert {"cribcam.bundled.models", "cribcam.bundled.web", "cribcam.bundled.datasets"} <= listed


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # No build isolation: the test environment's setuptools (the test extra), no network.
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "--quiet", "--wheel-dir", str(out), str(ROOT)], check=True, timeout=600,
                   capture_output=True)
    return next(out.glob("cribcam-*.whl"))


def test_the_wheel_carries_what_the_app_reads_and_no_training_files(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    bundled = "cribcam/bundled/"
    for needed in ["models/finder.onnx", "models/classifier.onnx", "models/rank_reader.onnx",
                   "models/rehearsal.npz", "models/README.md", "models/rank_reader.LICENSE",
                   "web/templates/index.html", "web/templates/live.html", "web/static/app.js",
                   "web/static/api.txt", "datasets/decks.json",
                   # the card art kept in the data package, a file a design or a file a card
                   "datasets/designs/aisleriot/tragy.svgz", "datasets/designs/kennard/2color/AC.svgz"]:
        assert bundled + needed in names
    assert {"cribcam/teach/lesson.py", "cribcam/teach/crop_bank.py"} <= names  # teaching, as the teach page runs it
    assert not [name for name in names if "checkpoints/" in name or name.endswith("HISTORY.md")
                or "/cache/" in name or "/samples/" in name]


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> dict:
    """A fresh environment outside the checkout with the wheel installed, and how to run it:
    the wheel's cribcam, its dependencies taken from the test environment (no network)."""
    venv = tmp_path_factory.mktemp("fresh") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
                    "--no-index", "--quiet", str(wheel)], check=True, timeout=300, capture_output=True)
    # The test environment's site-packages on PYTHONPATH for the dependencies: it holds no
    # cribcam folder (its cribcam is an editable install, found by a .pth file that PYTHONPATH
    # does not run), so `import cribcam` finds the wheel's.
    env = {**os.environ, "PYTHONPATH": sysconfig.get_paths()["purelib"],
           "CRIBCAM_DATA": str(venv.parent / "data")}
    where = subprocess.run([str(python), "-c", "import cribcam; print(cribcam.__file__)"], env=env,
                           cwd=venv.parent, capture_output=True, text=True, timeout=60)
    assert where.stdout.startswith(str(venv)), where.stdout + where.stderr
    return {"python": python, "env": env, "cwd": venv.parent}


def test_the_installed_wheel_reads_a_photo(installed):
    done = subprocess.run([str(installed["python"]), "-m", "cribcam", "read",
                           str(PHOTOS / "closeup-3-cards.jpg"), "--json"], env=installed["env"],
                          cwd=installed["cwd"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    read = sorted(card["card"] for card in json.loads(done.stdout)["cards"])
    assert read == sorted(LABELS["closeup-3-cards.jpg"]["cards"])


def test_the_installed_wheel_serves_the_pages_and_reads_through_the_api(installed):
    server = subprocess.Popen([str(installed["python"]), "-m", "cribcam", "serve", "--port", "0"],
                              env=installed["env"], cwd=installed["cwd"], text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        found = re.search(r"http://\S+/", server.stdout.readline())
        assert found, server.stderr.read() if server.poll() is not None else "no address printed"
        url = found.group(0)
        for page in ["", "live", "game", "teach", "static/app.js", "static/style.css"]:
            with urllib.request.urlopen(url + page, timeout=60) as response:
                assert response.status == 200
        with urllib.request.urlopen(url + "api/status", timeout=60) as response:
            assert json.load(response)["model"] is True
        photo = (PHOTOS / "blackgold-3-cards.jpg").read_bytes()
        boundary = "cribcam-wheel-test"
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.jpg\"\r\n"
                f"Content-Type: image/jpeg\r\n\r\n").encode() + photo + f"\r\n--{boundary}--\r\n".encode()
        request = urllib.request.Request(url + "api/read", data=body, headers={
            "Content-Type": f"multipart/form-data; boundary={boundary}"})
        with urllib.request.urlopen(request, timeout=120) as response:
            read = sorted(card["card"] for card in json.load(response)["cards"])
        assert read == sorted(LABELS["blackgold-3-cards.jpg"]["cards"])
    finally:
        stop_with_ctrl_c(server)
