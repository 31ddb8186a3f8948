"""How clearly a deck's own rank texts beat the standard ones: where ``alphabet.MARGIN`` comes from.

Renders layouts of the held-out designs (all four suits), of 12 plain font decks, and of three
font decks of each lettered alphabet (``datagen.font_decks.ALPHABETS``; clubs and diamonds, as
a player teaches them), and prints, for every rank whose likeliest text is not the standard one,
that text and its margin over the standard text in nats an index
(``teach.alphabet.likeliest_texts``). A rank the deck letters otherwise should clear
``MARGIN``; a misreading of a standard glyph should not.

Then, per deck, whether the alphabet learnt (``alphabet.chosen_texts``) is the deck's own, and
the letters teaching would ask the player about (``alphabet.letter_questions``). ``--size``
renders the layouts smaller (1024 pixels a side by default; 512 puts each index at half the
size, as a phone held twice as far), through the same drawn camera (blur, tilt, light).

Run: python bench/alphabet_margins.py [--size 1024]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from bench_teach import printed_texts, rendered  # bench/ is on the path when a bench script runs

from cribcam.datagen.card_art import load_decks
from cribcam.datagen.font_decks import ALPHABETS, font_decks
from cribcam.scoring.cards import RANK_TEXTS, RANKS
from cribcam.teach.alphabet import MARGIN, chosen_texts, letter_questions, likeliest_texts
from cribcam.vision.models import rank_reader_file
from cribcam.vision.rank_reader import RankReader


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1024, help="the layout photos' side in pixels")
    args = parser.parse_args()
    reader = RankReader(rank_reader_file(), threads=2)
    decks = [(deck, "CDHS", {}) for deck in load_decks(split="heldout", progress=False)]
    decks += [(deck, "CD", {}) for deck in font_decks(12, seed=50)]
    for k, alphabet in enumerate(ALPHABETS):
        decks += [(deck, "CD", ALPHABETS[alphabet]) for deck in font_decks(3, seed=200 + k, alphabet=alphabet)]
    print(f"MARGIN = {MARGIN} nats an index; for each deck the ranks whose likeliest text is not the "
          f"standard one (* where the deck prints that text)")
    right = right_answered = readable = 0
    with tempfile.TemporaryDirectory() as work:
        for n, (deck, suits, letters) in enumerate(decks):
            folder = Path(work) / str(n)
            found = likeliest_texts(reader, folder, rendered(deck, suits, [0], folder, args.size))
            other = [f"{rank} {read.text!r} {read.margin:+.2f}{'*' if letters.get(rank) == read.text else ''}"
                     for rank, read in sorted(found.items(), key=lambda kv: RANKS.index(kv[0]))
                     if read.text != RANK_TEXTS[RANKS.index(rank)]]
            own = printed_texts(letters)
            questions = letter_questions(found)
            learnt = chosen_texts(found) == own
            # A player who knows the deck answers each question with what it prints.
            answered = chosen_texts(found, {q.rank: own[RANKS.index(q.rank)] for q in questions}) == own
            right, right_answered = right + learnt, right_answered + answered
            readable += all(c in reader.column for text in own for c in text)
            asked = " ".join(f"{q.rank}={q.text or 'which letter'}?" for q in questions)
            print(f"{deck.name[:64]:64s} {'; '.join(other) or 'all standard'} | learnt "
                  f"{'its own' if learnt else 'otherwise'}{'; asks ' + asked if asked else ''}"
                  f"{'; its own once answered' if answered and not learnt else ''}", flush=True)
    print(f"alphabets learnt as the deck prints them ({args.size}-pixel layouts): {right} of {len(decks)} decks, "
          f"{right_answered} once the questions are answered; the recognizer knows every letter of {readable}")


if __name__ == "__main__":
    main()
