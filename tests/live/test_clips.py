"""Test clips: a valid Y4M of hands held still with blurred moves between, and its record."""

from __future__ import annotations

import json
import shutil

import cv2
import numpy as np
import pytest

from cribcam.cli.main import main
from cribcam.datagen.clips import ClipSpec, record_path, render_clip, write_clip
from cribcam.scoring import score_hand


def y4m_frames(path) -> tuple[str, list[bytes]]:
    """The header line and the raw frames of a Y4M file, checking its layout on the way."""
    data = path.read_bytes()
    header, _, rest = data.partition(b"\n")
    fields = dict((f[:1], f[1:]) for f in header.split()[1:])
    size = int(fields[b"W"]) * int(fields[b"H"]) * 3 // 2
    frames = []
    while rest:
        assert rest.startswith(b"FRAME\n"), f"frame {len(frames)} has no FRAME marker"
        frames.append(rest[6:6 + size])
        assert len(frames[-1]) == size, "the last frame is cut short"
        rest = rest[6 + size:]
    return header.decode(), frames


def sharpness(image: np.ndarray) -> float:
    return float(cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())


def test_the_clip_is_a_valid_y4m_with_the_frames_its_spec_says(clip):
    path, record = clip
    header, frames = y4m_frames(path)
    assert header == "YUV4MPEG2 W640 H480 F10:1 Ip A1:1 C420jpeg"
    # Three hands of 3 s at 10 fps, four blurred frames between them (conftest.CLIP).
    assert len(frames) == record["frames"] == 3 * 30 + 2 * 4
    assert json.loads(record_path(path).read_text()) == record


def test_opencv_plays_it_at_its_size_and_rate(clip):
    path, record = clip
    capture = cv2.VideoCapture(str(path))
    try:
        assert capture.get(cv2.CAP_PROP_FPS) == 10.0
        shapes = []
        while (frame := capture.read())[0]:
            shapes.append(frame[1].shape)
    finally:
        capture.release()
    assert shapes == [(480, 640, 3)] * record["frames"]


def test_the_record_says_which_hand_lies_there_when(clip):
    _, record = clip
    hands = record["hands"]
    assert [(h["first_frame"], h["last_frame"]) for h in hands] == [(0, 29), (34, 63), (68, 97)]
    assert record["transitions"] == [[30, 33], [64, 67]]
    cards = [c for h in hands for c in h["hand"] + [h["starter"]]]
    assert len(cards) == len(set(cards)) == 15  # dealt from one deck: no card twice
    for hand in hands:
        assert len(hand["hand"]) == 4
        score = score_hand(hand["hand"], hand["starter"])
        assert (hand["total"], hand["spoken"]) == (score.total, score.spoken)
    assert record["deck_split"] == "heldout" and record["seed"] == 0


def test_every_card_lies_in_the_frame_with_its_corners_labelled(clip):
    _, record = clip
    for hand in record["hands"]:
        scene = hand["scene"]
        assert (scene["width"], scene["height"]) == (640, 480)
        shown = {c["code"]: c for c in scene["cards"]}
        assert set(shown) == set(hand["hand"] + [hand["starter"]])
        for card in shown.values():
            points = np.array(card["polygon"])
            assert (points >= 0).all() and (points[:, 0] <= 640).all() and (points[:, 1] <= 480).all()
            assert card["readable"] and card["visible_fraction"] > 0.95
        labelled = {label["code"] for label in scene["labels"]}
        assert labelled == set(shown)
        for label in scene["labels"]:
            x1, y1, x2, y2 = label["box"]
            assert 0 <= x1 < x2 <= 640 and 0 <= y1 < y2 <= 480


def test_a_held_hand_only_flickers_and_a_move_is_a_blur(clip):
    path, record = clip
    capture = cv2.VideoCapture(str(path))
    frames = []
    while (frame := capture.read())[0]:
        frames.append(frame[1].astype(np.int16))
    capture.release()
    first, second = frames[0], frames[1]
    assert 0 < np.abs(first - second).mean() < 5  # sensor noise, nothing else
    held = sharpness(frames[10].astype(np.uint8))
    for start, end in record["transitions"]:
        for moving in frames[start:end + 1]:
            assert sharpness(moving.astype(np.uint8)) < held / 3


def test_the_same_seed_gives_the_same_clip(heldout_decks):
    spec = ClipSpec(hands=2, hold_seconds=0.2, transition_frames=1, seed=5)
    frames_a, record_a = render_clip(spec, heldout_decks)
    frames_b, record_b = render_clip(spec, heldout_decks)
    assert record_a == record_b and len(frames_a) == spec.frames == 5
    assert all(np.array_equal(a, b) for a, b in zip(frames_a, frames_b))
    assert record_a["hands"][0]["hand"] != render_clip(ClipSpec(hands=1, hold_seconds=0.1, seed=6),
                                                       heldout_decks)[1]["hands"][0]["hand"]


@pytest.mark.parametrize("spec,words", [
    (ClipSpec(hands=0), "1 to 10 hands"),
    (ClipSpec(hands=11), "1 to 10 hands"),
    (ClipSpec(hold_seconds=0.01), "a frame at least"),
    (ClipSpec(transition_frames=-1), "0 or more"),
    (ClipSpec(width=480, height=640), "landscape"),
    (ClipSpec(width=641), "even sizes"),
])
def test_specs_no_clip_can_follow_are_refused(spec, words):
    with pytest.raises(ValueError, match=words):
        spec.check()


