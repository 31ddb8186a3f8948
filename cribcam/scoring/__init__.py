"""The counting core: cards, the show, the play (pegging) and muggins. Pure: no I/O.

    >>> from cribcam.scoring import score_hand
    >>> score_hand(["5H", "5C", "5S", "JD"], "5D").total
    29
"""

from cribcam.scoring.cards import CARD_CODES, Card, CardError, parse_card, parse_cards
from cribcam.scoring.muggins import Verdict, judge_claim, judge_show
from cribcam.scoring.pegging import Pegging, Play, score_play
from cribcam.scoring.rules import VARIANTS
from cribcam.scoring.show import Item, Score, score_hand

__all__ = ["CARD_CODES", "Card", "CardError", "Item", "Pegging", "Play", "Score", "VARIANTS",
           "Verdict", "judge_claim", "judge_show", "parse_card", "parse_cards", "score_hand",
           "score_play"]
