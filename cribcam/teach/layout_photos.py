"""Finding and naming the cards of a player's layout photos, before a deck is taught.

1. **Find**: the finder's boxes of each photo, grouped into cards by ``group_corners`` (the
   two, or four, printed corners of one card), each with the current reader's proposal.
2. **Name**: by the stated layout (``cribcam.vision.decks.LAYOUT``, ``name_in_order``), by a
   labels file (``name_by_labels``), by the one card a photo shows (``name_one_card``), or by
   the proposals confirmed or fixed on the teach page.

Runs on the runtime's models alone (no torch): the teach page and ``cribcam teach`` use it
before ``cribcam.teach.lesson`` teaches. ``cribcam.datagen.layout_photos`` draws such photos,
for the tests and the model card's measurements.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import cv2
import numpy as np

from cribcam.scoring.cards import CARD_CODES, RANKS, SUIT_NAMES, SUITS
from cribcam.vision.corners import CORNER_PAIR_SPAN
from cribcam.vision.crops import index_crop
from cribcam.vision.detections import Detections, holds

# A card's corner boxes lie this many box sizes apart (wider than the reader's, which must
# tell corners of neighbouring cards in a hand apart; large indices on small cards come to 1.9).
TEACH_SPAN = (1.5, CORNER_PAIR_SPAN[1])
STEP_TOLERANCE = 0.4  # box sizes by which the corner-to-corner steps of two cards may differ
NO_INDEX_CEILING = 0.5  # ... unless the classifier is this sure it is no index
SIZE_SPREAD = 1.6  # a box this many times larger or smaller than the photo's typical one is no index
TEACH_FINDER_SCORE = 0.3  # a finder box this sure is an index; pips and court art score less
PROPOSAL_FLOOR = 0.25  # a proposal less sure than this is no proposal: the player names it
# A card named by a proposal less sure than this is to be checked: teaching waits for the player
# to confirm or fix it (an unfamiliar deck is what teaching is for, and its court cards and aces
# often read as a number, and look sure).
SURE_PROPOSAL = 0.9


@dataclass
class FoundCard:
    """One card of a layout photo.

    Attributes:
        boxes: its index boxes ``[x1, y1, x2, y2]`` in the photo's pixels.
        name: the card it will be taught as, or None while it has no name.
        proposal: what the current reader reads there (None: it cannot tell).
        confidence: how sure the current reader is of ``proposal``.
        to_check: named by a proposal under ``SURE_PROPOSAL``: the player should confirm or fix it.
    """

    boxes: list[list[float]]
    name: str | None = None
    proposal: str | None = None
    confidence: float = 0.0
    to_check: bool = False

    @property
    def centre(self) -> np.ndarray:
        boxes = np.asarray(self.boxes, np.float64)
        return (boxes[:, :2] + boxes[:, 2:]).mean(axis=0) / 2


@dataclass
class LayoutPhoto:
    """A teaching photo, its cards, and what is wrong with it in words.

    Attributes:
        name: the photo's file name.
        image: BGR uint8.
        cards: its cards, in reading order.
        problems: sentences for the player ("holds 12 of the 13 clubs: 8C is missing").
    """

    name: str
    image: np.ndarray = field(repr=False)
    cards: list[FoundCard] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def as_json(self) -> dict:
        return {"name": self.name, "width": int(self.image.shape[1]), "height": int(self.image.shape[0]),
                "cards": [asdict(card) for card in self.cards], "problems": self.problems}


# --- finding the cards --------------------------------------------------------------------

def find_cards(reader, image: np.ndarray) -> list[FoundCard]:
    """The cards of a layout photo, in reading order, each with the current reader's proposal.

    Args:
        reader: a ``CardReader`` (its finder boxes the indices, its classifier proposes names).
        image: BGR uint8.
    """
    # Teaching takes the finder's closer look: it has the time, and an index missed is a card
    # not taught (a layout photo's indices are small at the finder's input size).
    cards = _cards_seen(image, *reader.detect(image, closer=True))
    if not _any_read(cards, reader.conf):  # a close-up, its indices larger than the finder learnt?
        farther = _cards_seen(image, *reader.detect(image, farther=True))
        if _any_read(farther, reader.conf):
            return farther
    return cards


def _any_read(cards: list[FoundCard], conf: float) -> bool:
    """Whether a reader that counts a card from ``conf`` would read any of ``cards``."""
    return any(card.confidence >= conf for card in cards)


def _cards_seen(image: np.ndarray, found: Detections, finder_score: np.ndarray,
                no_index: np.ndarray) -> list[FoundCard]:
    """The cards of one look's classified boxes (``CardReader.detect``), in reading order."""
    # Pips and court art the finder boxes too: the classifier knows them for no index, and
    # every index of one deck in one photo is about the same size.
    keep = no_index < NO_INDEX_CEILING
    sizes = np.maximum(found.xyxy[:, 2] - found.xyxy[:, 0], found.xyxy[:, 3] - found.xyxy[:, 1])
    sure = keep & (finder_score >= TEACH_FINDER_SCORE)
    if sure.any():
        typical = float(np.median(sizes[sure]))
        keep &= (sizes >= typical / SIZE_SPREAD) & (sizes <= typical * SIZE_SPREAD)
    keep = _distinct(found.xyxy, finder_score, keep)
    boxes, scores, finder_score = found.xyxy[keep], found.scores[keep], finder_score[keep]
    # A box the finder is unsure of counts when it pairs with another as a card's corners.
    groups = [g for g in group_corners(image, boxes) if len(g) > 1 or finder_score[g[0]] >= TEACH_FINDER_SCORE]
    groups = _without_inner(groups, boxes)
    cards = [FoundCard([[round(float(v), 1) for v in boxes[i]] for i in group]) for group in groups]
    _propose(cards, [scores[group].sum(axis=0) / len(group) for group in groups])
    return reading_order(cards)


