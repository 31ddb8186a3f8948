"""The desktop live mode on the test clip: `cribcam live hands --video clip.y4m --headless --out`."""

from __future__ import annotations

import json
import subprocess
import sys

import cv2
import numpy as np
import pytest

from cribcam.datagen.clips import ClipSpec, write_clip
from cribcam.live import desktop
from cribcam.live.lock import HandLock
from cribcam.vision.reading import Reading, SeenCard
from processes import stop_with_ctrl_c
from waiting import wait_until

COUNT_OPTIONS = {"starter": None, "crib": False, "claim": None, "variant": "six-card"}


def live(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cribcam", "live", *args], capture_output=True,
                          text=True, timeout=300)


class TruthReader:
    """Reads each frame of the clip as its record says: the hand when one lies still, and
    some of the cards, as a reader might guess them, while the hand is moved. It knows a frame
    by its pixels: a frame that shows what the one before showed is not read again."""

    def __init__(self, path, record: dict):
        self.record, self.frames = record, {}
        capture = cv2.VideoCapture(str(path))
        for index, frame in enumerate(desktop.frames(capture)):
            self.frames.setdefault(frame.tobytes(), index)  # a frame shown again: the first time's
        capture.release()
        self.rng = np.random.default_rng(0)

    def read(self, image) -> Reading:
        frame = self.frames[image.tobytes()]
        for hand in self.record["hands"]:
            if hand["first_frame"] <= frame <= hand["last_frame"]:
                codes, starter = hand["hand"] + [hand["starter"]], hand["starter"]
                break
        else:
            every = [c for h in self.record["hands"] for c in h["hand"] + [h["starter"]]]
            codes, starter = list(self.rng.choice(every, int(self.rng.integers(0, 4)), replace=False)), None
        return Reading(_seen(codes), starter, (), image.shape[1], image.shape[0])


def _seen(codes, unsure=()) -> tuple[SeenCard, ...]:
    """The cards of ``codes`` as a reader sees them, in a row; those in ``unsure`` read unsure."""
    return tuple(SeenCard(code, 0.3 if code in unsure else 0.9, ((10.0 * i, 10.0, 10.0 * i + 8, 20.0),),
                          unsure=code in unsure) for i, code in enumerate(codes))


def _followed(path, read) -> tuple[list[desktop.LockedHand], desktop.FollowSummary]:
    """The hands ``desktop.follow`` locks on the clip at ``path`` read by ``read``, and its summary."""
    capture = cv2.VideoCapture(str(path))
    summary = desktop.FollowSummary()
    try:
        hands = list(desktop.follow(desktop.frames(capture), read, HandLock(), capture.get(cv2.CAP_PROP_FPS),
                                    COUNT_OPTIONS, summary=summary))
    finally:
        capture.release()
    return hands, summary


def test_the_clip_followed_with_a_perfect_reader_locks_each_hand_in_order(clip):
    path, record = clip
    hands, summary = _followed(path, TruthReader(path, record).read)
    assert (summary.frames, summary.hands) == (record["frames"], len(record["hands"]))
    assert summary.sentence() == f"{record['frames']} frames read, {len(record['hands'])} hands locked"
    # Each hand locks on its fifth still frame (5 of the last 8 agree), and only once.
    assert [hand.frame for hand in hands] == [h["first_frame"] + 4 for h in record["hands"]]
    assert [hand.seconds for hand in hands] == [(h["first_frame"] + 4) / 10 for h in record["hands"]]
    assert [hand.report["count"]["total"] for hand in hands] == [h["total"] for h in record["hands"]]


def test_a_hand_read_unsure_but_alike_locks_late_and_the_summary_says_which_cards(clip):
    from cribcam.live.follow import STEADY_WINDOWS

    path, record = clip
    hand = record["hands"][0]["hand"] + [record["hands"][0]["starter"]]

    def read(image) -> Reading:  # the same hand every frame, its first two cards unsure
        return Reading(_seen(hand, unsure=hand[:2]), None, (), image.shape[1], image.shape[0])

    hands, summary = _followed(path, read)
    assert [h.frame for h in hands] == [STEADY_WINDOWS * HandLock().window - 1]  # not at the 5th frame
    assert sorted(c["card"] for c in hands[0].report["cards"] if c.get("unsure")) == sorted(hand[:2])
    assert summary.held_back == tuple(sorted(hand[:2]))
    assert f"{', '.join(sorted(hand[:2]))}, read unsure, held a hand back" in summary.sentence()


