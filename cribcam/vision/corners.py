"""From index corners to cards: deciding per physical card, not per box.

The finder boxes printed index corners, usually two per card, and the classifier names each;
sometimes the two corners of one card disagree (a suit flipped on the upside-down corner was
the commonest error seen). The decision here:

1. Each box votes for every card with its class scores.
2. Boxes are assigned cards greedily, strongest first, and no card twice. A box whose best
   card is taken by a box that cannot be another corner of the same card falls back to its
   best free card (that is a misread, said as a problem); one that can be joins that card.
   A box is the same printed index boxed again, and reads nothing new, when it overlaps a
   box of the card it reads (an index with a pip beside it) or holds most of a box already
   read (or lies in one): read as their next best card, such boxes made 9 of the 33 false
   cards on the real training photos.
3. When more cards were read than the photo is known to hold, the likeliest flips are merged:
   two cards of the same rank whose corners lie as far apart as a card's opposite corners.
   Without a known count only a lone flip is merged: two cards of one rank and colour, the
   only two read (a card photographed alone; real phone photos of single cards came back
   with a phantom second card), or two read in opposite corners of the one card-shaped outline
   the photo shows (``_one_card_read_twice``: a 6 upside down read as a 9, a heart as a spade),
   read together, unsure. Otherwise nothing is merged without a count: in a photo of
   many cards (a spread, a table), same-rank neighbours often lie that far apart, and
   merging them lost real cards (on the real validation photos' crowded desk, 0.50 of the
   cards read with a default limit of six, 0.58 without; no set read less precisely for it).
   What does go without a count is an unsure card read from one box on the face of a card read
   from two corners: a pip or court art, the other phantom of a single card. Where nothing is
   read without a count, two likely indices a card's corners apart may still read one card
   together (``_read_corner_pairs``): a photo of one card, its corners blurred.
4. The count is kept: with the number of cards known, never more cards than that. A card
   still too many gives its corners to a card it can be another corner of, or goes, the
   least supported first; one read surely (``_read_surely``) keeps its corners and is said
   to the player, who may hold more cards in view than the hand (a photo of six cards, or of
   a whole spread, was counted as its five surest with no word said); too few, and two
   likely indices no card claims that can be one card's corners are read together, their
   probabilities multiplied (``_read_corner_pairs``), an unsure card where they agree; then the
   likeliest index no card claimed is read as the best card still free, marked a guess: the
   reading asks about it and does not count it (of the 134 guesses on the synth-choose scenes,
   64 were right). Of 1,285 real phone photos of 4
   or 5 cards read with the count given, 101 had come back with more cards than asked for and
   108 with fewer.
5. A card is unsure when it was filled in that way, when it is the second reading of a card
   seen twice (under a count that is only the most a photo holds, the less supported of two
   cards of one rank and colour read from one corner each, a card's corners apart:
   ``_doubt_flips``), or when its best corner's
   probability is under ``UNSURE_CONF``: the player is
   asked to check it. A card filled in is more: a guess, which the reading offers as a
   question and never counts (``SeenCard.guessed``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cribcam.scoring.cards import CARD_CODES, RED_SUITS
from cribcam.vision.detections import Detections, holds, overlap_of_smaller
from cribcam.vision.reading import DUPLICATE_CARD, MAYBE_ONE_CARD, MORE_IN_VIEW, Problem, SeenCard

# Opposite corners of one card lie this many index-box sizes apart (centre to centre); two
# cards' corners in a fan or a row lie closer. Measured on rendered decks: 3.5 to 9.
CORNER_PAIR_SPAN = (3.0, 12.0)
# Boxes whose centres lie closer than one box size overlap: they hold the same printed index.
SAME_INDEX_SPAN = 1.0
CONTAINED = 0.8  # of the smaller box's area inside the other: one box holds the other
CLASS_FLOOR = 0.05  # a card with a lower score in a box gets no vote from it
# A card read with a lower probability is marked unsure: the reading warns. Chosen with the marks
# that could not be read (``reader.MARK_NONE``, ``reader.MARK_APART``) on the choosing sets, so
# that most misread hands warn and few right ones do (``bench/warnings_rule.py``; models/HISTORY.md,
# "Warnings that mean something").
UNSURE_CONF = 0.70
# A card read from one box on another card's face, with a lower probability than this, is that
# card's pips or art (``_drop_unsure_on_faces``; chosen on the real training photos, "Run 9").
FACE_PHANTOM_CONF = 0.75
FACE_INSET = 0.1  # of a card's corner-to-corner span, each side: what lies within is its face
# An index's centre lies within this share of its card's width and of its length from the
# card's corner (about 0.1 to 0.15 on the rendered decks; blur and the outline's slack the rest).
CORNER_REACH = 0.3
MORE_NAMED = 3  # cards left out beyond the count that a problem names; more are only counted


@dataclass
class _Card:
    class_id: int
    boxes: list[int] = field(default_factory=list)
    guessed: bool = False  # filled in for a missing card, or a second reading of a taken one
    filled: bool = False  # filled in for a missing card: a question for the player, not a card read


def cards_from_corners(found: Detections, conf: float = 0.25, expected: int | None = None,
                       index_like: np.ndarray | None = None, at_most: bool = False,
                       outline: np.ndarray | None = None) -> tuple[list[SeenCard], list[Problem]]:
    """Decides which cards the corner boxes show.

    Args:
        found: class-agnostically suppressed detections, one box per printed index.
        conf: a box needs a class score of at least this to count.
        expected: how many cards the photo should hold, when known: never more cards than
            this, and fewer only when no likely index is left unread.
        index_like: per box of ``found``, whether it is likely an index at all (the finder
            sure of it, the classifier not sure it is none); only such boxes fill a missing card.
        at_most: ``expected`` is only the most the photo may hold (the cards dealt to a player),
            so a card too many does not show in the count (``_doubt_flips``).
        outline: without a count, where the photo shows one card, its outline's corners
            (``pips.card_outline``): two cards read in its opposite corners are that card's
            indices read two ways (``_one_card_read_twice``).

    Returns:
        The cards, left to right, and the problems noticed on the way.
    """
    strong = np.flatnonzero(found.confidence >= conf)
    unread = np.flatnonzero(index_like & (found.confidence < conf)) if index_like is not None else None
    cards, problems = _assign(found, strong)
    if expected is None:
        if len(cards) == 2:
            _merge_lone_flip(cards, found)
        if outline is not None:
            _one_card_read_twice(cards, found, outline)
        _drop_unsure_on_faces(cards, found)
        if not cards and unread is not None:  # nothing read: one card's two blurred corners, say
            _read_corner_pairs(cards, found, 1, unread, conf)
    else:
        left_out = _keep_at_most(cards, found, expected)
        if left_out:
            problems.append(_more_than_expected(expected, [str(card) for card in left_out]))
        if unread is not None:
            _fill(cards, found, expected, _read_corner_pairs(cards, found, expected, unread, conf))
        if at_most:
            problems += _doubt_flips(cards, found)
    seen = [_seen(card, found) for card in cards]
    seen.sort(key=lambda s: s.center[0])
    return seen, problems


def _assign(found: Detections, boxes: np.ndarray) -> tuple[list[_Card], list[Problem]]:
    order = boxes[np.argsort(-found.confidence[boxes])]
    by_class: dict[int, _Card] = {}
    problems = []
    assigned: list[int] = []
    for box in order:
        if _holds_a_read_index(found, assigned, box):
            continue
        assigned.append(box)
        ranked = np.argsort(-found.scores[box])
        first = int(ranked[0])
        owner = by_class.get(first)
        if owner is None:
            by_class[first] = _Card(first, [box])
        elif _could_be_same_card(found, owner.boxes, box):
            owner.boxes.append(box)
        elif any(_span(found, other, box) < SAME_INDEX_SPAN for other in owner.boxes):
            continue  # the same printed index boxed again (with a pip beside it, say)
        else:
            free = next((int(c) for c in ranked[1:] if int(c) not in by_class
                         and found.scores[box, c] >= CLASS_FLOOR), None)
            if free is not None:  # said only when both readings became cards
                problems.append(Problem(DUPLICATE_CARD, f"two {CARD_CODES[first]} seen: only one can be in a deck; "
                                                        f"check the {CARD_CODES[free]}"))
                by_class[free] = _Card(free, [box], guessed=True)
    return list(by_class.values()), problems


def _holds_a_read_index(found: Detections, assigned: list[int], box: int) -> bool:
    """Whether ``box`` holds most of a box already read (or lies in one): the same index
    boxed again with what surrounds it, say its pips."""
    return bool(assigned) and bool((overlap_of_smaller(found.xyxy[[box]], found.xyxy[assigned]) >= CONTAINED).any())


def _drop_unsure_on_faces(cards: list[_Card], found: Detections) -> None:
    """Drops an unsure card read from one box that lies on the face of a card read from two
    corners or more: the pips or court art between a card's corners, not another card's index.
    With a count, ``_keep_at_most`` settles such cards; without one they came back as a phantom
    second card on photos of a single card (4 of the 19 false cards on the real training photos,
    no right card lost there or on synth-choose; models/HISTORY.md, "Run 9")."""
    faces = card_faces(found.xyxy[card.boxes] for card in cards)
    for card in [c for c in cards if len(c.boxes) == 1
                 and (c.guessed or found.scores[c.boxes[0], c.class_id] < FACE_PHANTOM_CONF)]:
        if holds(faces, found.centers[card.boxes[0]]).any():
            cards.remove(card)


def card_faces(cards_corners) -> np.ndarray:
    """The faces (``face``) of the cards read from two corners or more, as rows: one card's
    corner boxes each item of ``cards_corners``."""
    return np.array([face(corners) for corners in cards_corners if len(corners) >= 2], np.float32).reshape(-1, 4)


def face(corners: np.ndarray) -> np.ndarray:
    """The inner part of the rectangle a card's corner boxes (``x1, y1, x2, y2`` rows) span, a
    tenth of it off each side: its face, where pips and art lie."""
    corners = np.asarray(corners, np.float32).reshape(-1, 4)
    lo, hi = corners[:, :2].min(axis=0), corners[:, 2:].max(axis=0)
    inset = (hi - lo) * FACE_INSET
    return np.concatenate([lo + inset, hi - inset])


@dataclass(frozen=True)
class _Left:
    """A card read surely and left out of a count: its code, and how, when it went into
    another card rather than out of the photo's cards."""

    code: str
    how: str = ""

    def __str__(self) -> str:
        return f"{self.code} ({self.how})" if self.how else self.code


