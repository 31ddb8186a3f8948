"""The desktop live mode on the test clip: `cribcam live --video clip.y4m --headless --out`."""

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

COUNT_OPTIONS = {"starter": None, "crib": False, "claim": None, "variant": "six-card"}


def live(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cribcam", "live", *args], capture_output=True,
                          text=True, timeout=300)


class TruthReader:
    """Reads each frame of the clip as its record says: the hand when one lies still, and
    some of the cards, as a reader might guess them, while the hand is moved."""

    def __init__(self, record: dict):
        self.record, self.frame = record, -1
        self.rng = np.random.default_rng(0)

    def read(self, image) -> Reading:
        self.frame += 1
        for hand in self.record["hands"]:
            if hand["first_frame"] <= self.frame <= hand["last_frame"]:
                codes, starter = hand["hand"] + [hand["starter"]], hand["starter"]
                break
        else:
            every = [c for h in self.record["hands"] for c in h["hand"] + [h["starter"]]]
            codes, starter = list(self.rng.choice(every, int(self.rng.integers(0, 4)), replace=False)), None
        cards = tuple(SeenCard(code, 0.9, ((10.0 * i, 10.0, 10.0 * i + 8, 20.0),))
                      for i, code in enumerate(codes))
        return Reading(cards, starter, (), image.shape[1], image.shape[0])


def test_the_clip_followed_with_a_perfect_reader_locks_each_hand_in_order(clip):
    path, record = clip
    capture = cv2.VideoCapture(str(path))
    try:
        hands = list(desktop.follow(desktop.frames(capture), TruthReader(record).read, HandLock(),
                                    capture.get(cv2.CAP_PROP_FPS), COUNT_OPTIONS))
    finally:
        capture.release()
    # Each hand locks on its fifth still frame (5 of the last 8 agree), and only once.
    assert [hand.frame for hand in hands] == [h["first_frame"] + 4 for h in record["hands"]]
    assert [hand.seconds for hand in hands] == [(h["first_frame"] + 4) / 10 for h in record["hands"]]
    assert [hand.report["count"]["total"] for hand in hands] == [h["total"] for h in record["hands"]]


def test_cribcam_live_headless_runs_a_clip_through_a_real_model(heldout_decks, reader_models, tmp_path):
    # A short small clip: the tiny test model reads a frame in many tiles of its small input.
    path = tmp_path / "short.y4m"
    record = write_clip(path, ClipSpec(hands=2, hold_seconds=0.6, transition_frames=2, width=320,
                                       height=240, seed=2), heldout_decks)
    out = tmp_path / "results.jsonl"
    result = live("--video", str(path), "--headless", "--out", str(out), "--model", str(reader_models))
    assert result.returncode == 0, result.stderr
    assert out.is_file() and "Traceback" not in result.stderr
    for line in out.read_text().splitlines():  # the tiny model may lock onto nothing at all
        locked = json.loads(line)
        assert {"frame", "seconds", "cards", "starter", "problems", "count"} <= set(locked)
        assert 0 <= locked["frame"] < record["frames"] == 14


def test_cribcam_live_headless_writes_the_clips_hands_in_order(clip, shipped_models, tmp_path):
    path, record = clip
    out = tmp_path / "results.jsonl"
    result = live("--video", str(path), "--headless", "--out", str(out), "--model", str(shipped_models))
    assert result.returncode == 0, result.stderr
    locked = [json.loads(line) for line in out.read_text().splitlines()]
    assert [sorted(c["card"] for c in hand["cards"]) for hand in locked] == \
        [sorted(h["hand"] + [h["starter"]]) for h in record["hands"]]
    assert [hand["count"]["total"] for hand in locked] == [h["total"] for h in record["hands"]]
    for hand, truth in zip(locked, record["hands"]):
        assert truth["first_frame"] <= hand["frame"] <= truth["last_frame"]


@pytest.mark.parametrize("args,words", [
    (["--video", "clip.y4m", "--headless"], "--headless needs --out"),
    (["--video", "/no/such/clip.y4m", "--headless", "--out", "-"], "no such video: /no/such/clip.y4m"),
    (["--video", "CLIP", "--headless", "--out", "-", "--window", "3", "--agree", "5"],
     "agree must be 1 to window"),
    (["--video", "CLIP", "--headless", "--out", "-", "--model", "/no/models"],
     "no card-reading model in /no/models (finder.onnx and classifier.onnx missing)"),
])
def test_cribcam_live_usage_errors_are_one_line(clip, args, words):
    result = live(*[str(clip[0]) if a == "CLIP" else a for a in args])
    assert result.returncode == 2
    assert words in result.stderr and "Traceback" not in result.stderr


def test_cribcam_live_with_a_damaged_model_says_so(clip, tmp_path):
    model = tmp_path
    for name in ("finder.onnx", "classifier.onnx"):
        (model / name).write_bytes(b"not a model")
    result = live("--video", str(clip[0]), "--headless", "--out", "-", "--model", str(model))
    assert result.returncode == 2
    assert f"the model {model} could not be loaded" in result.stderr
    assert "Traceback" not in result.stderr
