"""`cribcam discard`, run as a user runs it: a real process, its output and exit status."""

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cribcam.cli.discard import format_advice
from cribcam.scoring.cards import CARD_CODES
from cribcam.scoring.discard import advise
from cribcam.scoring.discard_report import advice_report

DATA = Path(__file__).parents[1] / "data" / "photos"


def cribcam(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cribcam", *args],
                          capture_output=True, text=True, timeout=120)


def test_discard_prints_every_option_best_first_with_the_best_and_the_spread():
    result = cribcam("discard", "5H", "5C", "6D", "JD", "QS", "KS", "--dealer")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "Dealt 5H 5C 6D JD QS KS (your crib: net = hand + crib)"
    rows = lines[2:-1]
    assert len(rows) == 15
    advice = advise("5H 5C 6D JD QS KS", dealer=True)
    best = advice.best
    assert rows[0].split() == ["5C", "6D", "5H", "JD", "QS", "KS", f"{best.hand:.2f}",
                               f"{best.crib:.2f}", f"{best.net:.2f}"]
    # The spread is the difference of the two nets shown: the figures on the line add up.
    spread = round(round(best.net, 2) - round(advice.worst.net, 2), 2)
    assert lines[-1] == (f"Best: lay away 5C 6D ({best.net:.2f}); worst: QS KS "
                         f"({advice.worst.net:.2f}); spread {spread:.2f} points")


def test_the_dealer_is_the_default_and_pone_subtracts_the_crib():
    assert cribcam("discard", "5H", "5C", "6D", "JD", "QS", "KS").stdout == \
        cribcam("discard", "5H", "5C", "6D", "JD", "QS", "KS", "--dealer").stdout
    pone = cribcam("discard", "5H", "5C", "6D", "JD", "QS", "KS", "--pone")
    assert pone.returncode == 0, pone.stderr
    assert "(the opponent's crib: net = hand - crib)" in pone.stdout
    assert pone.stdout.splitlines()[2].split()[:2] == ["6D", "KS"]