def _distinct(boxes: np.ndarray, score: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Of the boxes kept, one per printed index: the finder's surest, not one whose centre
    lies in a surer box, or that holds the centre of one (a box of the rank alone, say)."""
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    chosen: list[int] = []
    for i in np.flatnonzero(keep)[np.argsort(-score[keep], kind="stable")]:
        if not any(holds(boxes[k], centres[i])[0] or holds(boxes[i], centres[k])[0] for k in chosen):
            chosen.append(int(i))
    return np.array(sorted(chosen), dtype=int)


def _without_inner(groups: list[list[int]], boxes: np.ndarray) -> list[list[int]]:
    """The groups but those lying within another card (its corners' span and half an index
    around): pips and court art. A neighbour's corner lies an index and more beyond."""
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    reach = 0.5 * float(np.median(np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]))) \
        if len(boxes) else 0.0
    spans = [(k, centres[g].min(axis=0) - reach, centres[g].max(axis=0) + reach)
             for k, g in enumerate(groups) if len(g) > 1]
    return [g for k, g in enumerate(groups)
            if not any(other != k and ((low < centres[g]) & (centres[g] < high)).all() for other, low, high in spans)]


def group_corners(image: np.ndarray, boxes: np.ndarray) -> list[list[int]]:
    """Which index boxes are printed corners of one card, in a photo of cards lying apart.

    Every card of a layout photo lies the same way up, so the step from a card's top-left
    index to its bottom-right one (in index sizes) is about the same for each card, and only
    chance pairs of neighbours share another step as often. Opposite corners print the same
    index turned half round, which tells them from other pairs: a pair counts for its step by
    how alike its two crops are with one turned. So:

    1. the step that most alike pairs share (the shorter of equals) is taken, and boxes are
       paired along it, most alike first;
    2. decks printing four corners: alike pairs about the centre of a card found are its
       other diagonal;
    3. boxes left that lie about one step apart in pixels are paired too (a corner in shade,
       half hidden, or boxed larger than the others);
    4. a box left over is a card with one corner in view.

    Returns:
        Lists of box indices, one per card.
    """
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    sizes = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]).astype(np.float64)
    grey = [cv2.cvtColor(index_crop(image, box), cv2.COLOR_BGR2GRAY).astype(np.float32) for box in boxes]
    free = set(range(len(boxes)))

    def candidates() -> list[tuple[int, int, np.ndarray, float]]:
        """Pairs of free boxes a card's corners apart: (i, j, step, likeness)."""
        return [(i, j, _step(centres, sizes, i, j), _turned_likeness(grey[i], grey[j]))
                for i in sorted(free) for j in sorted(free)
                if i < j and TEACH_SPAN[0] <= _span(centres, sizes, i, j) <= TEACH_SPAN[1]]

    def take(chosen) -> list[list[int]]:
        taken = []
        for i, j, *_ in chosen:
            if i in free and j in free:
                free.difference_update((i, j))
                taken.append([i, j])
        return taken

    first = _best_step(candidates())
    if first is None:
        return [[i] for i in sorted(free)]
    pairs = take(sorted((c for c in candidates() if np.linalg.norm(c[2] - first) <= STEP_TOLERANCE
                         and c[3] > 0.5), key=lambda c: -c[3]))
    middles = [centres[pair].mean(axis=0) for pair in pairs]
    pairs += take(sorted((c for c in candidates() if c[3] > 0.5 and any(
        np.linalg.norm(centres[[c[0], c[1]]].mean(axis=0) - m) < sizes[c[0]] for m in middles)), key=lambda c: -c[3]))
    # In pixels: a box drawn larger or smaller than the index changes the step in box sizes.
    usual = np.median([_step(centres, np.ones(len(boxes)), *pair) for pair in pairs[:len(middles)]], axis=0)

    def off(c) -> float:
        return float(np.linalg.norm(_step(centres, np.ones(len(boxes)), c[0], c[1]) - usual))

    pairs += take(sorted((c for c in candidates() if off(c) <= 0.25 * np.linalg.norm(usual)), key=off))
    return _merge_about_centres(pairs, centres, sizes) + [[i] for i in sorted(free)]