def _keep_at_most(cards: list[_Card], found: Detections, expected: int) -> list[_Left]:
    """Cuts ``cards`` to ``expected``: likeliest flips merged first, then the least supported
    card given to a card it can be another corner of, or dropped. Returns the cards read
    surely that are gone: dropped (cards in view beyond the count, not misreadings), or read
    surely with a suit that a merge into a card of the same rank took away."""
    left_out = []
    while len(cards) > expected:
        pair = _likeliest_flip(cards, found)
        if pair is not None:
            keep, drop = pair
            before = CARD_CODES[keep.class_id], CARD_CODES[drop.class_id]
            surely = _read_surely(drop, found, [c for c in cards if c is not drop])
            _merge(cards, found, keep, drop)
            if surely and before[0] != before[1]:
                # A suit read surely is gone into another card: said, as a card left out is.
                left_out.append(_Left(before[1], f"taken for another corner of the "
                                                 f"{CARD_CODES[keep.class_id]}"))
            continue
        drop = min(cards, key=lambda c: (not c.guessed, _evidence(found, c.boxes, c.class_id)))
        cards.remove(drop)
        if _read_surely(drop, found, cards):
            left_out.append(_Left(CARD_CODES[drop.class_id]))
            continue
        partners = [c for c in cards if len(c.boxes) + len(drop.boxes) <= 4
                    and all(_could_be_same_card(found, c.boxes, box) for box in drop.boxes)]
        if partners:  # the nearest: a card's own corners lie closer than its neighbours'
            nearest = min(partners, key=lambda c: np.mean([_span(found, a, b) for a in c.boxes
                                                           for b in drop.boxes]))
            nearest.boxes += drop.boxes
    return left_out