def test_json_shape_best_first():
    result = cribcam("discard", "5h", "5c", "6d", "jd", "qs", "ks", "--pone", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["cards"] == ["5H", "5C", "6D", "JD", "QS", "KS"]
    assert report["dealer"] is False and report["variant"] == "six-card"
    assert len(report["options"]) == 15
    assert all(list(o) == ["discard", "keep", "hand", "crib", "net"] for o in report["options"])
    nets = [o["net"] for o in report["options"]]
    assert nets == sorted(nets, reverse=True)
    assert report == advice_report(advise("5H 5C 6D JD QS KS", dealer=False))


def test_the_table_prints_the_numbers_the_api_sends_rounded_once():
    # Laying away 5C JD nets -0.67499 for the pone: the command printed -0.67, while the API
    # sent -0.675 (four places) and the page rounded that to -0.68.
    deal = ["5H", "5C", "6D", "JD", "QS", "KS"]
    report = json.loads(cribcam("discard", *deal, "--pone", "--json").stdout)
    assert [o["net"] for o in report["options"] if o["discard"] == ["5C", "JD"]] == [-0.67]
    assert all(o[k] == round(o[k], 2) for o in report["options"] for k in ("hand", "crib", "net"))
    rows = cribcam("discard", *deal, "--pone").stdout.splitlines()[2:-1]
    assert [row.split()[-3:] for row in rows] == \
        [[f"{o[k]:.2f}" for k in ("hand", "crib", "net")] for o in report["options"]]
    best, worst = report["options"][0]["net"], report["options"][-1]["net"]
    assert report["spread"] == round(best - worst, 2)  # the figures shown add up


@pytest.mark.skipif(shutil.which("node") is None, reason="node runs the page's formatting")
def test_the_page_formats_every_number_as_the_command_prints_it():
    # discard.js shows a number with toFixed(2); on the numbers sent, it must write the very
    # digits the command prints, whatever the deal.
    rng = random.Random(21)
    reports = [advice_report(advise(rng.sample(CARD_CODES, n), dealer=rng.random() < 0.5))
               for n in [6] * 150 + [5] * 50]
    numbers = [o[k] for r in reports for o in r["options"] for k in ("hand", "crib", "net")]
    numbers += [r["spread"] for r in reports]
    script = "const a = JSON.parse(require('fs').readFileSync(0, 'utf8')); " \
             "console.log(JSON.stringify(a.map((v) => v.toFixed(2))));"
    shown = json.loads(subprocess.run(["node", "-e", script], input=json.dumps(numbers), text=True,
                                      capture_output=True, check=True).stdout)
    printed = [f"{value:.2f}" for value in numbers]
    assert shown == printed
    table = "\n".join(format_advice(r) for r in reports)
    assert all(f"{value:.2f}" in table for value in numbers)


def test_five_card_cribbage_and_one_card_laid_away():
    five_card = json.loads(cribcam("discard", "5H", "5C", "6D", "JD", "QS", "--variant",
                                   "five-card", "--json").stdout)
    assert len(five_card["options"]) == 10 and len(five_card["options"][0]["keep"]) == 3
    three_players = json.loads(cribcam("discard", "5H", "5C", "6D", "JD", "QS", "--json").stdout)
    assert [len(o["discard"]) for o in three_players["options"]] == [1] * 5


@pytest.mark.parametrize("args, message", [
    (["5H", "5C", "6D", "JD", "QS", "5X"], "'5X' is not a card"),
    (["5H", "5C", "6D", "JD", "QS", "KS", "2C"], "7 cards given; six-card cribbage deals 6"),
    (["5H", "5C", "6D", "JD", "QS", "5H"], "5H appears twice"),
    (["5H", "5C", "6D", "JD", "QS", "KS", "--variant", "five-card"],
     "6 cards given; five-card cribbage deals 5"),
    (["5H", "5H", "6D", "JD", "QS", "KS", "--variant", "five-card"],
     "5H appears twice; a deck has one 5H. 6 cards given; five-card cribbage deals 5"),
    (["5H", "5C", "6D", "JD", "QS", "KS", "--dealer", "--pone"], "not allowed with argument"),
])
def test_bad_deals_exit_2_with_one_line_or_json(args, message):
    result = cribcam("discard", *args)
    assert result.returncode == 2 and result.stdout == ""
    assert message in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1

    as_json = cribcam("discard", *args, "--json")
    assert as_json.returncode == 2
    assert message in json.loads(as_json.stdout)["error"]


def test_a_deal_is_read_from_a_photo_and_advised(shipped_models):
    import cv2

    from cribcam.vision import CardReader

    photo = DATA / "webcam-5-cards.jpg"
    read = CardReader(shipped_models).read(cv2.imread(str(photo)), expected=6, starter=False).codes
    result = cribcam("discard", "--photo", str(photo), "--model", str(shipped_models), "--json")
    if len(read) in (5, 6):
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout) == json.loads(json.dumps(advice_report(advise(read, dealer=True))))
    else:  # a model that reads too few cards for a deal says so, naming what it read
        assert result.returncode == 2 and f"read {' '.join(read)} in {photo.name}" in json.loads(result.stdout)["error"]


@pytest.mark.parametrize("args,words", [
    ([], "name the cards dealt (cribcam discard 5H 5C 6D JD QS KS) or give --photo FILE"),
    (["5H", "--photo", "deal.jpg"], "name the cards dealt or give --photo, not both"),
    (["--photo", "no-such-deal.jpg"], "no such file: no-such-deal.jpg"),
])
def test_discard_without_cards_or_photo_says_what_to_give(args, words):
    result = cribcam("discard", *args)
    assert result.returncode == 2 and words in result.stderr and "Traceback" not in result.stderr