def _best_step(candidates: list[tuple[int, int, np.ndarray, float]]) -> np.ndarray | None:
    """The corner-to-corner step that the most alike pairs share, or None when no pair is alike."""
    if not candidates:
        return None
    steps = np.array([c[2] for c in candidates])
    weight = np.array([2 * c[3] - 1 for c in candidates]).clip(0, 1)  # turned glyphs near 1, others 0
    near = np.linalg.norm(steps[:, None] - steps[None], axis=2) <= STEP_TOLERANCE
    support = (near * weight[None]).sum(axis=1) - 0.01 * np.linalg.norm(steps, axis=1)
    best = int(support.argmax())
    return steps[best] if support[best] > 0 else None


def _span(centres: np.ndarray, sizes: np.ndarray, i: int, j: int) -> float:
    return float(np.linalg.norm(centres[i] - centres[j]) / max((sizes[i] + sizes[j]) / 2, 1e-6))


def _step(centres: np.ndarray, sizes: np.ndarray, i: int, j: int) -> np.ndarray:
    """The step from one box to the other in box sizes, pointing rightwards (either order)."""
    step = (centres[j] - centres[i]) / max((sizes[i] + sizes[j]) / 2, 1e-6)
    return -step if step[0] < 0 or (step[0] == 0 and step[1] < 0) else step


def _turned_likeness(a: np.ndarray, b: np.ndarray) -> float:
    """Normalised correlation of crop ``a`` with crop ``b`` turned half round (-1 to 1)."""
    b = b[::-1, ::-1]
    a, b = a - a.mean(), b - b.mean()
    return float((a * b).sum() / max(np.sqrt((a * a).sum() * (b * b).sum()), 1e-6))