def test_a_hand_read_unsure_and_never_alike_never_locks_and_the_summary_says_which_cards(clip):
    path, record = clip
    hand = record["hands"][0]["hand"] + [record["hands"][0]["starter"]]
    frames = iter(range(10**6))

    def read(image) -> Reading:  # the hand, its first two cards unsure, a card missed now and then
        seen = hand if next(frames) % 5 else hand[1:]
        return Reading(_seen(seen, unsure=hand[:2]), None, (), image.shape[1], image.shape[0])

    hands, summary = _followed(path, read)
    assert hands == [] and summary.hands == 0
    assert summary.held_back == tuple(sorted(hand[:2]))
    assert f"{', '.join(sorted(hand[:2]))} read unsure in most frames kept the hand from locking" in summary.sentence()


def test_cribcam_live_headless_runs_a_clip_through_a_real_model(heldout_decks, shipped_models, tmp_path):
    # A short small clip: the tiny test model reads a frame in many tiles of its small input.
    path = tmp_path / "short.y4m"
    record = write_clip(path, ClipSpec(hands=2, hold_seconds=0.6, transition_frames=2, width=320,
                                       height=240, seed=2), heldout_decks)
    out = tmp_path / "results.jsonl"
    result = live("hands", "--video", str(path), "--headless", "--out", str(out), "--model", str(shipped_models))
    assert result.returncode == 0, result.stderr
    assert out.is_file() and "Traceback" not in result.stderr
    assert f"short.y4m ended: {record['frames']} frames read" in result.stderr
    for line in out.read_text().splitlines():  # the tiny model may lock onto nothing at all
        locked = json.loads(line)
        assert {"frame", "seconds", "cards", "starter", "problems", "count"} <= set(locked)
        assert 0 <= locked["frame"] < record["frames"] == 14


def test_cribcam_live_headless_writes_the_clips_hands_in_order(clip, shipped_models, tmp_path):
    path, record = clip
    out = tmp_path / "new" / "results.jsonl"  # its folder made, as `cribcam data build --out` makes its own
    result = live("hands", "--video", str(path), "--headless", "--out", str(out), "--model", str(shipped_models))
    assert result.returncode == 0, result.stderr
    locked = [json.loads(line) for line in out.read_text().splitlines()]
    assert [sorted(c["card"] for c in hand["cards"]) for hand in locked] == \
        [sorted(h["hand"] + [h["starter"]]) for h in record["hands"]]
    assert [hand["count"]["total"] for hand in locked] == [h["total"] for h in record["hands"]]
    for hand, truth in zip(locked, record["hands"]):
        assert truth["first_frame"] <= hand["frame"] <= truth["last_frame"]


@pytest.mark.parametrize("args,words", [
    (["hands", "--video", "clip.y4m", "--headless"], "--headless needs --out"),
    (["hands", "--video", "/no/such/clip.y4m", "--headless", "--out", "-"], "no such video: /no/such/clip.y4m"),
    (["hands", "--video", "tests", "--headless", "--out", "-"],
     "--video tests is a folder: give a video in it (.y4m, .mp4, .avi...), e.g. tests/hands.y4m"),
    (["play", "--video", "tests", "--out", "-", "--players", "Ann", "Bob", "--dealer", "Bob"],
     "--video tests is a folder"),
    (["hands", "--video", "CLIP", "--headless", "--out", "-", "--window", "3", "--agree", "5"],
     "agree must be 1 to window"),
    (["hands", "--video", "CLIP", "--headless", "--out", "-", "--model", "/no/models"],
     "no card-reading model in /no/models (finder.onnx and classifier.onnx missing)"),
])
def test_cribcam_live_usage_errors_are_one_line(clip, args, words):
    result = live(*[str(clip[0]) if a == "CLIP" else a for a in args])
    assert result.returncode == 2
    assert words in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("job", [["hands", "--headless"], ["play", "--players", "Ann", "Bob", "--dealer", "Bob"]])
