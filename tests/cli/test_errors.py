"""Mistakes said plainly: one line on standard error, or JSON on standard output with --json;
exit status 2 either way, never a traceback."""

import json
import os
import subprocess
import sys

import pytest

from cribcam.cli.main import main

PHOTO = "tests/data/photos/webcam-5-cards.jpg"


def cribcam(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cribcam", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("args, message", [
    (["count", "ZZ", "5C", "5S", "JD", "--starter", "5D"], "'ZZ' is not a card"),
    (["count", "5H", "5C", "5S", "JD", "--starter", "5D", "--claim", "lots"],
     "argument --claim: must be a whole number of points from 0 to 1000, not lots"),
    (["count", "5H", "5C", "5S", "JD"], "required: --starter"),
    (["peg", "A:K", "B:zz"], "'zz' is not a card"),
    (["read", "no-such-photo.jpg"], "no such file: no-such-photo.jpg"),
    (["read", PHOTO, "--model", "/no/model"], "/no/model"),
    (["eval", "--images", "tests/data/photos", "--labels", "tests/data/photos/labels.json",
      "--only", "no-such-list.txt"], "--only no-such-list.txt cannot be read: No such file or directory"),
])
def test_with_json_an_error_is_json_on_stdout_with_exit_2(args, message):
    result = cribcam(*args, "--json")
    assert result.returncode == 2
    assert result.stderr == ""
    error = json.loads(result.stdout)
    assert list(error) == ["error"] and message in error["error"]


def test_without_json_the_same_error_is_one_line_on_stderr():
    result = cribcam("count", "ZZ", "5C", "5S", "JD", "--starter", "5D")
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("cribcam count: error: 'ZZ' is not a card")
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.fixture
def no_model_installed(monkeypatch):
    """A reader that finds no bundled model: the same whether or not models/ ships one."""
    from cribcam.vision import ModelMissingError

    def missing(model=None, *args, **kwargs):
        raise ModelMissingError(f"no model at {model or 'models/'}")

    monkeypatch.setattr("cribcam.vision.CardReader", missing)


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_read_with_no_model_installed_says_so(no_model_installed, capsys, json_flag):
    assert main(["read", PHOTO, *json_flag]) == 2
    out, err = capsys.readouterr()
    said = json.loads(out)["error"] if json_flag else err
    assert "no card-reading model is installed" in said
    assert "Traceback" not in out + err


# ---- what a command writes: a folder made for it, or why it cannot be written ---------------


def test_what_a_command_writes_goes_into_a_folder_made_for_it(tmp_path, capsys, shipped_models):
    # As `cribcam data build --out` and `data clip --out` have always made theirs.
    db = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    assert main(["game", "new", "--players", "Ann", "Bob", "--db", db]) == 0
    game_id = capsys.readouterr().out.strip()
    exported = tmp_path / "games" / "game.json"
    assert main(["game", "export", game_id, "--db", db, "--out", str(exported)]) == 0
    assert json.loads(exported.read_text())["id"] == game_id
    names = tmp_path / "names" / "names.json"
    assert main(["teach", PHOTO, "--name", "mine", "--model", str(shipped_models), "--write-labels", str(names)]) == 0
    assert list(json.loads(names.read_text())) == ["webcam-5-cards.jpg"]
    annotated = tmp_path / "read" / "hand.png"
    assert main(["read", PHOTO, "--model", str(shipped_models), "--annotate", str(annotated)]) == 0
    assert annotated.is_file()
    assert main(["game", "export", game_id, "--db", db, "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.endswith(f"error: --out {tmp_path} is a folder: name a file to write\n")


@pytest.mark.parametrize("args, option", [
    (["data", "build", "--out", "FILE/set", "--images", "1", "--seed", "0"], "--out FILE/set"),
    (["data", "real", "--src", "tests/data/photos", "--out", "FILE/set"], "--out FILE/set"),
    (["data", "clip", "--out", "FILE/clips/hands.y4m"], "--out FILE/clips"),
    (["data", "preview", "tests/data/photos", "--out", "FILE/sheets/sheet.png"], "--out FILE/sheets"),
    (["eval", "--images", "tests/data/photos", "--labels", "tests/data/photos/labels.json", "--sheet", "FILE/misread"],
     "--sheet FILE/misread"),
])
def test_a_place_that_cannot_be_written_is_said_in_one_line(tmp_path, capsys, args, option):
    in_the_way = tmp_path / "notes.txt"  # a file where the folder to write in would be made
    in_the_way.write_text("mine\n")
    assert main([arg.replace("FILE", str(in_the_way)) for arg in args]) == 2
    err = capsys.readouterr().err
    assert err.endswith(f"error: {option.replace('FILE', str(in_the_way))}: the folder cannot be made "
                        f"(Not a directory)\n") and len(err.splitlines()) == 1


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full to stand for a full disk")
def test_a_full_disk_is_said_in_one_line(tmp_path):
    """/dev/full answers every write "no space left on device", as a full disk does (issue 46:
    a traceback from `count` to standard output, `game export --out`, `live --out`...)."""
    env = {**os.environ, "CRIBCAM_DB": f"sqlite:///{tmp_path / 'games.sqlite3'}"}
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "cribcam", "count", "5H", "5C", "5S", "JD", "--starter", "5D"],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (2, "cribcam count: error: could not write the output: No space "
                                                 "left on device (make room, then run it again)\n")
    game_id = subprocess.run([sys.executable, "-m", "cribcam", "game", "new", "--players", "Ann", "Bob"], env=env,
                             capture_output=True, text=True, timeout=120).stdout.strip()
    done = subprocess.run([sys.executable, "-m", "cribcam", "game", "export", game_id, "--out", "/dev/full"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (2, "cribcam game: error: could not write the output: No space "
                                                 "left on device (make room, then run it again)\n")