def _merge_about_centres(pairs: list[list[int]], centres: np.ndarray, sizes: np.ndarray) -> list[list[int]]:
    """Pairs whose midpoints are within a box size of each other: the diagonals of one card."""
    cards: list[list[int]] = []
    middles: list[np.ndarray] = []
    for pair in pairs:
        middle = centres[pair].mean(axis=0)
        for k, other in enumerate(middles):
            if np.linalg.norm(middle - other) < sizes[pair].mean() and len(cards[k]) < 4:
                cards[k] += pair
                break
        else:
            cards.append(list(pair))
            middles.append(middle)
    return cards


def _propose(cards: list[FoundCard], probabilities: list[np.ndarray]) -> None:
    """Gives each card the current reader's likeliest name, no name to two cards."""
    taken: set[int] = set()
    order = sorted(range(len(cards)), key=lambda k: -float(probabilities[k].max()))
    for k in order:
        ranked = [int(c) for c in np.argsort(-probabilities[k]) if int(c) not in taken]
        best = ranked[0] if ranked else None
        if best is not None and probabilities[k][best] >= PROPOSAL_FLOOR:
            taken.add(best)
            cards[k].proposal, cards[k].confidence = CARD_CODES[best], round(float(probabilities[k][best]), 3)


def reading_order(cards: list[FoundCard]) -> list[FoundCard]:
    """The cards in rows top to bottom, each row left to right.

    A new row starts where a card's centre lies lower than the row's by more than half a card.
    """
    if not cards:
        return []
    centres = card_centres(cards)
    reach = _card_reach(cards)
    rows: list[list[int]] = []
    for k in np.argsort(centres[:, 1], kind="stable"):
        if rows and centres[k, 1] - centres[rows[-1], 1].mean() < reach / 2:
            rows[-1].append(int(k))
        else:
            rows.append([int(k)])
    return [cards[k] for row in rows for k in sorted(row, key=lambda k: centres[k, 0])]


def card_centres(cards: list[FoundCard]) -> np.ndarray:
    """(n, 2) card centres: the middle of a card's corners, and for a card with one corner in
    view, half the usual corner-to-corner step away from it, on whichever side lies closer
    to the other cards' rows and columns."""
    centres = np.array([card.centre for card in cards])
    steps = [_pair_step(card) for card in cards if len(card.boxes) >= 2]
    if not steps:
        return centres
    half = np.median(steps, axis=0) / 2
    placed = centres[[len(card.boxes) >= 2 for card in cards]]
    for k, card in enumerate(cards):
        if len(card.boxes) == 1:
            options = [centres[k] + half, centres[k] - half]
            centres[k] = min(options, key=lambda c: np.abs(placed - c).min(axis=0).sum())
    return centres


def _pair_step(card: FoundCard) -> np.ndarray:
    """The step between a card's first two corners in pixels, pointing rightwards."""
    a, b = (np.add(box[:2], box[2:]) / 2 for box in card.boxes[:2])
    step = b - a
    return -step if step[0] < 0 or (step[0] == 0 and step[1] < 0) else step


def _card_reach(cards: list[FoundCard]) -> float:
    """About a card's height in pixels: the median distance between a card's corner boxes."""
    spans = [np.linalg.norm(_pair_step(card)) for card in cards if len(card.boxes) >= 2]
    if spans:
        return float(np.median(spans))
    return 6.0 * float(np.median([b[3] - b[1] for c in cards for b in c.boxes]))


# --- naming them --------------------------------------------------------------------------

def suit_names(suits: str | None, photos: int) -> str:
    """The suit of each photo of the ordered layout: ``suits`` ("CDHS" by default), checked.

    Raises:
        ValueError: a letter is no suit, a suit is named twice, or there are more photos
            than suits.
    """
    suits = (suits or SUITS[:photos]).upper()
    if any(s not in SUITS for s in suits) or len(set(suits)) != len(suits):
        raise ValueError(f"name each photo's suit once, as letters of CDHS (clubs, diamonds, hearts, spades), "
                         f"not {suits!r}")
    if photos > len(SUITS):
        raise ValueError(f"{photos} photos: the layout takes one suit per photo, four at most")
    if len(suits) != photos:
        raise ValueError(f"{photos} photos but {len(suits)} suits named ({suits}): one suit per photo")
    return suits


