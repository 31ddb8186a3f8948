"""What the reader makes of a photo: the cards, the starter, and what went wrong."""

from __future__ import annotations

from dataclasses import dataclass, field

STARTER_UNKNOWN = "could not tell which card is the starter"  # how that problem begins


@dataclass(frozen=True)
class SeenCard:
    """One physical card read from the photo.

    Attributes:
        card: its code (``5H``).
        confidence: the classifier's probability for it, from its best corner.
        boxes: the index corners it was read from, ``(x1, y1, x2, y2)`` in image pixels.
        unsure: the reader is not sure of it (a low probability, or filled in for a card it
            could not read): the player should check it.
    """

    card: str
    confidence: float
    boxes: tuple[tuple[float, float, float, float], ...]
    unsure: bool = False

    @property
    def center(self) -> tuple[float, float]:
        """The middle of its corners: the card's centre when both opposite corners show."""
        xs = [(b[0] + b[2]) / 2 for b in self.boxes]
        ys = [(b[1] + b[3]) / 2 for b in self.boxes]
        return sum(xs) / len(xs), sum(ys) / len(ys)

    def as_dict(self) -> dict:
        return {"card": self.card, "confidence": round(float(self.confidence), 4), "unsure": self.unsure,
                "boxes": [[round(float(v), 1) for v in box] for box in self.boxes]}


@dataclass(frozen=True)
class Reading:
    """The cards in one photo.

    Attributes:
        cards: the cards found, left to right.
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

    @property
    def codes(self) -> list[str]:
        return [seen.card for seen in self.cards]

    @property
    def hand(self) -> list[str]:
        """The cards other than the starter."""
        return [code for code in self.codes if code != self.starter]

    def as_dict(self) -> dict:
        return {"cards": [seen.as_dict() for seen in self.cards], "starter": self.starter,
                "problems": list(self.problems), "width": self.width, "height": self.height,
                "unreadable": len(self.unreadable_boxes)}
