"""The base package alone, as the README's quick start installs it: no test or train extras.

Runs the quick start's launcher, ``bin/cribcam``, with its environment in ``.ci/base-venv``
(made afresh whenever pyproject.toml changes) and checks that ``cribcam count``, ``cribcam
serve``, ``cribcam read`` and ``cribcam live hands`` (a short video, headless) work there, and that
``cribcam teach`` teaches a deck from a few of the shared real photos (one of them named without
a box) with no torch in the environment, which ``cribcam read --deck`` then reads with. A runtime module that imports what only an
extra installs fails here, whatever the test environment holds. Exits 1 saying what went
wrong.

Run: python3 .ci/check_base_install.py   (.ci/run does, before the tests)
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAUNCHER = str(ROOT / "bin" / "cribcam")
PHOTO = str(ROOT / "tests" / "data" / "photos" / "webcam-5-cards.jpg")
ENV = {**os.environ, "CRIBCAM_VENV": ".ci/base-venv", "CRIBCAM_FRESH": "1"}
BASE_PYTHON = ROOT / ".ci" / "base-venv" / "bin" / "python"
SHARED = Path(os.environ.get("CRIBCAM_SHARED", ROOT.parent / "shared"))
# Photos of the gold-on-black deck (shared/real-photos) to teach from; the last is named by
# its card alone ("box": null), as a photo of one card may be.
TEACH_PHOTOS = ["CardCounterML__IMG_7835_JPG.jpg", "CardCounterML__IMG_7836_JPG.jpg",
                "CardCounterML__IMG_7702_JPG.jpg"]
NO_MODEL = "no card-reading model is installed"
CRASHES = ("Traceback", "ModuleNotFoundError", "ImportError")


class CheckFailed(Exception):
    """A command of the base install did not do what it should."""


def cribcam(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([LAUNCHER, *args], env=env or ENV, capture_output=True, text=True, timeout=120)


def expect_no_crash(what: str, stderr: str) -> None:
    if any(word in stderr for word in CRASHES):
        raise CheckFailed(f"{what} crashed:\n{stderr}")


def check_count() -> str:
    result = cribcam("count", "5H", "5C", "5S", "JD", "--starter", "5D")
    expect_no_crash("cribcam count", result.stderr)
    if result.returncode != 0 or "Total: 29" not in result.stdout:
        raise CheckFailed(f"cribcam count exited {result.returncode}:\n{result.stdout}{result.stderr}")
    return "counts 29"


def check_serve() -> str:
    """Starts `cribcam serve` on a free loopback port, asks /api/status, stops it with Ctrl-C."""
    process = subprocess.Popen([LAUNCHER, "serve", "--port", "0"], env=ENV, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: lines.put(process.stdout.readline()), daemon=True).start()
    try:
        try:
            first = lines.get(timeout=60)
        except queue.Empty:
            raise CheckFailed("cribcam serve printed no address within 60 s") from None
        found = re.search(r"http://\S+/", first)
        if not found:
            process.kill()
            raise CheckFailed(f"cribcam serve did not start:\n{first}{process.communicate()[1]}")
        with urllib.request.urlopen(found.group(0) + "api/status", timeout=30) as response:
            status = json.load(response)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            _, stderr = process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            _, stderr = process.communicate()
            raise CheckFailed(f"cribcam serve did not stop on Ctrl-C within 20 s; it wrote:\n{stderr}") from None
    expect_no_crash("cribcam serve", stderr)
    if process.returncode != 0:
        raise CheckFailed(f"cribcam serve exited {process.returncode} on Ctrl-C:\n{stderr}")
    return f"serves /api/status (model: {status['model']})"


def check_read() -> str:
    """Reads a photo; until a model ships, the clean "no model" error is right too."""
    result = cribcam("read", PHOTO)
    expect_no_crash("cribcam read", result.stderr)
    if result.returncode == 0 and "Cards read:" in result.stdout:
        return "reads the photo"
    if result.returncode == 2 and NO_MODEL in result.stderr:
        return "says no model is installed"
    raise CheckFailed(f"cribcam read exited {result.returncode}:\n{result.stdout}{result.stderr}")


def check_live() -> str:
    """Follows a short video of the test photo headless, as the base install's OpenCV can."""
    with tempfile.TemporaryDirectory(prefix="base-live-") as work:
        clip = Path(work) / "still.avi"
        written = subprocess.run([str(BASE_PYTHON), "-c", "import cv2, sys; image = cv2.imread(sys.argv[1]); "
                                  "out = cv2.VideoWriter(sys.argv[2], cv2.VideoWriter_fourcc(*'MJPG'), 10, "
                                  "(image.shape[1], image.shape[0])); [out.write(image) for _ in range(12)]; "
                                  "out.release()", PHOTO, str(clip)], capture_output=True, text=True)
        if written.returncode != 0 or not clip.is_file():
            raise CheckFailed(f"could not write a test video with the base install's OpenCV:\n{written.stderr}")
        result = cribcam("live", "hands", "--video", str(clip), "--headless", "--out", "-")
    expect_no_crash("cribcam live hands", result.stderr)
    if result.returncode == 2 and NO_MODEL in result.stderr:
        return "live says no model is installed"
    ended = re.search(r"ended: (12 frames read[^:\n]*)", result.stderr)
    if result.returncode != 0 or not ended:
        raise CheckFailed(f"cribcam live hands exited {result.returncode}:\n{result.stdout}{result.stderr}")
    return f"follows a video ({ended.group(1)})"


