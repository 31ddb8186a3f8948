"""`cribcam live`: a subcommand per job (`hands`, `play`), each with its own options and help,
the last release's spellings (`cribcam live ...`, `cribcam live --play ...`) taken with a note,
and its usage errors said in one line."""

from pathlib import Path

import pytest

from cribcam.cli import live
from cribcam.cli.main import build_parser, main

HANDS_NOTE = ("cribcam live: note: cribcam live ... is spelled cribcam live hands ... now; the old spelling "
              "works in this release only\n")
PLAY_NOTE = ("cribcam live: note: cribcam live --play ... is spelled cribcam live play ... now (no --play, "
             "no --headless); the old spelling works in this release only\n")
SHARED = ["--camera", "--video", "--out", "--model", "--deck"]


def parsed(capsys, *words: str):
    """`cribcam live WORDS...` parsed, and what parsing said on standard error."""
    args = build_parser().parse_args(["live", *words])
    return args, capsys.readouterr().err


def test_each_job_is_its_own_subcommand_and_says_nothing_more(capsys):
    hands, said = parsed(capsys, "hands", "--video", "hands.y4m", "--headless", "--out", "-", "--crib")
    assert (hands.command, hands.job, hands.handler, hands.video, hands.crib) == \
        ("live", "hands", live.run_hands, Path("hands.y4m"), True)
    assert said == ""
    play, said = parsed(capsys, "play", "--camera", "1", "--out", "-", "--players", "Ann", "Bob", "--dealer", "Bob")
    assert (play.job, play.handler, play.camera, play.players, play.dealer) == \
        ("play", live.run_play, 1, ["Ann", "Bob"], "Bob")
    assert said == "" and play.variant is None  # None until given: --game names its own


@pytest.mark.parametrize("job,own,others", [
    ("hands", ["--headless", "--browser", "--port", "--window", "--agree", "--starter", "--crib", "--claim"],
     ["--players", "--dealer", "--go", "--game", "--db", "--play"]),
    ("play", ["--players", "--dealer", "--go", "--game", "--db", "--variant"],
     ["--headless", "--browser", "--port", "--window", "--agree", "--starter", "--crib", "--claim", "--play"]),
])
def test_each_jobs_help_has_its_own_options_and_examples(capsys, job, own, others):
    with pytest.raises(SystemExit) as done:
        main(["live", job, "--help"])
    shown = capsys.readouterr().out
    assert done.value.code == 0 and shown.startswith(f"usage: cribcam live {job} ")
    assert all(f"{option} " in shown for option in SHARED + own)
    assert [option for option in others if f"{option} " in shown] == []
    assert f"examples: cribcam live {job}" in shown


def test_cribcam_lives_help_names_the_jobs(capsys):
    with pytest.raises(SystemExit):
        main(["live", "--help"])
    shown = capsys.readouterr().out
    assert "hands     count each hand as it lies still" in shown
    assert "play      follow the play (pegging)" in shown
    assert "--video FILE" not in shown.split("examples:")[0]  # each job's options are in its own help


@pytest.mark.parametrize("words", [[], ["--video", "hands.y4m", "--headless", "--out", "-"], ["--crib", "--port", "0"]])
def test_the_last_releases_cribcam_live_is_the_hands_job_with_a_note(capsys, words):
    args, said = parsed(capsys, *words)
    today, _ = parsed(capsys, "hands", *words)
    assert args.job == "hands" and vars(args) == vars(today)
    assert said == HANDS_NOTE


def test_the_last_releases_play_is_the_play_job_without_play_and_headless_with_a_note(capsys):
    words = ["--video", "play.y4m", "--out", "-", "--players", "Ann", "Bob", "--dealer", "Bob", "--go", "12:Ann"]
    args, said = parsed(capsys, "--play", *words[:2], "--headless", *words[2:])
    today, _ = parsed(capsys, "play", *words)
    assert args.job == "play" and vars(args) == vars(today)
    assert said == PLAY_NOTE


@pytest.mark.parametrize("words,said", [
    (["deal"], "cribcam live: error: argument JOB: invalid choice: 'deal' (choose from 'hands', 'play')"),
    (["hands", "--play"], "cribcam live: error: --play was the play's old spelling: cribcam live play ... follows "
                          "the play, cribcam live hands ... counts hands"),
    (["play", "--play", "--out", "-"], "cribcam live: error: --play was the play's old spelling"),
    (["hands", "--dealer", "Bob", "--go", "3:Bob", "--dealer=Ann"],
     "cribcam live: error: --dealer, --go are for following the play (cribcam live play): leave them out of "
     "cribcam live hands"),
    (["play", "--video", "play.y4m"], "cribcam live play: error: the following arguments are required: --out"),
    (["play", "--out", "-", "--camera", "one"], "cribcam live play: error: argument --camera: invalid int value"),
    (["hands", "--frames", "3"], "cribcam: error: unrecognized arguments: --frames 3"),
])
def test_a_mistake_is_one_line_with_exit_status_2(capsys, words, said):
    assert main(["live", *words]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(said) and len(err.splitlines()) == 1


def test_a_mistake_in_the_last_releases_spelling_comes_after_its_note(capsys):
    assert main(["live", "--play", "--video", "play.y4m", "--headless", "--out", "-", "--starter", "5H"]) == 2
    assert capsys.readouterr().err == PLAY_NOTE + (
        "cribcam live: error: --starter is for counting hands (cribcam live hands): leave it out of cribcam live play\n")