def test_only_y4m_is_written(tmp_path, heldout_decks):
    with pytest.raises(ValueError, match="name the file .y4m"):
        write_clip(tmp_path / "clip.mp4", ClipSpec(hands=1, hold_seconds=0.1), heldout_decks)


def test_cribcam_data_clip_writes_the_clip_and_says_what_is_in_it(tmp_path, heldout_decks, capsys):
    out = tmp_path / "two.y4m"
    assert main(["data", "clip", "--out", str(out), "--hands", "2", "--seconds", "0.3",
                 "--transition-frames", "2", "--size", "320x240", "--seed", "3"]) == 0
    printed = capsys.readouterr().out
    record = json.loads(record_path(out).read_text())
    header, frames = y4m_frames(out)
    assert header.startswith("YUV4MPEG2 W320 H240 F10:1") and len(frames) == 8 == record["frames"]
    assert f"8 frames at 10 fps, 320x240, deck {record['deck']}" in printed
    first = record["hands"][0]
    assert f"{' '.join(first['hand'])}, starter {first['starter']}: {first['total']}" in printed


@pytest.mark.parametrize("args,words", [
    (["--size", "big"], "--size must be WIDTHxHEIGHT"),
    (["--hands", "0"], "1 to 10 hands"),
    (["--out", "clip.mp4"], "--out must name a .y4m file"),
])
def test_cribcam_data_clip_usage_errors(tmp_path, capsys, args, words):
    argv = ["data", "clip", "--out", str(tmp_path / "c.y4m"), *args]
    if args[0] == "--out":
        argv = ["data", "clip", "--out", str(tmp_path / args[1])]
    assert main(argv) == 2
    assert words in capsys.readouterr().err


# --- the deck art a clip needs, said before it is rendered -----------------------------------


def test_the_plan_reads_what_the_deck_cache_lacks(tmp_path, monkeypatch):
    from cribcam.datagen import card_art as decks
    from cribcam.datagen.assets import deck_art_plan

    plan = deck_art_plan("heldout", tmp_path)
    heldout = [e for e in decks.load_manifest()["decks"] if e["split"] == "heldout"]
    assert plan.decks == tuple(e["name"] for e in heldout) and plan.cache == tmp_path
    assert plan.missing == ()  # the card packages and rsvg-convert are installed
    sentence = plan.sentence("the clip shows held-out designs")
    assert sentence == (f"the clip shows held-out designs: {len(heldout)} of them are not in the deck "
                        f"cache yet ({', '.join(plan.decks)}), so this run renders every card with "
                        f"rsvg-convert into {tmp_path} (a minute or two, once; later runs take them "
                        f"from there)")
    monkeypatch.setattr(decks, "PACKAGE_ROOT", tmp_path / "nothing-installed")
    assert deck_art_plan("heldout", tmp_path).missing == (("gnome-cards-data", "gnome-cards-data"),
                                                          ("kdegames-card-data-kf5", "kdegames-card-data-kf5"))
    for entry in heldout:  # rendered: nothing to do, nothing said, no package needed
        folder = tmp_path / "render" / entry["name"] / "w240"
        folder.mkdir(parents=True)
        (folder / "meta.json").write_text(json.dumps({"render_version": decks.RENDER_VERSION,
                                                      "path": entry["path"]}))
    assert deck_art_plan("heldout", tmp_path) is None


def test_cribcam_data_clip_says_what_it_renders_once_before_it_starts(heldout_decks, tmp_path,
                                                                       monkeypatch, capsys):
    from cribcam.datagen import card_art as decks

    said_before = []

    def load_decks(split=None, **options):  # stands in for the minute and a half of rendering
        said_before.append(capsys.readouterr().err)
        return heldout_decks

    monkeypatch.setattr(decks, "load_decks", load_decks)
    monkeypatch.setenv("CRIBCAM_CACHE", str(tmp_path / "empty-cache"))
    clip = ["data", "clip", "--out", str(tmp_path / "c.y4m"), "--hands", "1", "--seconds", "0.2"]
    assert main(clip) == 0
    assert said_before[0].count("\n") == 1 and said_before[0].startswith(
        "cribcam data clip: the clip shows cards of the held-out deck designs")
    assert "renders every card with rsvg-convert" in said_before[0]
    assert "not in the deck cache yet" not in capsys.readouterr().err  # once

    monkeypatch.setattr(shutil, "which", lambda tool: None if tool == "rsvg-convert" else "/usr/bin/" + tool)
    assert main(clip) == 2
    err = capsys.readouterr().err
    assert "rsvg-convert is needed for that (sudo apt-get install librsvg2-bin)" in err
    assert len(said_before) == 1  # refused before anything was rendered

    monkeypatch.setattr(decks, "PACKAGE_ROOT", tmp_path / "nothing-installed")  # nor the card packages
    assert main(clip) == 2
    assert ("rsvg-convert, gnome-cards-data, kdegames-card-data-kf5 are needed for that (sudo apt-get "
            "install librsvg2-bin gnome-cards-data kdegames-card-data-kf5)") in capsys.readouterr().err
    assert len(said_before) == 1