def _read_surely(card: _Card, found: Detections, others: list[_Card]) -> bool:
    """Whether a card was read as surely as a card that is not marked to check
    (``UNSURE_CONF``), and not on the face of another card read from two corners, where its
    pips and art lie."""
    if card.guessed or found.scores[card.boxes, card.class_id].max() < UNSURE_CONF:
        return False
    faces = card_faces(found.xyxy[c.boxes] for c in others)
    return not all(holds(faces, found.centers[box]).any() for box in card.boxes)


def _more_than_expected(expected: int, left_out: list[str]) -> Problem:
    """The problem of cards read surely beyond the count: which, or how many. (Not how many
    cards are in view: of a spread of 25, a count of 5 leaves most out unsurely, as one corner
    among others' faces.)"""
    if len(left_out) > MORE_NAMED:
        # Only the cards read surely are counted: more may lie in view, read as one corner
        # among others' faces, and a number said as all of them would be wrong (issue 45).
        return Problem(MORE_IN_VIEW, f"more cards in view than the {expected} expected: {len(left_out)} read "
                                     f"surely were left out; photograph only the cards to count, or fix the "
                                     f"misread ones")
    named = " and the ".join(sorted(left_out))
    return Problem(MORE_IN_VIEW, f"more cards in view than the {expected} expected: the {named} "
                                 f"{'was' if len(left_out) == 1 else 'were'} left out; take away the extra cards "
                                 f"or fix the misread ones")


