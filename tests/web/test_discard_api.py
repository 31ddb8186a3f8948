"""The discard advisor on the web through Flask's test client: the page, POST /api/discard
and its errors."""

from __future__ import annotations

import pytest

from cribcam.scoring.discard import advise
from cribcam.scoring.discard_report import advice_report

DEAL = ["5H", "5C", "6D", "JD", "QS", "KS"]


def test_discard_page_loads_its_script_and_only_local_assets(client):
    response = client.get("/discard")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "http://" not in html and "https://" not in html and "//cdn" not in html
    for asset in ("/static/discard.js", "/static/style.css"):
        assert asset in html
        assert client.get(asset).status_code == 200
    assert 'id="typed-cards"' in html and 'name="whose" value="pone"' in html
    script = client.get("/static/discard.js").get_data(as_text=True)
    assert "http://" not in script and "https://" not in script


def test_advice_is_the_json_of_cribcam_discard(client):
    response = client.post("/api/discard", json={"cards": DEAL, "dealer": True})
    assert response.status_code == 200
    assert response.json == advice_report(advise(DEAL, dealer=True))
    assert [o["discard"] for o in response.json["options"]][0] == ["5C", "6D"]
    assert response.headers["Cache-Control"] == "no-store"


def test_the_api_sends_the_numbers_cribcam_discard_prints(client):
    import subprocess
    import sys

    response = client.post("/api/discard", json={"cards": DEAL, "dealer": False})
    printed = subprocess.run([sys.executable, "-m", "cribcam", "discard", *DEAL, "--pone"],
                             capture_output=True, text=True, timeout=120).stdout.splitlines()[2:-1]
    assert [[f"{o[k]:.2f}" for k in ("hand", "crib", "net")] for o in response.json["options"]] == \
        [row.split()[-3:] for row in printed]
    assert ["5C", "JD"] in [o["discard"] for o in response.json["options"] if o["net"] == -0.67]


def test_pone_five_card_and_cards_as_a_string(client):
    pone = client.post("/api/discard", json={"cards": "5h, 5c 6d jd qs ks", "dealer": False})
    assert pone.status_code == 200
    assert pone.json["dealer"] is False and pone.json["cards"] == DEAL
    assert pone.json["options"][0]["discard"] == ["6D", "KS"]

    five = client.post("/api/discard", json={"cards": DEAL[:5], "variant": "five-card"})
    assert five.status_code == 200
    assert five.json["dealer"] is True  # the default, as for `cribcam discard`
    assert five.json == advice_report(advise(DEAL[:5], dealer=True, variant="five-card"))
    assert len(five.json["options"]) == 10


@pytest.mark.parametrize("body, message", [
    ({"cards": "5H 5C 6D JD QS 5X"}, "'5X' is not a card"),
    ({"cards": DEAL + ["2C"]}, "7 cards given; six-card cribbage deals 6"),
    ({"cards": DEAL[:5] + ["5H"]}, "5H appears twice"),
    ({"cards": DEAL, "variant": "five-card"}, "6 cards given; five-card cribbage deals 5"),
    ({"cards": ["5H", "5H", "6D", "JD", "QS", "KS"], "variant": "five-card"},
     "5H appears twice; a deck has one 5H. 6 cards given; five-card cribbage deals 5"),
])
def test_cards_that_make_no_deal_answer_422(client, body, message):
    response = client.post("/api/discard", json=body)
    assert response.status_code == 422
    assert message in response.json["error"]


@pytest.mark.parametrize("body, message", [
    ({}, '"cards" must be a list of cards'),
    ({"cards": [5, 6]}, '"cards" must be a list of cards'),
    ({"cards": DEAL, "dealer": "yes"}, '"dealer" must be true (the crib is yours) or false'),
    ({"cards": DEAL, "variant": "seven-card"}, '"variant" must be one of six-card, five-card'),
    (["5H"], "the body must be a JSON object; send {\"cards\""),
])
def test_malformed_requests_answer_400(client, body, message):
    response = client.post("/api/discard", json=body)
    assert response.status_code == 400
    assert message in response.json["error"]


def test_not_json_too_large_and_wrong_method(client, app):
    response = client.post("/api/discard", data="cards=5H", content_type="text/plain")
    assert response.status_code == 400
    assert response.json["error"].startswith("the body is not valid JSON; send {\"cards\"")

    too_big = b'{"cards": "' + b" 5H" * app.config["MAX_JSON_BYTES"] + b'"}'
    response = client.post("/api/discard", data=too_big, content_type="application/json")
    assert response.status_code == 413 and "JSON body is over" in response.json["error"]

    response = client.get("/api/discard")
    assert response.status_code == 405 and "error" in response.json
