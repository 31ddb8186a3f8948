"""Learning the strings a deck prints for its ranks through the pretrained text recognizer."""

import cv2
import numpy as np
import pytest

from cribcam.datagen.layout_photos import render_layout
from cribcam.teach.alphabet import learn_texts
from cribcam.vision.models import rank_reader_file
from cribcam.vision.rank_reader import RANK_TEXTS, RankReader


@pytest.fixture(scope="module")
def rank_reader():
    return RankReader(rank_reader_file(), threads=2)


def _shown(deck, suits: str, folder) -> dict:
    """Rendered layouts of ``suits`` written to ``folder``; their labels."""
    labels = {}
    for k, suit in enumerate(suits):
        image, boxes = render_layout(deck, suit, seed=k)
        cv2.imwrite(str(folder / f"{suit}.jpg"), image)
        labels[f"{suit}.jpg"] = {"cards": [{"card": b.code, "box": list(b.box)} for b in boxes]}
    return labels


@pytest.mark.parametrize("alphabet", ["dutch", "french"])
def test_a_lettered_deck_s_texts_are_learnt_from_two_suits(alphabet, rank_reader, tmp_path):
    from cribcam.datagen.font_decks import ALPHABETS, font_decks

    decks = font_decks(1, seed=0, alphabet=alphabet)
    if not decks:
        pytest.skip("no font with the letters under /usr/share/fonts")
    texts = learn_texts(rank_reader, tmp_path, _shown(decks[0], "CD", tmp_path))
    expected = [ALPHABETS[alphabet].get(rank, standard) for rank, standard in zip("A23456789TJQK", RANK_TEXTS)]
    assert list(texts) == expected


@pytest.mark.parametrize("unread_first", [True, False], ids=["unread-first", "unread-last"])
def test_a_photo_with_no_index_to_read_beside_one_with_indices(rank_reader, tmp_path, unread_first):
    # A queen's index too small to cut a line from (a card far off), in one photo; a queen read
    # plainly in another: teaching reads both together, in either order.
    from cribcam.teach.alphabet import likeliest_texts

    far = np.full((120, 120, 3), 200, np.uint8)
    near = np.full((200, 160, 3), 245, np.uint8)
    cv2.putText(near, "Q", (40, 90), cv2.FONT_HERSHEY_SIMPLEX, 2.0, (20, 20, 20), 4, cv2.LINE_AA)
    names = ["a.png", "b.png"] if unread_first else ["b.png", "a.png"]  # read in name order
    cv2.imwrite(str(tmp_path / names[0]), far)
    cv2.imwrite(str(tmp_path / names[1]), near)
    labels = {names[0]: {"cards": [{"card": "QC", "box": [50, 50, 52, 52]}]},
              names[1]: {"cards": [{"card": "QH", "box": [30, 30, 100, 140]}]}}
    assert likeliest_texts(rank_reader, tmp_path, labels)["Q"].text == "Q"


def test_ranks_not_shown_keep_their_standard_text(rank_reader, tmp_path):
    from cribcam.datagen.font_decks import font_decks

    decks = font_decks(1, seed=0, alphabet="dutch")
    if not decks:
        pytest.skip("no font with the letters under /usr/share/fonts")
    labels = _shown(decks[0], "C", tmp_path)
    labels["C.jpg"]["cards"] = [c for c in labels["C.jpg"]["cards"] if c["card"][0] != "Q"]
    texts = learn_texts(rank_reader, tmp_path, labels)
    assert texts[11] == "Q" and texts[12] == "H" and texts[0] == "1"


def test_ranks_read_as_one_string_keep_their_standard_texts(rank_reader, tmp_path):
    from cribcam.datagen.font_decks import font_decks

    decks = font_decks(1, seed=0)
    if not decks:
        pytest.skip("no font under /usr/share/fonts")
    labels = _shown(decks[0], "C", tmp_path)
    # The queens named jacks: the jack would be "Q", which the queen (not shown) prints.
    labels["C.jpg"]["cards"] = [{**c, "card": c["card"].replace("Q", "J")} for c in labels["C.jpg"]["cards"]
                                if c["card"][0] != "J"]
    assert learn_texts(rank_reader, tmp_path, labels) == RANK_TEXTS


def test_a_standard_deck_misread_a_little_keeps_its_standard_texts(rank_reader, heldout_decks, tmp_path):
    from cribcam.teach.alphabet import MARGIN, likeliest_texts

    deck = next(d for d in heldout_decks if d.name == "gnome-bellot")
    labels = _shown(deck, "CDHS", tmp_path)
    # The recognizer spells this deck's J as "i", a little likelier than "J": a misreading, not
    # the deck's lettering, which the player would be told ("its indices read i for the jack").
    text, margin, _ = likeliest_texts(rank_reader, tmp_path, labels)["J"]
    assert text != "J" and 0 < margin < MARGIN
    assert learn_texts(rank_reader, tmp_path, labels) == RANK_TEXTS


def test_a_rank_is_printed_as_a_capital_or_a_digit_first_never_a_lone_small_letter():
    from cribcam.teach.alphabet import printed_as_rank

    assert all(map(printed_as_rank, ["V", "1", "10", "Kn", "Д", "B"]))
    assert not any(map(printed_as_rank, ["n", "i", "à", "kn", "", "100", "V?", "鬼"]))
    # Only the ace and the court cards are lettered a deck's way; a court card's with a letter first.
    assert printed_as_rank("1", "A") and printed_as_rank("B", "J") and printed_as_rank("Kn", "J")
    assert not any(printed_as_rank(text, rank) for text, rank in [("0", "J"), ("1", "K"), ("1", "7"), ("0", "T")])
    assert printed_as_rank("10", "T") and printed_as_rank("7", "7")