def _merge_lone_flip(cards: list[_Card], found: Detections) -> None:
    """Merges the only two cards read when they are of one rank and colour and lie a card's
    corners apart: one card photographed alone whose corners disagree on the suit (spades
    and clubs, hearts and diamonds are the flips seen), not a pair laid corner to corner."""
    pair = _likeliest_flip(cards, found)
    if pair is not None and len({CARD_CODES[card.class_id][1] in RED_SUITS for card in pair}) == 1:
        _merge(cards, found, *pair)


def _one_card_read_twice(cards: list[_Card], found: Detections, outline: np.ndarray) -> None:
    """Makes the only two cards read one where every box of theirs lies in a corner of one
    card's ``outline`` (``corner_of``), the two cards' in opposite corners, where a card prints
    its two indices: the card's own indices, read as two cards (a 6 upside down read as a 9, a
    heart as a spade, a blurred Q as a 6). It is read from all their boxes together, their
    probabilities multiplied, and is unsure: its corners disagreed. Without the outline nothing
    tells one card from two laid corner to corner."""
    if len(cards) != 2 or any(card.guessed for card in cards):
        return
    where = [{corner_of(outline, found.centers[box]) for box in card.boxes} for card in cards]
    if None in where[0] | where[1] or where[0] & where[1]:
        return
    if not any((a - b) % 4 == 2 for a in where[0] for b in where[1]):
        return  # side by side: a card of a pile peeking out beside the top card's index, say
    boxes = cards[0].boxes + cards[1].boxes
    joint = np.prod(found.scores[boxes].astype(np.float64), axis=0)
    cards[:] = [_Card(int(joint.argmax()), boxes, guessed=True)]


