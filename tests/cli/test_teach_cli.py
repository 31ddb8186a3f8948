"""`cribcam teach`, `cribcam decks` and `--deck`: from photos on disk to reading with the deck."""

import json
import subprocess
import sys

import cv2
import numpy as np
import pytest

from cribcam.settings import DATA_ENV

PHOTO = "tests/data/photos/webcam-5-cards.jpg"


@pytest.fixture
def cribcam(tmp_path):
    """Runs `cribcam ARGS` with its own empty data folder."""
    env = {**__import__("os").environ, DATA_ENV: str(tmp_path / "data")}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "cribcam", *map(str, args)], capture_output=True, text=True,
                              timeout=600, env=env)
    return run


@pytest.mark.parametrize("args, message", [
    (["teach", PHOTO, "--name", "../escape"], "'../escape' cannot name a deck"),
    (["teach", PHOTO, "--name", "a/b", "--order", "suits-in-rows"], "'a/b' cannot name a deck"),
    (["teach", "no-such.jpg", "--name", "mine", "--order", "suits-in-rows"], "no such file: no-such.jpg"),
    (["teach", "tests/data", "--name", "mine", "--order", "suits-in-rows"],
     "tests/data is a folder: give its photos, e.g. tests/data/*.jpg"),
    (["teach", PHOTO, PHOTO, PHOTO, PHOTO, PHOTO, "--name", "mine", "--order", "suits-in-rows"],
     "two photos have the same file name"),
    (["teach", PHOTO, "--name", "mine", "--suits", "H"], "--suits goes with --order"),
    (["teach", PHOTO, "--name", "mine", "--order", "suits-in-rows", "--suits", "HH"], "once"),
    (["teach", PHOTO, "--name", "mine", "--labels", "tests/data/photos/labels.json", "--order", "suits-in-rows"],
     "one way"),
    (["teach", PHOTO, "--name", "mine", "--labels", "tests/data/photos/ATTRIBUTION.txt"], "cannot read labels"),
    (["teach", PHOTO, "--name", "mine", "--order", "suits-in-rows", "--model", "tests/data/photos"],
     "a deck cannot be taught here: no card-reading model in tests/data/photos"),
    (["teach", PHOTO, "--name", "mine", "--order", "suits-in-rows", "--letters", "Q"],
     "--letters takes RANK=TEXT, like Q=V, not 'Q'"),
    (["teach", PHOTO, "--name", "mine", "--order", "suits-in-rows", "--letters", "X=V"], "'X' is no rank"),
    (["teach", PHOTO, "--name", "mine", "--order", "suits-in-rows", "--letters", "Q=vv"],
     "'vv' is not a rank's letter"),
    (["decks", "remove"], "name the deck to remove"),
    (["decks", "remove", "nothing"], "no taught deck named 'nothing'; taught decks: none yet"),
    (["read", PHOTO, "--deck", "nothing"], "no taught deck named 'nothing'"),
    (["serve", "--deck", "nothing"], "no taught deck named 'nothing'"),
    (["eval", "--images", "tests/data/photos", "--labels", "tests/data/photos/labels.json", "--deck", "../x"],
     "cannot name a deck"),
])
def test_mistakes_are_one_line_with_exit_2(cribcam, args, message):
    result = cribcam(*args)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr


def test_a_photo_with_no_card_in_it_is_said_so_not_how_to_confirm_names(cribcam, shipped_models, tmp_path):
    blank = tmp_path / "blank.jpg"
    cv2.imwrite(str(blank), np.full((900, 1200, 3), 235, np.uint8))
    result = cribcam("teach", blank, "--name", "blank", "--model", shipped_models)
    assert result.returncode == 2
    assert result.stdout == "blank.jpg: 0 cards: none found\n"
    assert result.stderr == ("cribcam teach: error: no card was found in blank.jpg: photograph the cards face up "
                             "on a plain table, their corners in sight, and teach from those photos\n")


