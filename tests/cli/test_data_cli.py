"""`cribcam data`: options it cannot follow, or would ignore, refused in one line before any work."""

import json
import subprocess
import sys

import pytest

from cribcam.cli.main import main
from processes import ctrl_c_from_terminal


@pytest.mark.parametrize("args, words", [
    (["preview", "SET", "--out", "OUT/sheet.png", "--tile", "0"], "--tile must be at least 64 pixels, not 0"),
    (["build", "--out", "OUT", "--images", "2", "--seed", "1", "--split", "heldout", "--val-fraction", "0.2"],
     "--val-fraction splits a train build: a heldout build is all test, so leave it out"),
    (["clip", "--out", "OUT/c.y4m", "--seed", "-5", "--hands", "1"], "--seed must be 0 or more"),
    (["clip", "--out", "OUT/c.y4m", "--seed", "-5", "--play", "2"], "--seed must be 0 or more"),
    (["clip", "--out", "OUT/c.y4m", "--play", "2", "--hands", "2"],
     "--hands is for a clip of hands: with --play each player is dealt 4 cards, so leave --hands out"),
    # cribcam live play counts a card laid after 0.5 s still: at 5 fps its first frame and 3 more.
    (["clip", "--out", "OUT/c.y4m", "--play", "2", "--seconds", "0.3", "--fps", "5"],
     "--seconds must be at least 0.8 at 5 fps, not 0.3: cribcam live play counts a card laid once it has "
     "lain still 0.5 s"),
    (["clip", "--out", "OUT/c.y4m", "--play", "3", "--seconds", "0.5"], "--seconds must be at least 0.6 at 10 fps"),
])
def test_a_data_option_that_cannot_be_followed_is_refused_in_one_line(tmp_path, capsys, args, words):
    argv = [a.replace("OUT", str(tmp_path / "out")).replace("SET", str(tmp_path / "set")) for a in args]
    assert main(["data", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and words in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out" / "c.y4m").exists()


def test_a_build_of_a_design_the_split_lacks_names_the_designs_it_has(tmp_path, capsys):
    assert main(["data", "build", "--out", str(tmp_path / "out"), "--images", "2", "--seed", "1",
                 "--split", "heldout", "--decks", "gnome-bellot", "gnome-anglo"]) == 2
    # Refused from the manifest, before any deck is rendered or the folder made.
    err = capsys.readouterr().err
    assert "no heldout design named gnome-anglo: the heldout designs are gnome-bellot, " in err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "out").exists()


def test_a_build_of_chosen_designs_draws_only_them(tmp_path, capsys, deck_designs):
    out = tmp_path / "out"
    assert main(["data", "build", "--out", str(out), "--images", "3", "--seed", "1", "--workers", "1",
                 "--split", "heldout", "--decks", "aisleriot-pixelangelo"]) == 0
    assert "from 1 heldout deck" in capsys.readouterr().out
    assert {json.loads(p.read_text())["deck"] for p in (out / "meta").rglob("*.json")} == {"aisleriot-pixelangelo"}


def test_a_hold_just_long_enough_is_taken(tmp_path, capsys):
    # 0.6 s at 10 fps holds a card still 0.5 s after its first frame: past the hold's check, to
    # the photos' (here none).
    assert main(["data", "clip", "--out", str(tmp_path / "c.y4m"), "--play", "2", "--seconds", "0.6",
                 "--photos", str(tmp_path / "none")]) == 2
    assert "no labels.json there" in capsys.readouterr().err


def test_ctrl_c_stops_a_build_in_one_line_and_the_set_is_said_unfinished(tmp_path):
    """A terminal's Ctrl-C reaches the build and each of its workers."""
    out = tmp_path / "set"
    command = [sys.executable, "-m", "cribcam", "data", "build", "--out", str(out), "--images", "400",
               "--seed", "1", "--workers", "2", "--imgsz", "320"]
    build = ctrl_c_from_terminal(command, lambda: any((out / "images").rglob("*.jpg")))  # the workers writing
    assert build.returncode == 130
    said = f"stopped: the set in {out} is unfinished; build it again with --force"
    assert build.stderr.splitlines()[-1] == said, build.stderr[-2000:]
    assert not [word for word in ("Traceback", "KeyboardInterrupt", "ForkPoolWorker") if word in build.stderr]
    again = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert again.returncode == 2 and "an unfinished data set" in again.stderr