def corner_of(outline: np.ndarray, point: np.ndarray) -> int | None:
    """Which corner (0 to 3, as ``outline``'s rows go round) of the card ``outline`` (four
    corners of a rectangle, ``pips.card_outline``) ``point`` lies in, within ``CORNER_REACH`` of
    its sides; None when it lies elsewhere, on the card's face or off it."""
    origin, along, across = outline[0], outline[1] - outline[0], outline[3] - outline[0]
    u, v = (float(np.dot(point - origin, side) / max(np.dot(side, side), 1e-6)) for side in (along, across))
    if not (0.0 <= u <= 1.0 and 0.0 <= v <= 1.0):  # off the card: another card's index peeking out, say
        return None
    if CORNER_REACH < u < 1 - CORNER_REACH or CORNER_REACH < v < 1 - CORNER_REACH:
        return None
    return {(False, False): 0, (True, False): 1, (True, True): 2, (False, True): 3}[(u > 0.5, v > 0.5)]


def _doubt_flips(cards: list[_Card], found: Detections) -> list[Problem]:
    """Marks to check the less supported of two cards of one rank and colour, each read from
    one corner, that lie a card's corners apart: one card whose corners disagree on the suit,
    or two cards. Under a count that is only the most a photo holds, nothing tells (a deal of
    five read as six, the KC's far corner a KS), and merging would lose a true pair: the player
    is asked. (Under a count met exactly the pair is two cards, unless another card was missed
    as well: asking there warned right hands of the choosing sets and no misread one.)"""
    problems = []
    singles = [card for card in cards if len(card.boxes) == 1 and not card.guessed]
    while (pair := _likeliest_flip(singles, found)) is not None:
        keep, doubt = pair
        if (CARD_CODES[keep.class_id][1] in RED_SUITS) == (CARD_CODES[doubt.class_id][1] in RED_SUITS):
            doubt.guessed = True
            problems.append(Problem(MAYBE_ONE_CARD, f"the {CARD_CODES[keep.class_id]} and the "
                                                    f"{CARD_CODES[doubt.class_id]} may be one card's two corners: "
                                                    f"check the {CARD_CODES[doubt.class_id]}"))
        singles = [card for card in singles if card is not keep and card is not doubt]
    return problems


def _merge(cards: list[_Card], found: Detections, keep: _Card, drop: _Card) -> None:
    """Makes two cards one: ``keep``, its suit the one with the most evidence on all corners."""
    keep.boxes += drop.boxes
    keep.class_id = _best_card(found, keep.boxes, same_rank_as=keep.class_id)
    cards.remove(drop)


def _read_corner_pairs(cards: list[_Card], found: Detections, expected: int, candidates: np.ndarray,
                       conf: float) -> np.ndarray:
    """Reads missing cards (with no count, ``expected`` 1 where nothing was read) from pairs of
    likely indices no card claims that can be two printed corners of one card (two blurred looks
    at it, neither read alone): the pair's reading is their probabilities multiplied, and a card
    still free whose share of it is at least ``conf`` (the line one box must reach) is read, best
    first. It is unsure (each corner alone was under ``conf``): the player is asked to check it.
    Returns the ``candidates`` no pair read.

    With the count given, chosen on the choosing sets against guessing from one box (``_fill``),
    lines of 0.5 to 0.7 and none: synth-choose read 0.662 -> 0.676 of its hands exactly, the
    training designs' dim webcam singles 774 -> 790 of 832 cards right (wrong 11 -> 21, all
    marked unsure), misreadings without a warning the same; without a count, only where nothing
    else is read, those singles read 764 -> 779 right (wrong 26 -> 34) (models/HISTORY.md, "Two
    blurred corners of one card")."""
    while len(cards) < expected:
        taken = [c.class_id for c in cards]
        best, best_share = None, conf
        for i, a in enumerate(candidates):
            if _claimed_by(cards, found, a):
                continue
            for b in candidates[i + 1:]:
                if _claimed_by(cards, found, b) or not _could_be_same_card(found, [int(a)], int(b)):
                    continue
                joint = found.scores[a] * found.scores[b]
                if joint.sum() <= 0:
                    continue
                # The share of all their reading, not of the free cards': two looks at a card
                # already read are no other card.
                shares = joint / joint.sum()
                shares[taken] = 0.0
                card = int(shares.argmax())
                if shares[card] >= best_share:
                    best, best_share = _Card(card, [int(a), int(b)]), float(shares[card])
        if best is None:
            break
        cards.append(best)
        candidates = candidates[~np.isin(candidates, best.boxes)]
    return candidates