def check_teach() -> str:
    """Teaches a deck with the base install alone (torch must not be there), then reads with it."""
    has_torch = subprocess.run([str(BASE_PYTHON), "-c", "import importlib.util, sys; "
                                "sys.exit(importlib.util.find_spec('torch') is None)"]).returncode == 0
    if has_torch:
        raise CheckFailed("torch is installed in the base environment: it cannot show that teaching needs none")
    photos = SHARED / "real-photos"
    if not (photos / "labels.json").is_file():
        raise CheckFailed(f"no shared real photos at {photos} to teach from (set CRIBCAM_SHARED)")
    labels = json.loads((photos / "labels.json").read_text())
    with tempfile.TemporaryDirectory(prefix="base-teach-") as work:
        names = {name: {"cards": labels[name]["cards"]} for name in TEACH_PHOTOS[:-1]}
        names[TEACH_PHOTOS[-1]] = {"cards": [{"card": labels[TEACH_PHOTOS[-1]]["cards"][0]["card"], "box": None}]}
        (Path(work) / "labels.json").write_text(json.dumps(names))
        env = {**ENV, "CRIBCAM_DATA": str(Path(work) / "data")}
        started = time.monotonic()
        taught = cribcam("teach", *(str(photos / "images" / name) for name in TEACH_PHOTOS), "--name", "base",
                         "--labels", str(Path(work) / "labels.json"), env=env)
        seconds = time.monotonic() - started
        expect_no_crash("cribcam teach", taught.stderr)
        if taught.returncode != 0 or "Taught the deck base" not in taught.stdout:
            raise CheckFailed(f"cribcam teach exited {taught.returncode}:\n{taught.stdout}{taught.stderr}")
        read = cribcam("read", PHOTO, "--deck", "base", env=env)
        expect_no_crash("cribcam read --deck", read.stderr)
        if read.returncode != 0 or "Cards read:" not in read.stdout:
            raise CheckFailed(f"cribcam read --deck exited {read.returncode}:\n{read.stdout}{read.stderr}")
    return f"teaches a deck without torch ({seconds:.0f} s) and reads with it"


def main() -> int:
    # Started in the background (nohup ... &), this process ignores Ctrl-C, and so would the
    # servers it starts and stops with Ctrl-C: give them a terminal's Ctrl-C.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    start = time.monotonic()
    installed = subprocess.run([str(ROOT / ".ci" / "ensure-venv")], env=ENV, stdout=subprocess.DEVNULL)
    if installed.returncode != 0:
        print("base install: installing the base package failed", file=sys.stderr)
        return 1
    try:
        said = [check() for check in (check_count, check_serve, check_read, check_live, check_teach)]
    except CheckFailed as exc:
        print(f"base install: {exc}", file=sys.stderr)
        return 1
    print(f"base install: {'; '.join(said)} ({time.monotonic() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
