"""Taught decks in the user's data folder: names, where they live, listing and removing."""

from pathlib import Path

import pytest

from cribcam.settings import DATA_ENV
from cribcam.vision.decks import (
    DeckError,
    check_name,
    deck_classifier,
    deck_folder,
    find_deck,
    lettering,
    list_decks,
    remove_deck,
)


@pytest.fixture
def data(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "data"))
    return tmp_path / "data"


def _fake_deck(name: str, cards: int = 52) -> Path:
    folder = deck_folder(name)
    (folder / "photos").mkdir(parents=True)
    (folder / "heads.npz").write_bytes(b"heads")
    (folder / "photos" / "01-clubs.jpg").write_bytes(b"jpeg")
    (folder / "deck.json").write_text(f'{{"name": "{name}", "cards": {list(range(cards))}}}')
    return folder


def test_decks_are_kept_in_the_data_folder(tmp_path, monkeypatch):
    monkeypatch.setenv(DATA_ENV, str(tmp_path / "mine"))
    assert deck_folder("kitchen") == tmp_path / "mine" / "decks" / "kitchen"


@pytest.mark.parametrize("name", ["../evil", "a/b", "a\\b", ".hidden", "..", "", "two words", "x" * 41, "café"])
def test_a_name_with_path_characters_or_odd_letters_is_refused(name, data):
    with pytest.raises(DeckError, match="cannot name a deck"):
        check_name(name)
    with pytest.raises(DeckError):
        deck_folder(name)


@pytest.mark.parametrize("name", ["kitchen", "Gold-Deck_2", "7"])
def test_plain_names_are_taken(name):
    assert check_name(name) == name


def test_listing_finds_decks_with_heads_only(data):
    _fake_deck("kitchen", cards=40)
    _fake_deck("club")
    (data / "decks" / ".half.teaching").mkdir()  # a teaching cut short
    (data / "decks" / "empty").mkdir()  # no heads: not a deck
    decks = list_decks()
    assert [d.name for d in decks] == ["club", "kitchen"]
    assert len(decks[1].record["cards"]) == 40
    assert deck_classifier("kitchen") == data / "decks" / "kitchen" / "heads.npz"
    assert deck_classifier(None) is None


def test_an_unknown_deck_is_said_with_the_decks_there_are(data):
    _fake_deck("kitchen")
    with pytest.raises(DeckError, match=r"no taught deck named 'garden'; taught decks: kitchen"):
        find_deck("garden")


def test_removing_a_deck_removes_its_files_only(data, tmp_path):
    kept = _fake_deck("kept")
    gone = _fake_deck("gone")
    beside = data / "games.sqlite3"
    beside.write_bytes(b"games")
    assert remove_deck("gone") == gone
    assert not gone.exists()
    assert (kept / "heads.npz").is_file() and (kept / "photos" / "01-clubs.jpg").is_file()
    assert beside.read_bytes() == b"games"
    assert [d.name for d in list_decks()] == ["kept"]
    with pytest.raises(DeckError, match="no taught deck named 'gone'"):
        remove_deck("gone")


def test_a_deck_taught_by_an_older_cribcam_is_said_to_need_teaching_again(data):
    folder = deck_folder("old")
    folder.mkdir(parents=True)
    (folder / "classifier.onnx").write_bytes(b"onnx")  # a fine-tuned classifier, as decks once were
    assert list_decks() == []
    with pytest.raises(DeckError, match="taught by an older cribcam: teach it again from its photos"):
        find_deck("old")


def test_a_deck_s_lettering_names_only_what_it_prints_otherwise():
    dutch = dict(zip("A23456789TJQK", ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "B", "V", "H"]))
    assert lettering({"rank_texts": dutch}) == "its indices read 1 for the ace, B for the jack, V for the queen, H for the king: " \
                               "so read on every suit"
    standard = dict(zip("A23456789TJQK", ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]))
    assert lettering({"rank_texts": standard}) == lettering({}) == "its indices read as most decks' do (A 2 3 4 5 6 7 8 9 10 J Q K)"
