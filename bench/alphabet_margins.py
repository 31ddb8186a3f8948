"""How clearly a deck's own rank texts beat the standard ones: where ``alphabet.MARGIN`` comes from.

Renders layouts of the held-out designs (all four suits), of 12 plain font decks, and of three
font decks of each lettered alphabet (``datagen.font_decks.ALPHABETS``; clubs and diamonds, as
a player teaches them), and prints, for every rank whose likeliest text is not the standard one,
that text and its margin over the standard text in nats an index
(``training.alphabet.likeliest_texts``). A rank the deck letters otherwise should clear
``MARGIN``; a misreading of a standard glyph should not.

Run: python bench/alphabet_margins.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from cribcam.datagen.decks import load_decks
from cribcam.datagen.font_decks import ALPHABETS, font_decks
from cribcam.scoring.cards import RANK_TEXTS, RANKS
from cribcam.training.alphabet import MARGIN, likeliest_texts
from cribcam.vision.models import rank_reader_file
from cribcam.vision.rank_reader import RankReader

from bench_teach import rendered  # bench/ is on the path when a bench script runs


def main() -> None:
    reader = RankReader(rank_reader_file(), threads=2)
    decks = [(deck, "CDHS", {}) for deck in load_decks(split="heldout", progress=False)]
    decks += [(deck, "CD", {}) for deck in font_decks(12, seed=50)]
    for k, alphabet in enumerate(ALPHABETS):
        decks += [(deck, "CD", ALPHABETS[alphabet]) for deck in font_decks(3, seed=200 + k, alphabet=alphabet)]
    print(f"MARGIN = {MARGIN} nats an index; for each deck the ranks whose likeliest text is not the "
          f"standard one (* where the deck prints that text)")
    with tempfile.TemporaryDirectory() as work:
        for n, (deck, suits, letters) in enumerate(decks):
            folder = Path(work) / str(n)
            found = likeliest_texts(reader, folder, rendered(deck, suits, [0], folder))
            other = [f"{rank} {text!r} {margin:+.2f}{'*' if letters.get(rank) == text else ''}"
                     for rank, (text, margin) in sorted(found.items(), key=lambda kv: RANKS.index(kv[0]))
                     if text != RANK_TEXTS[RANKS.index(rank)]]
            print(f"{deck.name[:64]:64s} {'; '.join(other) or 'all standard'}", flush=True)


if __name__ == "__main__":
    main()