def test_a_video_cut_short_or_not_a_video_is_said_in_cribcams_words_alone(clip, shipped_models, tmp_path, job):
    cut = tmp_path / "cut.y4m"  # its header and part of its first frame
    cut.write_bytes(clip[0].read_bytes()[:100_000])
    result = live(*job, "--video", str(cut), "--out", "-", "--model", str(shipped_models))
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == f"cribcam live: error: no frame could be read from video {cut}: the file is cut " \
                            f"short or not a video OpenCV can read\n"
    text = tmp_path / "notes.mp4"
    text.write_text("hello\n")
    result = live(*job, "--video", str(text), "--out", "-", "--model", str(shipped_models))
    assert result.returncode == 2
    assert result.stderr == (f"cribcam live: error: cannot open video {text}: it is not a video OpenCV can read "
                             f"(.y4m, .mp4, .avi...)\n")  # and no FFmpeg "moov atom not found"


def test_cribcam_live_with_a_damaged_model_says_so(clip, tmp_path):
    model = tmp_path
    for name in ("finder.onnx", "classifier.onnx"):
        (model / name).write_bytes(b"not a model")
    result = live("hands", "--video", str(clip[0]), "--headless", "--out", "-", "--model", str(model))
    assert result.returncode == 2
    assert f"the model {model} could not be loaded" in result.stderr
    assert "Traceback" not in result.stderr


# --- where OpenCV opens no window (the base install): the live page in the browser ---------


def _options(*args: str):
    from cribcam.cli.main import build_parser

    return build_parser().parse_args(["live", "hands", *args])


def test_without_a_window_cribcam_live_shows_the_live_page(monkeypatch):
    from cribcam.cli.live import mode
    from cribcam.cli.main import UsageError

    monkeypatch.setattr(desktop, "window_available", lambda: False)
    assert mode(_options()) == "browser"
    assert mode(_options("--camera", "1", "--crib")) == "browser"
    assert mode(_options("--video", "v.y4m", "--headless", "--out", "-")) == "headless"
    with pytest.raises(UsageError, match="--video plays in a window, and this OpenCV build cannot open"):
        mode(_options("--video", "v.y4m"))
    with pytest.raises(UsageError, match="add --headless"):
        mode(_options("--out", "hands.jsonl"))
    monkeypatch.setattr(desktop, "window_available", lambda: True)
    assert mode(_options()) == "window" and mode(_options("--out", "-")) == "window"
    assert mode(_options("--browser")) == "browser"
    with pytest.raises(UsageError, match="choose one"):
        mode(_options("--browser", "--headless", "--out", "-"))


def test_no_window_and_no_browser_is_tried_without_a_display(monkeypatch):
    # Qt's OpenCV aborts the whole process when asked for a window with no display; a console
    # browser would take over the terminal the server prints to.
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "BROWSER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    assert desktop.window_available() is False
    assert desktop.open_in_browser("http://127.0.0.1:8000/live") is False


def test_cribcam_live_serves_the_live_page_and_opens_it_in_the_browser(tmp_path):
    import os

    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.py"  # a browser that loads the page and notes what it got
    browser.write_text("import pathlib, sys, urllib.request\n"
                       "with urllib.request.urlopen(sys.argv[1], timeout=60) as page:\n"
                       "    script = '/static/live.js' in page.read().decode()\n"
                       "pathlib.Path(sys.argv[2]).write_text(f'{sys.argv[1]} {page.status} {script}')\n")
    env = {**os.environ, "BROWSER": f"{sys.executable} {browser} %s {opened}"}
    env.pop("DISPLAY", None), env.pop("WAYLAND_DISPLAY", None)  # no window: the base install's case
    (tmp_path / "no-model").mkdir()  # an empty model folder: quick, and the page works all the same
    process = subprocess.Popen([sys.executable, "-m", "cribcam", "live", "hands", "--port", "0", "--crib",
                                "--model", str(tmp_path / "no-model")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        first = process.stdout.readline()
        assert first.startswith("cribcam live: http://127.0.0.1:"), first + process.stderr.read()
        url = first.split()[2]
        assert process.stdout.readline().strip() == \
            f"cribcam live: the live page is {url}live: opening it in the browser"
        wait_until(lambda: opened.exists() and opened.read_text(), timeout=60, step=0.1,
                   message="the browser was not opened on the page")
        assert opened.read_text() == f"{url}live 200 True"
    finally:
        err = stop_with_ctrl_c(process)
    assert "--crib: chosen on the live page itself" in err and "Traceback" not in err


def test_a_camera_that_cannot_open_is_said_in_cribcams_words_alone():
    result = live("hands", "--camera", "37", "--headless", "--out", "-")
    assert result.returncode == 2
    assert result.stderr.strip() == ("cribcam live: error: cannot open camera 37: no such camera, or another "
                                     "program is using it")  # and no OpenCV [ WARN ] lines