def name_in_order(photo: LayoutPhoto, suit: str) -> None:
    """Names the photo's cards ace to king of ``suit`` in reading order (the stated ``LAYOUT``).

    A gap in a row wider than the others stands for a card not found; when the cards and gaps
    make thirteen the missing ones are named in ``photo.problems``, and otherwise nothing is
    named, as any name might be one off.
    """
    rows = _rows_with_gaps(photo.cards)
    slots = [card for row in rows for card in row]  # None where a gap stands for a card
    suit_name = SUIT_NAMES[suit]
    found = sum(card is not None for card in slots)
    if len(slots) != len(RANKS):
        if len(slots) > len(RANKS):
            photo.problems.append(f"{photo.name}: {found} cards found in rows that hold {len(slots)}, but a suit "
                                  f"has 13: lay out only the {suit_name}, ace to king, in even rows, and "
                                  f"photograph them again")
        else:
            photo.problems.append(f"{photo.name}: {found} of the 13 {suit_name} found and it cannot tell which "
                                  f"{'is' if len(RANKS) - found == 1 else 'are'} missing: show both corners of "
                                  f"every card and photograph them again, or name its cards yourself (on the teach "
                                  f"page, or with --labels)")
        for card in photo.cards:
            card.name = None
        return
    missing = []
    for rank, card in zip(RANKS, slots):
        if card is None:
            missing.append(f"{rank}{suit}")
        else:
            card.name = f"{rank}{suit}"
    if missing:
        photo.problems.append(f"{photo.name}: {_listing(missing)} of the {suit_name} not found: "
                              f"{'it is' if len(missing) == 1 else 'they are'} not taught from this photo")


def _rows_with_gaps(cards: list[FoundCard]) -> list[list[FoundCard | None]]:
    """The cards (in reading order) as rows, with None where a row has a gap for a card."""
    if not cards:
        return []
    x = card_centres(cards)[:, 0]
    rows: list[list[int]] = [[0]]
    for k in range(1, len(cards)):
        if x[k] > x[rows[-1][-1]]:
            rows[-1].append(k)
        else:
            rows.append([k])
    steps = [x[b] - x[a] for row in rows for a, b in zip(row, row[1:])]
    pitch = float(np.median(steps)) if steps else _card_reach(cards)
    out = []
    for row in rows:
        filled: list[FoundCard | None] = [cards[row[0]]]
        for a, b in zip(row, row[1:]):
            filled += [None] * max(0, round((x[b] - x[a]) / pitch) - 1)
            filled.append(cards[b])
        out.append(filled)
    return out


def name_by_proposals(photo: LayoutPhoto) -> None:
    """Names each card as the current reader proposes; those it cannot read are said."""
    unnamed = []
    for card in photo.cards:
        card.name = card.proposal
        card.to_check = card.proposal is not None and card.confidence < SURE_PROPOSAL
        if card.proposal is None:
            unnamed.append(card)
    if unnamed:
        places = _listing([_place(card, photo.image) for card in unnamed])
        photo.problems.append(f"{photo.name}: the card{'s' if len(unnamed) > 1 else ''} {places} could not be "
                              f"read: name {'them' if len(unnamed) > 1 else 'it'}")