def _claimed_by(cards: list[_Card], found: Detections, box: int) -> bool:
    """Whether ``box`` is most likely another corner of a card already read."""
    return any(found.scores[box, c.class_id] >= CLASS_FLOOR and _could_be_same_card(found, c.boxes, box)
               for c in cards)


def _fill(cards: list[_Card], found: Detections, expected: int, candidates: np.ndarray) -> None:
    """Reads missing cards from likely indices no card claims, best first, each as the best
    card still free; such a card is a guess."""
    while len(cards) < expected:
        taken = {c.class_id for c in cards}
        best, best_score = None, CLASS_FLOOR
        for box in candidates:
            if _claimed_by(cards, found, box):
                continue  # most likely another corner of a card already read
            free = [k for k in np.argsort(-found.scores[box]) if int(k) not in taken]
            if free and found.scores[box, free[0]] > best_score:
                best, best_score = (box, int(free[0])), float(found.scores[box, free[0]])
        if best is None:
            return
        cards.append(_Card(best[1], [best[0]], guessed=True, filled=True))
        candidates = candidates[candidates != best[0]]


def _could_be_same_card(found: Detections, boxes: list[int], box: int) -> bool:
    """Whether ``box`` can be another printed corner of the card read from ``boxes``.

    Decks printing an index in all four corners put two of them only a card's width apart,
    under the usual span, so any distance from clear of the box to a card's length will do.
    """
    return len(boxes) < 4 and all(1.5 <= _span(found, other, box) <= CORNER_PAIR_SPAN[1]
                                  for other in boxes)


def _span(found: Detections, a: int, b: int) -> float:
    """Centre-to-centre distance of two boxes, in box sizes."""
    size = max((found.sizes[a] + found.sizes[b]) / 2, 1e-6)
    return float(np.linalg.norm(found.centers[a] - found.centers[b]) / size)


def _likeliest_flip(cards: list[_Card], found: Detections):
    """The pair of cards most likely to be two corners of one card, best-supported first."""
    best, best_score = None, 0.0
    for i, a in enumerate(cards):
        for b in cards[i + 1:]:
            if a.class_id % 13 != b.class_id % 13:  # a flip keeps the rank
                continue
            if len(a.boxes) + len(b.boxes) > 4:
                continue
            low, high = CORNER_PAIR_SPAN
            if not all(low <= _span(found, x, y) <= high for x in a.boxes for y in b.boxes):
                continue
            support = float(found.confidence[a.boxes].sum() + found.confidence[b.boxes].sum())
            if support > best_score:
                keep, drop = (a, b) if _evidence(found, a.boxes + b.boxes, a.class_id) >= \
                    _evidence(found, a.boxes + b.boxes, b.class_id) else (b, a)
                best, best_score = (keep, drop), support
    return best


def _evidence(found: Detections, boxes: list[int], class_id: int) -> float:
    return float(found.scores[boxes, class_id].sum())


def _best_card(found: Detections, boxes: list[int], same_rank_as: int) -> int:
    """The suit with the most evidence over all corners of one card, rank kept."""
    rank = same_rank_as % 13
    candidates = [suit * 13 + rank for suit in range(4)]
    return max(candidates, key=lambda c: _evidence(found, boxes, c))


def _seen(card: _Card, found: Detections) -> SeenCard:
    boxes = tuple(tuple(float(v) for v in found.xyxy[b]) for b in card.boxes)
    confidence = float(found.scores[card.boxes, card.class_id].max())
    return SeenCard(CARD_CODES[card.class_id], confidence, boxes,
                    unsure=card.guessed or confidence < UNSURE_CONF, guessed=card.filled)
