"""Clips of the play made of real photos of single cards (the shared real photos)."""

import json

import cv2
import numpy as np
import pytest

from cribcam.datagen.photo_play_clips import TABLE, render_photo_play_clip, single_card_photos
from cribcam.datagen.play_clips import PlaySpec
from cribcam.game.table_play import TablePlay

SPEC = PlaySpec(players=("Ann", "Bob"), hold_seconds=0.5, transition_frames=2, seed=4)


@pytest.fixture(scope="module")
def photos(real_photos):
    return single_card_photos(real_photos / "images", json.loads((real_photos / "labels.json").read_text()))


def test_only_photos_of_one_card_seen_from_above_with_both_corners_are_laid(tmp_path):
    for name in ("upright", "flat", "two", "one-corner"):
        cv2.imwrite(str(tmp_path / f"{name}.jpg"), np.zeros((64, 64, 3), np.uint8))
    corners = lambda card, *boxes: {"cards": [{"card": card, "box": box} for box in boxes]}  # noqa: E731 (a one-line stand-in, named for what it stands for)
    labels = {
        "upright.jpg": corners("5C", [10, 10, 20, 25], [40, 45, 50, 60]),
        "flat.jpg": corners("6C", [0, 20, 10, 30], [50, 25, 60, 35]),  # 60 wide, 15 high: edge-on
        "two.jpg": {"cards": [{"card": "5C", "box": [10, 10, 20, 25]}, {"card": "7D", "box": [40, 45, 50, 60]}]},
        "one-corner.jpg": corners("8S", [10, 10, 20, 25]),
        "missing.jpg": corners("9H", [10, 10, 20, 25], [40, 45, 50, 60]),  # no such file
    }
    photos = single_card_photos(tmp_path, labels)
    assert list(photos) == ["5C"]
    (photo,) = photos["5C"]
    assert photo.path.name == "upright.jpg" and photo.extent == (10, 10, 50, 60) and photo.index_side == 15


def test_each_card_laid_is_its_photo_in_front_of_its_player_in_the_order_of_play(photos):
    frames, record = render_photo_play_clip(SPEC, photos)
    assert len(frames) == record["frames"] and frames[0].shape == (SPEC.height, SPEC.width, 3)
    table = TablePlay(list(SPEC.players), record["dealer"], SPEC.hand_size)
    laid = []
    for step in record["steps"]:
        event = table.go(step["player"]) if "go" in step else table.lay(step["player"], step["card"])
        assert event.as_dict() == step["event"]
        if "card" in step:
            assert step["card"] in record["hands"][step["player"]] and step["card"] in record["photos"]
            laid.append(step)
    assert len(laid) == 2 * SPEC.hand_size
    # Ann leads in her row, above Bob's; Bob's card comes where the table lay bare.
    first, second = laid[0], laid[1]
    assert (first["player"], second["player"]) == ("Ann", "Bob")
    half = SPEC.height // 2
    on_table = np.abs(frames[first["frame"]].astype(int) - TABLE).sum(axis=2) > 60
    assert on_table[:half].sum() > 20 * max(1, on_table[half:].sum())
    changed = np.abs(frames[second["frame"]].astype(int) - frames[first["frame"]]).sum(axis=2) > 60
    assert changed[half:].sum() > 5 * changed[:half].sum()


def test_too_few_photos_for_the_cards_laid_is_said(photos):
    few = dict(list(photos.items())[:5])
    with pytest.raises(ValueError, match="need photos of 8 different cards, not 5"):
        render_photo_play_clip(SPEC, few)


def test_cribcam_data_clip_lays_real_photos_and_says_how_to_follow_them(tmp_path, real_photos, capsys):
    from cribcam.cli.main import main

    out = tmp_path / "play.y4m"
    assert main(["data", "clip", "--play", "2", "--photos", str(real_photos), "--out", str(out),
                 "--seconds", "0.6", "--transition-frames", "1", "--seed", "2"]) == 0  # as short as live follows
    printed = capsys.readouterr().out
    record = json.loads(out.with_suffix(".json").read_text())
    assert set(record["photos"]) == {card for hand in record["hands"].values() for card in hand}
    assert f"photos from {real_photos} -> {out}" in printed
    assert "cribcam live play --video" in printed and "--players Ann Bob --dealer Bob" in printed
    for step in record["steps"]:  # each step as it is said, a go's words once
        said = f"{step['card']}: {step['event']['said']}" if "card" in step else step["event"]["said"]
        assert f"frame {step['frame']:>4} {step['player']}: {said}\n" in printed
    assert ": go: go" not in printed
    header = out.open("rb").readline().split()
    assert b"W1280" in header and b"H960" in header  # as the live page sends the play's frames


@pytest.mark.parametrize("args,words", [
    (["--photos", "FOLDER"], "--photos lays the cards of a clip of the play: give --play PLAYERS too"),
    (["--play", "2", "--photos", "FOLDER"], "no labels.json there"),
    (["--play", "2", "--photos", "LISTED"], "labels.json does not say the cards of each photo"),
])
def test_cribcam_data_clip_says_what_is_wrong_with_its_photos(tmp_path, capsys, args, words):
    from cribcam.cli.main import main

    (tmp_path / "listed").mkdir()
    (tmp_path / "listed" / "labels.json").write_text("[1, 2]")
    folder = {"FOLDER": str(tmp_path / "none"), "LISTED": str(tmp_path / "listed")}
    argv = ["data", "clip", "--out", str(tmp_path / "c.y4m"), *(folder.get(a, a) for a in args)]
    assert main(argv) == 2
    assert words in capsys.readouterr().err