def name_by_labels(photo: LayoutPhoto, entry: dict, reader) -> None:
    """Takes the cards and boxes of a labels entry as they are, and says which of them the
    finder does not find (they are taught, but reading them will need a clearer photo).

    A card labelled without a box (``{"card": "QH", "box": null}``, the class-only form
    ``cribcam eval`` reads too) is the one card its photo shows: ``name_one_card``.
    """
    cards = entry.get("cards", [])
    unboxed = [label for label in cards if isinstance(label, dict) and label.get("box") is None]
    if unboxed:
        if len(cards) != 1:
            raise ValueError(f"{photo.name}: a card named without a box must be the only card of its photo "
                             f"(every index found in it is taken for that card); give boxes to name several")
        code = str(unboxed[0].get("card", "")).upper()
        if code not in CARD_CODES:
            raise ValueError(f"{photo.name}: {code!r} is not a card: name cards like 5H, TD, QS")
        name_one_card(photo, code, reader)
        return
    by_card: dict[str, list[list[float]]] = {}
    for label in cards:
        code = str(label.get("card", "")).upper() if isinstance(label, dict) else ""
        box = label.get("box") if isinstance(label, dict) else None
        if code not in CARD_CODES or not (isinstance(box, list) and len(box) == 4):
            raise ValueError(f"{photo.name}: {label!r} is not a label: expected "
                             '{"card": "TC", "box": [x1, y1, x2, y2]} or {"card": "TC", "box": null}')
        by_card.setdefault(code, []).append([float(v) for v in box])
    photo.cards = reading_order([FoundCard(boxes, name=code)
                                 for code, boxes in by_card.items()])
    unseen = _unfound(photo, reader.find(photo.image, closer=True).xyxy)
    if unseen:
        photo.problems.append(f"{photo.name}: the finder does not see the index of {_listing(unseen)}: "
                              f"taught all the same, but photograph them more clearly to read them")


def name_one_card(photo: LayoutPhoto, code: str | None, reader) -> None:
    """Takes every index found in a photo of one card for that card: ``code``, or when None
    the current reader's surest proposal (for the player to confirm or fix)."""
    found = find_cards(reader, photo.image)
    boxes = [box for card in found for box in card.boxes]
    if not boxes:
        photo.cards = []
        photo.problems.append(f"{photo.name}: no index found: photograph the card closer, its corners in view")
        return
    surest = max(found, key=lambda card: card.confidence)
    photo.cards = [FoundCard(boxes, code or surest.proposal, surest.proposal, surest.confidence,
                             to_check=code is None and surest.proposal is not None
                             and surest.confidence < SURE_PROPOSAL)]
    if photo.cards[0].name is None:
        photo.problems.append(f"{photo.name}: the card could not be read: name it")


def _unfound(photo: LayoutPhoto, found: np.ndarray) -> list[str]:
    """The named cards of which no index box overlaps a box found (IoU 0.5, as ``cribcam eval``)."""
    from cribcam.vision.detections import box_iou
    from cribcam.vision.evaluate import FOUND_IOU

    unseen = []
    for card in photo.cards:
        overlap = box_iou(np.asarray(card.boxes, np.float32), np.asarray(found, np.float32).reshape(-1, 4))
        if not (overlap >= FOUND_IOU).any():
            unseen.append(card.name)
    return unseen


def missing_cards(photos: list[LayoutPhoto]) -> list[str]:
    """The cards of the deck that no photo names yet, in ``CARD_CODES`` order."""
    named = {card.name for photo in photos for card in photo.cards if card.name}
    return [code for code in CARD_CODES if code not in named]


def check_names(photos: list[LayoutPhoto]) -> None:
    """Raises ValueError for a name that is no card, or one card named twice in a photo."""
    for photo in photos:
        names = [card.name for card in photo.cards if card.name]
        for name in names:
            if name not in CARD_CODES:
                raise ValueError(f"{photo.name}: {name!r} is not a card: name cards like 5H, TD, QS")
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"{photo.name}: {_listing(twice)} named twice in one photo: a deck has one of each")


def as_labels(photos: list[LayoutPhoto]) -> dict:
    """The named cards of the photos in the labels format of ``cribcam eval --labels``."""
    return {photo.name: {"cards": [{"card": card.name, "box": box} for card in photo.cards if card.name
                                   for box in card.boxes]}
            for photo in photos}


def _listing(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _place(card: FoundCard, image: np.ndarray) -> str:
    x, y = card.centre / np.array(image.shape[1::-1])
    row = "top" if y < 1 / 3 else "bottom" if y > 2 / 3 else "middle"
    column = "left" if x < 1 / 3 else "right" if x > 2 / 3 else "middle"
    return "in the middle" if row == column == "middle" else f"at the {row} {column}".replace("middle ", "")
