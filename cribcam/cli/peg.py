"""`cribcam peg`: score the play, turn by turn."""

from __future__ import annotations

import json

from cribcam.scoring import VARIANTS, score_play


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "peg", help="score the play (pegging)",
        description="Score the play. One token per turn, in order: PLAYER:CARD (suit optional), "
                    "PLAYER:go, and PLAYER:CARD=N to have a claimed peg judged. The order of "
                    "play is checked: the players take turns in the order they first play; one "
                    "who cannot play says go on his turn, and the others play on; after a go "
                    "or a 31 the player after the last to play leads. Nobody goes while he "
                    "holds a card that fits: a go is refused when the player plays such a card "
                    "later.",
        epilog="example: cribcam peg A:K B:6 A:K B:go A:2 A:2=3 B:8 B:7=2 B:9=4")
    parser.add_argument("turns", nargs="+", metavar="TURN", help="A:K, B:go, A:5H=2, ...")
    parser.add_argument("--variant", choices=list(VARIANTS), default="six-card",
                        help="how many cards each player plays: 4 (six-card), 3 (five-card)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run)


def run(args) -> int:
    pegging = score_play(args.turns, hand_size=VARIANTS[args.variant].hand_size)
    if args.json:
        print(json.dumps(pegging.as_dict()))
        return 0
    for event in pegging.events:
        card = event.play.card.code if event.play.card else "go"
        line = f"{event.play.player:>6}  {card:<3} {event.said}"
        if event.verdict:
            line += f"   [{event.verdict.message}]"
        print(line)
    print("Pegged: " + ", ".join(f"{player} {points}" for player, points in pegging.totals.items()))
    return 0
