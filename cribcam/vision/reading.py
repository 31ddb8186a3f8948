"""What the reader makes of a photo: the cards, the starter, and what went wrong."""

from __future__ import annotations

from dataclasses import dataclass, field

STARTER_UNKNOWN = "could not tell which card is the starter"  # how that problem begins
GUESSED = "a card could only be guessed"  # how the problem that names the guesses begins
# How the problem of cards read surely beyond the number the photo should hold begins: which
# of them make the hand is a guess, so they are not counted (vision.report.reading_report).
MORE_IN_VIEW = "more cards in view than the"
HAND_ONLY_HINT = "if the photo holds the hand alone, its starter to come"  # one card short


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
        problems: plain-language problems for the player ("two 7H seen: ...").
        width: the image width in pixels (0 when the image could not be read).
        height: the image height in pixels.
    """

    cards: tuple[SeenCard, ...] = ()
    starter: str | None = None
    problems: tuple[str, ...] = ()
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
                or any(not problem.startswith(STARTER_UNKNOWN) for problem in self.problems))

    def as_dict(self) -> dict:
        return {"cards": [seen.as_dict() for seen in self.cards],
                "guesses": [seen.as_dict() for seen in self.guesses], "starter": self.starter,
                "problems": list(self.problems), "width": self.width, "height": self.height,
                "unreadable": len(self.unreadable_boxes)}
