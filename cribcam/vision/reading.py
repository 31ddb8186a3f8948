"""What the reader makes of a photo: the cards, the starter, and what went wrong."""

from __future__ import annotations

from dataclasses import dataclass, field

# The kinds of problem a reading can have. A page or a script keys on these codes, never on
# a message's words, so a message can be reworded without changing what a page does; the
# codes web/static/*.js keys on must be among them (tests/web/test_problem_codes.py).
IMAGE_UNREADABLE = "image_unreadable"  # no image in the bytes sent
IMAGE_TOO_SMALL = "image_too_small"
NO_CARDS = "no_cards"
CARDS_MISSING = "cards_missing"  # fewer cards read than the photo should hold
# Cards read surely beyond the number the photo should hold: which of them make the hand is
# a guess, so they are not counted (vision.report.reading_report).
MORE_IN_VIEW = "more_in_view"
DUPLICATE_CARD = "duplicate_card"  # one card read twice, in two places
MAYBE_ONE_CARD = "maybe_one_card"  # two cards read that may be one card's two corners
CARD_UNREADABLE = "card_unreadable"  # a mark like a card's corner, no card read from it
PARTLY_IN_PHOTO = "partly_in_photo"  # a card the photo's edge cuts
GUESSED = "guessed"  # the cards filled in for ones the photo should hold: never counted
STARTER_UNKNOWN = "starter_unknown"  # says nothing of the cards
HAND_ONLY_HINT = "hand_only_hint"  # one card short, as a photo of the hand alone is
CANNOT_COUNT = "cannot_count"  # the cards read make no hand
CHECK_CARDS = "check_cards"  # unsure cards the count depends on
READ_BY_FACE = "read_by_face"  # a card read by its pips, its corners unread, unsure or of another rank
PROBLEM_CODES = frozenset({IMAGE_UNREADABLE, IMAGE_TOO_SMALL, NO_CARDS, CARDS_MISSING, MORE_IN_VIEW,
                           DUPLICATE_CARD, MAYBE_ONE_CARD, CARD_UNREADABLE, PARTLY_IN_PHOTO, GUESSED,
                           STARTER_UNKNOWN, HAND_ONLY_HINT, CANNOT_COUNT, CHECK_CARDS,
                           READ_BY_FACE})


@dataclass(frozen=True)
class Problem:
    """One problem of a reading: ``code``, one of ``PROBLEM_CODES``, says what kind it is;
    ``message`` says it to the player ("two 7H seen: ...")."""

    code: str
    message: str

    def __post_init__(self):
        if self.code not in PROBLEM_CODES:
            raise ValueError(f"no such problem code: {self.code!r}")

    def as_dict(self) -> dict:
        return {"code": self.code, "message": self.message}


def problems_json(problems) -> dict:
    """The ``"problems"`` of an answer, and its ``"problem_messages"``: the messages alone, as
    ``"problems"`` answered before problems had codes, kept for the scripts written then;
    deprecated, gone in 0.2.0 (web/static/api.txt says so)."""
    return {"problems": [problem.as_dict() for problem in problems],
            "problem_messages": [problem.message for problem in problems]}


@dataclass(frozen=True)
class SeenCard:
    """One physical card read from the photo.

    Attributes:
        card: its code (``5H``).
        confidence: the classifier's probability for it, from its best corner.
        boxes: the index corners it was read from, ``(x1, y1, x2, y2)`` in image pixels.
        unsure: the reader is not sure of it (a low probability, or a second reading of a card
            seen twice): the player should check it.
        guessed: filled in for a card the photo should hold but whose index could not be read
            (``corners.cards_from_corners``): a question for the player, never counted until
            the player names it.
    """

    card: str
    confidence: float
    boxes: tuple[tuple[float, float, float, float], ...]
    unsure: bool = False
    guessed: bool = False

    @property
    def center(self) -> tuple[float, float]:
        """The middle of its corners: the card's centre when both opposite corners show."""
        xs = [(b[0] + b[2]) / 2 for b in self.boxes]
        ys = [(b[1] + b[3]) / 2 for b in self.boxes]
        return sum(xs) / len(xs), sum(ys) / len(ys)

    def as_dict(self) -> dict:
        return {"card": self.card, "confidence": round(float(self.confidence), 4), "unsure": self.unsure,
                "guessed": self.guessed, "boxes": [[round(float(v), 1) for v in box] for box in self.boxes]}


@dataclass(frozen=True)
class Reading:
    """The cards in one photo.

    Attributes:
        cards: the cards read, left to right: what is counted.
        guesses: cards filled in to reach the number the photo should hold, left to right
            (``SeenCard.guessed``): questions for the player, not counted, never the starter.
        starter: the code of the card taken for the starter, or None when the layout does not say.
        problems: what the player should know of it, each a ``Problem``.
        width: the image width in pixels (0 when the image could not be read).
        height: the image height in pixels.
    """

    cards: tuple[SeenCard, ...] = ()
    starter: str | None = None
    problems: tuple[Problem, ...] = ()
    width: int = 0
    height: int = 0
    unreadable_boxes: tuple[tuple[float, float, float, float], ...] = field(default=(), repr=False)
    guesses: tuple[SeenCard, ...] = ()

    @property
    def codes(self) -> list[str]:
        return [seen.card for seen in self.cards]

    @property
    def hand(self) -> list[str]:
        """The cards other than the starter."""
        return [code for code in self.codes if code != self.starter]

    @property
    def warns(self) -> bool:
        """Whether the reading warns the player that it may be wrong: a card read unsure, a
        guess, or a problem other than not knowing the starter (which says nothing of the
        cards)."""
        return (any(seen.unsure for seen in self.cards) or bool(self.guesses)
                or any(problem.code != STARTER_UNKNOWN for problem in self.problems))

    def as_dict(self) -> dict:
        return {"cards": [seen.as_dict() for seen in self.cards],
                "guesses": [seen.as_dict() for seen in self.guesses], "starter": self.starter,
                **problems_json(self.problems), "width": self.width, "height": self.height,
                "unreadable": len(self.unreadable_boxes)}