def test_with_no_decks_the_listing_says_how_to_teach_one(cribcam, tmp_path):
    result = cribcam("decks")
    assert result.returncode == 0
    assert f"no taught decks in {tmp_path / 'data' / 'decks'}" in result.stdout
    assert json.loads(cribcam("decks", "--json").stdout)["decks"] == []


@pytest.fixture(scope="module")
def layout_files(tmp_path_factory, heldout_decks):
    """Two rendered layout photos of a held-out design (clubs, hearts), a photo of its queen of
    spades alone, and their labels file (the queen named without a box)."""
    from cribcam.datagen.layout_photos import render_layout

    deck = heldout_decks[1]
    folder = tmp_path_factory.mktemp("layouts")
    labels = {}
    for k, suit in enumerate("CH"):
        image, boxes = render_layout(deck, suit, seed=20 + k)
        cv2.imwrite(str(folder / f"{suit}.jpg"), image)
        labels[f"{suit}.jpg"] = {"cards": [{"card": b.code, "box": [round(v, 1) for v in b.box]} for b in boxes]}
    image, boxes = render_layout(deck, "S", seed=22)
    queen = np.array([b.box for b in boxes if b.code == "QS"])
    size = (queen[:, 2:] - queen[:, :2]).max()
    x1, y1 = (queen[:, :2].min(axis=0) - size).astype(int).clip(0)
    x2, y2 = (queen[:, 2:].max(axis=0) + size).astype(int)
    cv2.imwrite(str(folder / "queen.jpg"), image[y1:y2, x1:x2])
    labels["queen.jpg"] = {"cards": [{"card": "QS", "box": None}]}
    (folder / "labels.json").write_text(json.dumps(labels))
    return folder


def test_without_names_confirmed_it_shows_the_proposals_and_does_not_teach(cribcam, shipped_models, layout_files,
                                                                            tmp_path):
    result = cribcam("teach", layout_files / "C.jpg", "--name", "mine", "--model", shipped_models)
    assert result.returncode == 2
    assert result.stdout.startswith("C.jpg: ") and "Still missing: " in result.stdout
    assert "confirm the names before teaching" in result.stderr
    written = tmp_path / "names.json"
    result = cribcam("teach", layout_files / "C.jpg", "--name", "mine", "--model", shipped_models,
                     "--order", "suits-in-rows", "--write-labels", written)
    assert result.returncode == 0, result.stderr
    assert list(json.loads(written.read_text())) == ["C.jpg"]
    assert not (tmp_path / "data" / "decks").exists()


def test_teach_then_read_with_the_deck_then_remove_it(cribcam, shipped_models, layout_files, tmp_path):
    result = cribcam("teach", layout_files / "C.jpg", layout_files / "H.jpg", layout_files / "queen.jpg",
                     "--name", "garden", "--labels", layout_files / "labels.json", "--model", shipped_models)
    assert result.returncode == 0, result.stderr
    assert "queen.jpg: 1 card: QS" in result.stdout  # a photo of one card, named without a box
    assert "Still missing: AD 2D" in result.stdout and " QS" not in result.stdout.split("Still missing")[1]
    assert "Checked on " in result.stdout and "your deck now reads " in result.stdout  # the held-back check
    assert "The usual decks still read as before (" in result.stdout or "Warning: the taught deck" in result.stdout
    assert "Its indices read " in result.stdout  # the lettering learnt
    assert "Taught the deck garden in " in result.stdout and "--deck garden" in result.stdout
    assert "teaching [" in result.stderr and " left" in result.stderr  # the progress bar

    listed = json.loads(cribcam("decks", "--json").stdout)["decks"]
    assert [(d["name"], d["cards"]) for d in listed] == [("garden", 27)]
    assert "garden" in cribcam("decks").stdout and "its indices read " in cribcam("decks").stdout

    read = cribcam("read", layout_files / "C.jpg", "--deck", "garden", "--model", shipped_models, "--json")
    assert read.returncode == 0, read.stderr
    assert "cards" in json.loads(read.stdout)

    again = cribcam("teach", layout_files / "C.jpg", "--name", "garden", "--labels", layout_files / "labels.json")
    assert again.returncode == 2 and "exists already" in again.stderr

    assert cribcam("decks", "remove", "garden").returncode == 0
    assert not (tmp_path / "data" / "decks" / "garden").exists()
    assert (layout_files / "C.jpg").is_file()  # the photos taught from are the player's: kept


