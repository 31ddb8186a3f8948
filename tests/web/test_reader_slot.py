"""The readers of taught decks a server keeps loaded: the last used, a bounded number (issue 46:
every deck read once stayed loaded, 30 to 80 MB each, six decks +310 MB)."""

from __future__ import annotations

from types import SimpleNamespace

from cribcam.web.reader_slot import ReaderSlot


def test_taught_decks_readers_are_kept_the_last_used_first_and_no_more(monkeypatch, tmp_path):
    loaded = []

    class Reader:  # stands in for CardReader: records each deck's reader loaded
        def with_deck(self, classifier):
            loaded.append(classifier.parent.name)
            return SimpleNamespace(deck=classifier.parent.name)

    def find_deck(name):
        classifier = tmp_path / name / "classifier.npz"
        if not classifier.exists():  # taught once: its file's time says which lesson it is
            classifier.parent.mkdir()
            classifier.touch()
        return SimpleNamespace(classifier=classifier)

    monkeypatch.setattr("cribcam.vision.decks.find_deck", find_deck)
    slot = ReaderSlot(reader=Reader(), decks_kept=2)
    for name in ["a", "b", "a", "c", "b", "a", "a"]:
        assert slot.deck_reader(name).deck == name
    # a, b; a again from memory; c takes b's place; b takes a's; a takes c's; a from memory
    assert loaded == ["a", "b", "c", "b", "a"]