def test_letters_the_player_states_are_kept_over_those_learnt(rank_reader, tmp_path):
    from cribcam.datagen.font_decks import font_decks

    decks = font_decks(1, seed=0, alphabet="dutch")
    if not decks:
        pytest.skip("no font with the letters under /usr/share/fonts")
    # The player says the queen prints Q and the ace A: the jack's B and the king's H are learnt.
    texts = learn_texts(rank_reader, tmp_path, _shown(decks[0], "CD", tmp_path), stated={"Q": "Q", "A": "A"})
    assert (texts[0], texts[10], texts[11], texts[12]) == ("A", "B", "Q", "H")


def test_a_letter_neither_surely_printed_nor_surely_misread_is_asked():
    from cribcam.teach.alphabet import ASK_FROM, MARGIN, SURE, RankText, letter_questions

    likeliest = {"Q": RankText("V", (MARGIN + SURE) / 2, -9.0), "J": RankText("B", SURE + 1, -9.0),
                 "K": RankText("H", (ASK_FROM + MARGIN) / 2, -6.0), "A": RankText("1", ASK_FROM / 2, -1.0),
                 "5": RankText("5", 0.0, 0.0)}
    asked = letter_questions(likeliest)
    assert [(q.rank, q.text, q.learnt) for q in asked] == [("Q", "V", True), ("K", "H", False)]  # ace to king
    assert asked[0].said == "the queen's letter looks like V: does your deck print V for the queen, not Q?"
    assert asked[0].as_json()["standard"] == "Q"


def test_a_letter_that_reads_as_no_text_at_all_is_asked_for():
    from cribcam.teach.alphabet import UNSPELT_BELOW, RankText, chosen_texts, letter_questions

    # A Russian queen's Д: the recognizer knows no Cyrillic, so "Q" reads badly and nothing better.
    # Read as another rank's text (a Д read as A), surely or not, it is no letter learnt either.
    likeliest = {"Q": RankText("Q", 0.0, UNSPELT_BELOW - 2), "K": RankText("K", 0.0, UNSPELT_BELOW + 2),
                 "J": RankText("B", 0.5, UNSPELT_BELOW - 4), "A": RankText("J", 6.0, UNSPELT_BELOW - 4)}
    asked = letter_questions(likeliest)
    assert [(q.rank, q.text, q.learnt) for q in asked] == [("A", None, False), ("J", None, False),
                                                           ("Q", None, False)]
    assert asked[2].said == ("the queen's letter reads as none cribcam can spell: does your deck print Q for the "
                             "queen, or which letter?")
    assert asked[2].as_json()["text"] is None
    assert chosen_texts(likeliest) == chosen_texts({})  # unanswered, nothing changes
    assert chosen_texts(likeliest, {"Q": "Д"})[11] == "Д"


def test_a_letter_read_unclearly_but_most_like_a_spellable_one_offers_it():
    from cribcam.teach.alphabet import UNSPELT_BELOW, RankText, letter_questions

    # A Dutch queen's V: Q reads badly, V better but by too little to be learnt or asked as such.
    (asked,) = letter_questions({"Q": RankText("V", 0.5, UNSPELT_BELOW - 2)})
    assert (asked.text, asked.closest, asked.learnt) == (None, "V", False)
    assert asked.said == ("the queen's letter reads unclearly, most like V: does your deck print V for "
                          "the queen, Q, or another letter?")
    assert asked.as_json()["closest"] == "V"


def test_a_stated_letter_wins_over_a_learnt_one_it_would_repeat():
    from cribcam.teach.alphabet import RankText, chosen_texts

    texts = chosen_texts({"Q": RankText("V", 9.0, -9.0), "K": RankText("H", 9.0, -9.0)}, stated={"J": "V"})
    assert (texts[10], texts[11], texts[12]) == ("V", "Q", "H")


@pytest.mark.parametrize("stated, message", [
    ({"X": "V"}, "'X' is no rank"),
    ({"Q": "v"}, "'v' is not a rank's letter"),
    ({"Q": "V?"}, "is not a rank's letter"),
    ({"J": "Q"}, "Q would stand for two ranks"),
    ({"J": "1"}, "a letter first for a court card"),
    ({"7": "L"}, "a deck prints its 2 to 10 as numbers: the seven is 7, not 'L'"),
    ({"J": "V", "Q": "V"}, "V would stand for two ranks"),
])
def test_letters_no_deck_prints_are_refused(stated, message):
    from cribcam.teach.alphabet import check_stated

    with pytest.raises(ValueError, match=message.replace("?", r"\?")):
        check_stated(stated)


def test_a_ten_stated_as_10_and_a_letter_the_recognizer_cannot_spell_kept():
    from cribcam.teach.alphabet import check_stated

    assert check_stated({"10": "10", "q": "V", "J": "B"}) == {"T": "10", "Q": "V", "J": "B"}
    assert check_stated({"Q": "Д"}) == {"Q": "Д"}  # the deck prints it; its taught corners read it
