"""Learning the strings a deck prints for its ranks, read by the pretrained text recognizer.

A deck lettered differently prints "B", "V", "H" for the jack, queen and king (Dutch) or "1"
for the ace. The index classifier learns such a letter only on the suits it was shown; the
text recognizer (``vision.rank_reader``) reads the letter on any suit, once it knows that
"V" means a queen. Teaching finds each rank's string from the player's named indices: the
candidates are the standard text and what the recognizer spells on that rank's indices (one
or two letters or digits), and the likeliest over all those indices is kept, unless it is another
rank's standard text: no deck prints "9" on its sixes, but a 6 turned half round reads as a 9,
and a rank learnt so is read as the other (kde-svg-ancient-egyptians, taught from two suits, had
learnt "9" for the six and "6" for the nine). Another text must also read clearly better than the
standard one (``MARGIN``): a deck that prints the standard J in an unusual face is otherwise told
that "its indices read i for the jack". A letter the recognizer cannot spell at all (a Russian
queen's Д: it knows no Cyrillic) leaves the standard text reading badly and no other text
better: the player is asked which letter the deck prints, and the deck keeps it, read by its
taught corners (``vision.rank_reader`` reads no text it cannot spell).
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import cv2
import numpy as np

from cribcam.scoring.cards import RANK_NAMES, RANKS
from cribcam.vision.rank_reader import RANK_TEXTS, RankReader

PER_RANK = 8  # indices of a rank read for its text: enough to outvote a misreading, and quick
SPELLINGS = 3  # the commonest spellings of a rank's indices that are scored beside its standard text
LONGEST = 2  # characters of a rank text ("10", "Kn")
LETTERED = "AJQK"  # the ranks a deck may print its own way: "1" for the ace, "B", "V", "H" for the court
# A text other than the standard one is learnt only when it beats the standard text by this many
# nats an index, on average. On rendered layouts of 31 decks (bench/alphabet_margins.py, 2026-11-25)
# the ranks a deck truly letters otherwise ("B", "V", "H", "1", "D", "R", "Kn") beat the standard
# text by 3.2 to 11.7 an index; misreadings of standard glyphs (gnome-bellot's J as "i",
# kde-svg-ancient-egyptians' 6, 9 and Q, a 5 as "à") by 0.03 to 1.8.
MARGIN = 2.5
# Between these margins the player is asked ("the queen's letter looks like V: is V what your
# deck prints?"): a letter learnt by less than ``SURE``, or refused by ``ASK_FROM`` or more. The
# same measure put every misreading of a standard glyph under 1.8 and every true letter over 3.2
# on clean renders; photographed corners read less clearly, so the band reaches past both.
ASK_FROM = 2.0
SURE = 5.0
# A rank whose standard text reads worse than this (log-likelihood an index), with no other text
# learnt or asked about, prints a letter the recognizer cannot spell: the player is asked which.
# On the layouts of bench/alphabet_margins.py (2026-11-27, 1024 and 512 px) the standard decks'
# worst read -3.5 (gnome-bellot's J at 512), the Russian queens' Д -4.5 to -8.8.
UNSPELT_BELOW = -4.0


class RankText(NamedTuple):
    """What a rank's indices read as (``likeliest_texts``).

    Attributes:
        text: the likeliest text a deck may print for the rank.
        margin: by how much it beats the standard text, in nats an index (0 for the standard).
        standard_fit: the standard text's log-likelihood an index.
    """

    text: str
    margin: float
    standard_fit: float


@dataclass(frozen=True)
class LetterQuestion:
    """A rank whose printed text teaching could not settle alone: a question for the player.

    Attributes:
        rank: the rank (``RANKS`` letter).
        text: what its indices look like they print ("V"); None when they read as no letter the
            recognizer can spell clearly (the player names it).
        learnt: whether it is taught so unless the player says otherwise.
        closest: with ``text`` None, the letter they read most like, when it is another than
            the standard one (a Dutch queen's V, read unclearly): offered as a choice.
    """

    rank: str
    text: str | None
    learnt: bool
    closest: str | None = None

    @property
    def standard(self) -> str:
        return RANK_TEXTS[RANKS.index(self.rank)]

    @property
    def name(self) -> str:
        return RANK_NAMES[self.rank]

    @property
    def said(self) -> str:
        if self.text is None and self.closest:
            return (f"the {self.name}'s letter reads unclearly, most like {self.closest}: does your "
                    f"deck print {self.closest} for the {self.name}, {self.standard}, or another letter?")
        if self.text is None:
            return (f"the {self.name}'s letter reads as none cribcam can spell: does your deck print "
                    f"{self.standard} for the {self.name}, or which letter?")
        return (f"the {self.name}'s letter looks like {self.text}: does your deck print {self.text} "
                f"for the {self.name}, not {self.standard}?")

    def as_json(self) -> dict:
        return {"rank": self.rank, "name": self.name, "text": self.text, "standard": self.standard,
                "learnt": self.learnt, "closest": self.closest, "said": self.said}


def learn_texts(reader: RankReader, photos: Path, labels: dict, stated: dict[str, str] | None = None
                ) -> tuple[str, ...]:
    """The 13 strings (``RANKS`` order) the deck of these named photos prints for its ranks.

    Args:
        reader: the rank reader (its recognizer reads the indices).
        photos: the folder of the photos.
        labels: their labels (``cribcam eval --labels`` format): each card's code and index box.
        stated: texts the player gave for some ranks (``RANKS`` letter to text): kept as given.

    Returns:
        ``chosen_texts`` of the likeliest strings over each rank's indices.
    """
    return chosen_texts(likeliest_texts(reader, photos, labels), stated)


def chosen_texts(likeliest: dict[str, RankText], stated: dict[str, str] | None = None
                 ) -> tuple[str, ...]:
    """Each rank's text (``RANKS`` order): the one the player stated; else its likeliest string
    (``likeliest_texts``), unless the rank was not shown, its likeliest string is not ``MARGIN``
    better than its standard text, or ranks' likeliest strings coincide (a deck prints one string
    for one rank): then the standard text."""
    stated = stated or {}
    texts = list(RANK_TEXTS)
    for rank, read in likeliest.items():
        if read.text not in RANK_TEXTS and read.margin >= MARGIN:
            texts[RANKS.index(rank)] = read.text
    for rank, text in stated.items():
        texts[RANKS.index(rank)] = text
    repeated = {t for t, n in Counter(texts).items() if n > 1}
    return tuple(RANK_TEXTS[i] if t in repeated and RANKS[i] not in stated else t for i, t in enumerate(texts))


def letter_questions(likeliest: dict[str, RankText]) -> list[LetterQuestion]:
    """The ranks whose likeliest text (``likeliest_texts``) beats the standard one by a margin
    between ``ASK_FROM`` and ``SURE``: neither surely the deck's letter nor surely a misreading;
    and those that read as no text at all (``UNSPELT_BELOW``): which letter does the deck print?"""
    questions = []
    for rank, read in sorted(likeliest.items(), key=lambda item: RANKS.index(item[0])):
        own = read.text not in RANK_TEXTS  # a text another rank prints is never this rank's (a Д read as A)
        if own and ASK_FROM <= read.margin < SURE:
            questions.append(LetterQuestion(rank, read.text, learnt=read.margin >= MARGIN))
        elif (not own or read.margin < ASK_FROM) and read.standard_fit < UNSPELT_BELOW:
            closest = read.text if own and read.text != RANK_TEXTS[RANKS.index(rank)] else None
            questions.append(LetterQuestion(rank, None, learnt=False, closest=closest))
    return questions


def check_stated(stated: dict[str, str]) -> dict[str, str]:
    """The texts a player stated for ranks, as ``RANKS`` letter to text, checked. A text the
    recognizer cannot spell is kept all the same: the deck prints it (``RankReader`` reads no
    text it cannot spell).

    Raises:
        ValueError: a rank that is none, a text no deck prints (one or two letters or digits,
            a capital or digit first), or one text for two ranks.
    """
    checked = {}
    for rank, text in stated.items():
        rank = "T" if str(rank).strip().upper() == "10" else str(rank).strip().upper()
        text = str(text).strip()
        if rank not in RANKS:
            raise ValueError(f"{rank!r} is no rank: name it as A, 2-9, 10, J, Q or K")
        if rank not in LETTERED and text != RANK_TEXTS[RANKS.index(rank)]:
            raise ValueError(f"a deck prints its 2 to 10 as numbers: the {RANK_NAMES[rank]} is "
                             f"{RANK_TEXTS[RANKS.index(rank)]}, not {text!r}")
        if not printed_as_rank(text, rank):
            raise ValueError(f"{text!r} is not a rank's letter: one or two letters or digits, a capital "
                             f"letter or a digit first (V, 1, Kn), a letter first for a court card")
        checked[rank] = text
    texts = chosen_texts({}, checked)
    doubled = sorted({t for t in texts if texts.count(t) > 1})
    if doubled:
        raise ValueError(f"{' and '.join(doubled)} would stand for two ranks: a deck prints one letter for one rank")
    return checked


def likeliest_texts(reader: RankReader, photos: Path, labels: dict) -> dict[str, RankText]:
    """For each rank shown that a deck may letter its own way (``LETTERED``), its likeliest
    text, by how much that beats the standard text (the mean difference of their
    log-likelihoods over its indices; 0 when the standard text is the likeliest), and how well
    the standard text reads there (its mean log-likelihood).

    The candidates are the standard text and the commonest spellings of the rank's indices
    that a deck may print for that rank (``printed_as_rank``); ``PER_RANK`` indices of a rank
    are read.
    """
    shown: dict[str, list] = {}
    for image_name, entry in sorted(labels.items()):
        for label in entry["cards"]:
            rank = label["card"][0]
            if rank in LETTERED and label.get("box") is not None and len(shown.setdefault(rank, [])) < PER_RANK:
                shown[rank].append((image_name, label["box"]))
    likeliest = {}
    for rank, boxes in shown.items():
        log_probs, owners = _read(reader, photos, boxes)
        standard = RANK_TEXTS[RANKS.index(rank)]
        spelt = Counter(s for s in reader.spell(log_probs) if printed_as_rank(s, rank))
        candidates = list(dict.fromkeys([standard, *(s for s, _ in spelt.most_common(SPELLINGS))]))
        scores = reader.likelihoods(log_probs, owners, len(boxes), reader.encode(candidates))
        readable = np.isfinite(scores).all(axis=1)
        if readable.any():
            per_index = scores[readable].mean(axis=0)
            best = int(per_index.argmax())
            likeliest[rank] = RankText(candidates[best], float(per_index[best] - per_index[0]), float(per_index[0]))
    return likeliest


def printed_as_rank(text: str, rank: str | None = None) -> bool:
    """Whether a deck may print ``text`` for a rank (for ``rank``, when given): one or two
    characters (``LONGEST``), a capital letter or a digit first ("V", "1", "10", "Kn"), then a
    letter or digit. A lone small letter is a misreading: a real Dutch queen's "V" was read as
    "n", and learnt so. Only the ace and the court cards are lettered a deck's own way
    (``LETTERED``): the 2 to 10 print their numbers, and a court card's text starts with a
    letter (small print read a Dutch jack's B as "0" and as "1", surely: bench/alphabet_margins.py)."""
    if not (0 < len(text) <= LONGEST and all(map(_printed_on_cards, text)) and (text[0].isdigit() or text[0].isupper())):
        return False
    if rank is None or rank == "A":
        return True
    return text[0].isalpha() if rank in LETTERED else text == RANK_TEXTS[RANKS.index(rank)]


def _printed_on_cards(character: str) -> bool:
    """Whether a deck may print this character in an index: a digit, or a Latin or Cyrillic
    letter (the recognizer also knows thousands of CJK characters, which no deck letters its
    ranks with but which an unusual Q was read as)."""
    if character.isdigit():
        return True
    return character.isalpha() and unicodedata.name(character, "").startswith(("LATIN", "CYRILLIC"))


def _read(reader: RankReader, photos: Path, boxes: list) -> tuple[np.ndarray, np.ndarray]:
    """The recognizer's line log-probabilities for the boxes (image name, box), and each
    line's box (its place in ``boxes``)."""
    parts, owners, width = [], [], 1
    for image_name in dict.fromkeys(name for name, _ in boxes):
        places = [i for i, (name, _) in enumerate(boxes) if name == image_name]
        log_probs, mine = reader.read_lines(cv2.imread(str(photos / image_name)),
                                            np.array([boxes[i][1] for i in places], np.float32))
        parts.append(log_probs)
        owners.append(np.array(places)[mine] if len(mine) else mine)
        width = max(width, log_probs.shape[1])
    # Columns past a line's end are blanks, sure: they change no string's likelihood.
    padded = np.full((sum(len(p) for p in parts), width, parts[0].shape[2]), np.log(1e-12), np.float32)
    padded[:, :, 0] = 0.0
    row = 0
    for part in parts:
        padded[row:row + len(part), :part.shape[1]] = part
        row += len(part)
    return padded, np.concatenate(owners)