def test_off_a_terminal_the_bar_shows_the_first_and_last_of_training_however_quick(capsys):
    from cribcam.cli.teach import _ProgressBar

    bar = _ProgressBar()  # capsys's standard error is no terminal
    bar("preparing", 0.0, 0.0)
    for done, total in [(1.0, 4.0), (2.0, 4.1), (3.0, 4.0000001), (4.0, 4.0)]:  # all within 15 s
        bar("training", done, total)
    bar("done", 1.0, 1.0)
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert lines[0] == "teaching: cutting the crops" and lines[-1] == "teaching: done"
    shown = [line.split("]")[1].split()[0] for line in lines[1:-1]]
    assert shown[0] in ("0%", "25%") and shown[-1] == "100%" and len(shown) <= 3, lines
    assert lines[-2].startswith("teaching [") and lines[-2].endswith(" left")


def _answers(monkeypatch, *given) -> list[str]:
    """The terminal answers ``given`` in turn (EOFError: the input ends); returns the prompts."""
    prompts, left = [], list(given)

    def reply(prompt):
        prompts.append(prompt)
        answer = left.pop(0)
        if answer is EOFError:
            raise EOFError
        return answer
    monkeypatch.setattr("builtins.input", reply)
    return prompts


def test_a_letter_question_at_a_terminal_takes_yes_no_or_a_letter_and_asks_again_otherwise(monkeypatch):
    from cribcam.cli.teach import _ask
    from cribcam.teach.alphabet import LetterQuestion

    question = LetterQuestion("Q", "V", learnt=True)
    for given, meant in [("y", "V"), ("Yes", "V"), ("n", "Q"), ("D", "D"), (EOFError, None)]:
        _answers(monkeypatch, given)
        assert _ask(question) == meant, given
    # Enter, words and a queen's "1" teach nothing: asked again until answered (issue 45)
    prompts = _answers(monkeypatch, "", "maybe", "1", "V")
    assert _ask(question) == "V"
    assert prompts == ["The queen's letter looks like V: does your deck print V for the queen, not Q? "
                       "[y/n, or the letter it prints] "] + ["Answer y/n, or the letter it prints: "] * 3
    _answers(monkeypatch, "", EOFError)
    assert _ask(question) is None  # the input ends: said as not sure by the caller


def test_a_letter_that_reads_as_none_is_asked_for_at_a_terminal(monkeypatch):
    from cribcam.cli.teach import _ask
    from cribcam.teach.alphabet import LetterQuestion

    question = LetterQuestion("Q", None, learnt=False)  # a Russian queen's Д: no letter the recognizer spells
    for given, meant in [("y", "Q"), ("Д", "Д")]:
        _answers(monkeypatch, given)
        assert _ask(question) == meant, given
    prompts = _answers(monkeypatch, "n", "", "дд", "Д")
    assert _ask(question) == "Д"
    assert prompts[0] == ("The queen's letter reads as none cribcam can spell: does your deck print Q for the "
                          "queen, or which letter? [y, or the letter it prints] ")
    assert prompts[1:] == ["Answer y, or the letter it prints: "] * 3


def test_a_letter_read_unclearly_offers_the_letter_it_looks_most_like(monkeypatch):
    from cribcam.cli.teach import _ask
    from cribcam.teach.alphabet import LetterQuestion

    # A Dutch queen's V, read too unclearly to be learnt: V and Q are offered, neither taken for Enter.
    question = LetterQuestion("Q", None, learnt=False, closest="V")
    prompts = _answers(monkeypatch, "", "V")
    assert _ask(question) == "V"
    assert prompts == ["The queen's letter reads unclearly, most like V: does your deck print V for the "
                       "queen, Q, or another letter? [V, Q, or the letter it prints] ",
                       "Answer V, Q, or the letter it prints: "]
    _answers(monkeypatch, "Q")
    assert _ask(question) == "Q"

