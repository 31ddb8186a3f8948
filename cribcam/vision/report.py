"""A reading and its count together: the JSON of `cribcam read --json` and `POST /api/read`."""

from __future__ import annotations

from dataclasses import replace

from cribcam.scoring import CardError, parse_card, rules, score_hand
from cribcam.scoring.report import count_report
from cribcam.vision.reading import (
    CANNOT_COUNT,
    CHECK_CARDS,
    HAND_ONLY_HINT,
    MORE_IN_VIEW,
    STARTER_UNKNOWN,
    Problem,
    Reading,
    problems_json,
)


def expected_cards(variant: str = rules.DEFAULT_VARIANT, crib: bool = False) -> int:
    """How many cards a photo of a hand (or crib) with its starter holds."""
    return rules.VARIANTS[variant].size(crib) + 1


def read_to_count(reader, image, variant: str = rules.DEFAULT_VARIANT, crib: bool = False,
                  starter: str | None = None, hand_only: bool = False) -> Reading:
    """Reads a photo of a hand (or crib) to count, as ``cribcam read`` and ``/api/read`` do.

    The photo holds the hand and its starter, unless the player names a starter it does not
    show, or says it holds the hand only (``hand_only``: the starter to come): then it holds
    the hand alone, read as so many cards, and none of them is taken for the starter.

    Args:
        reader: a ``CardReader``, or anything with its ``read`` (the web app's reader slot).
        starter: the starter as the player names it, if he does.

    Raises:
        CardError: a starter named that is no card.
    """
    expected = expected_cards(variant, crib)
    if not hand_only:
        reading = reader.read(image, expected=expected)
        if not starter or parse_card(starter).code in reading.codes:
            return reading
    alone = reader.read(image, expected=expected - 1)
    return replace(alone, starter=None,
                   problems=tuple(p for p in alone.problems if p.code != STARTER_UNKNOWN))


def read_deal(reader, image, variant: str = rules.DEFAULT_VARIANT) -> Reading:
    """Reads a photo of the cards dealt to a player (for the discard advisor).

    Args:
        reader: a ``CardReader``, or anything with its ``read`` (the web app's reader slot).
        image: the BGR photo.
        variant: the form of the game, which says how many cards are dealt at most.
    """
    from cribcam.scoring.discard import DEALT

    # No starter, and at most a deal's cards: a pair dealt is two cards, not one card's two corners.
    return reader.read(image, expected=max(DEALT[variant]), starter=False)


def reading_report(reading: Reading, starter: str | None = None, crib: bool = False,
                   claim: int | None = None, variant: str = rules.DEFAULT_VARIANT,
                   hand_only: bool = False) -> dict:
    """The reading with its count.

    Args:
        reading: what the reader saw.
        starter: the starter as the player names it; overrides the reader's guess. It may be
            one of the cards in the photo, or a card not in it (then all cards in view are
            the hand).
        crib, claim, variant: as for ``cribcam count``.
        hand_only: the photo holds the hand alone, the starter to come (``read_to_count``).

    Returns:
        ``{"cards", "guesses", "starter", "problems", "problem_messages", "expected", "count"}``
        (the problems as ``reading.problems_json`` writes them): ``expected`` is how many
        cards the photo should hold; ``count`` is the ``cribcam count --json`` record
        of the cards read (never of the guesses), or None when they make no hand, or when more
        cards were read surely than a hand holds (``MORE_IN_VIEW``: which make it is a guess); then, when
        only the starter is unknown, ``"totals_by_starter"`` lists the total for each choice of
        starter.
    """
    record = reading.as_dict()
    record["expected"] = expected_cards(variant, crib) - hand_only
    record["starter"] = parse_card(starter).code if starter else reading.starter
    record["count"] = None
    problems = [p for p in reading.problems if not (starter and p.code == STARTER_UNKNOWN)]
    _count(record, reading, problems, crib, claim, variant, hand_only, named=bool(starter))
    record.update(problems_json(problems))
    return record


def _count(record: dict, reading: Reading, problems: list[Problem], crib: bool, claim: int | None,
           variant: str, hand_only: bool, named: bool) -> None:
    """Sets ``reading_report``'s count (or totals by starter) in its record, and adds the
    problems of counting to ``problems``; ``named``: the player named the starter."""
    codes = reading.codes
    chosen = record["starter"]
    if not (hand_only or named) and len(codes) == record["expected"] - 1:
        # One card short, as a photo of the hand alone is: the way to say so (issue 45).
        problems.append(Problem(HAND_ONLY_HINT, "if the photo holds the hand alone, its starter to come: tick "
                                                "“The hand only” on the photo page, or read it with --hand-only, "
                                                "and name the starter"))
    if any(problem.code == MORE_IN_VIEW for problem in problems):
        return  # which of the cards in view make the hand is a guess: no total of it
    if chosen is None:
        if len(codes) == record["expected"] and not hand_only:  # one of them is the starter
            record["totals_by_starter"] = _totals_by_starter(codes, crib, variant)
        return
    hand = [code for code in codes if code != chosen]
    try:
        record["count"] = count_report(score_hand(hand, chosen, crib, variant), claim)
    except CardError as exc:
        problems.append(Problem(CANNOT_COUNT, f"cannot count: {exc}"))
        return
    unsure = [seen.card for seen in reading.cards if seen.unsure]
    if unsure:
        problems.append(Problem(CHECK_CARDS, f"check the {' and the '.join(unsure)}: the reader is not sure of "
                                             f"{'it' if len(unsure) == 1 else 'them'}, and the count depends on it"))


def _totals_by_starter(codes: list[str], crib: bool, variant: str) -> list[dict]:
    totals = [{"starter": starter,
               "total": score_hand([c for c in codes if c != starter], starter, crib, variant).total}
              for starter in codes]
    return sorted(totals, key=lambda t: -t["total"])
