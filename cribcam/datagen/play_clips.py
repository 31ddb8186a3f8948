"""Test clips of the play: cards laid one at a time under a fixed camera, a hand's blur between.

Each player holds four cards (a ``Deal``) and lays them face up in a row in front of himself,
in the order of play: the player whose turn it is lays the first of his cards that keeps the
count at 31 or under, or says go (``game.table_play.TablePlay`` keeps the turns and the
count, so the clip's record holds the events the play must give). The table is one synthetic
scene per card laid (``scenes.compose``), held still for a while; a few blurred frames (the
hand reaching in) lead to the next. As at a real table, the cards laid before are nudged now
and then as the next is laid, after a 31 or a go the count's cards are turned face down, and
the light swings slowly (a cloud, a lamp), so that no two stills are lit alike. The record says, for each step, the frame from which its
card lies there, or the frame before which its go is said (``cribcam live play --go``).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from cribcam.datagen.camera import look_at
from cribcam.datagen.clips import FILL, clip_deck, moving_frame, noisy_frame, write_rendered
from cribcam.datagen.layouts import Deal, Item, Layout, card_extent
from cribcam.datagen.scenes import compose
from cribcam.game.table_play import PlayRefused, TablePlay
from cribcam.scoring.pegging import Played

ROW_GAP = 1.7  # table units between two players' rows of cards laid (a card is 1 wide, 1.4 long)
STEP = 1.15  # between two cards of a row


@dataclass(frozen=True)
class PlaySpec:
    """What a clip of the play shows.

    Attributes:
        players: the players' names in seating order; the last deals, the first leads.
        hand_size: the cards each lays.
        hold_seconds: how long the table lies still after each card.
        transition_frames: blurred frames as a card is laid.
        fps: frames per second.
        width: frame width in pixels.
        height: frame height in pixels.
        seed: the random seed.
    """

    players: tuple[str, ...] = ("Ann", "Bob")
    hand_size: int = 4
    hold_seconds: float = 1.0
    transition_frames: int = 3
    fps: int = 10
    width: int = 640
    height: int = 480
    seed: int = 0
    nudge: float = 0.05  # how far (card widths) a card laid before may be nudged as the next is laid
    turn_down: bool = True  # the cards of a count are turned face down when it ends
    light: float = 0.12  # the light's slow swing over the clip, up and down, as a share of its level

    @property
    def hold_frames(self) -> int:
        return round(self.hold_seconds * self.fps)

    def check(self) -> None:
        """Raises ValueError for a spec no clip of the play can follow."""
        if not 2 <= len(self.players) <= 4 or len(set(self.players)) != len(self.players):
            raise ValueError(f"a clip of the play has 2 to 4 players, each named once, not {', '.join(self.players)}")
        if not 1 <= self.hand_size <= 4:
            raise ValueError(f"each player lays 1 to 4 cards, not {self.hand_size}")
        if self.fps < 1 or self.hold_frames < 1 or self.transition_frames < 0:
            raise ValueError("fps and hold_seconds must give each card a frame at least, and "
                             "transition_frames must be 0 or more")
        if self.width < self.height or self.width % 2 or self.height % 2 or self.height < 64:
            raise ValueError("frames must be landscape (width at least height), even sizes, at least 64 pixels high")


def play_order(spec: PlaySpec, deal: Deal) -> tuple[dict, list[dict]]:
    """Each player's cards, dealt from ``deal``, and the play's steps in order:
    ``{"player", "card"}`` or ``{"player", "go": True}``, each with what ``TablePlay`` answers
    to it."""
    hands = {player: deal.take(spec.hand_size) for player in spec.players}
    table = TablePlay(list(spec.players), spec.players[-1], spec.hand_size)
    left = {player: list(cards) for player, cards in hands.items()}
    steps = []
    while table.turn is not None:
        player = table.turn
        fits = [c for c in left[player] if table.count + Played.parse(c).value <= 31]
        try:
            step = table.lay(player, fits[0]) if fits else table.go(player)
        except PlayRefused:  # a go with a card that fits is refused: there is none here
            raise AssertionError("the clip's play broke its own rules") from None
        if fits:
            left[player].remove(fits[0])
        steps.append({"player": player, **({"card": fits[0]} if fits else {"go": True}), "event": step.as_dict()})
    return hands, steps


def render_play_clip(spec: PlaySpec, decks: list):
    """The clip's frames (BGR, ``spec.height`` x ``spec.width``) and its record."""
    spec.check()
    rng = np.random.default_rng([spec.seed, 0x9E6])
    deck, assets = clip_deck(rng, decks, spec.seed)
    aspect = deck.height / deck.width
    hands, steps = play_order(spec, Deal(rng))
    every = [Item("card", x, y, 0.0, code, "table") for (x, y), code in zip(
        all_places(spec), (hands[p][i] for p in spec.players for i in range(spec.hand_size)))]
    x0, y0, x1, y1 = card_extent(Layout("play", every, None, aspect))
    card_px = FILL * min(spec.width / (x1 - x0), spec.height / (y1 - y0))
    camera = look_at(((x0 + x1) / 2, (y0 + y1) / 2), card_px, tilt=float(rng.uniform(5, 12)),
                     azimuth=0.0, roll=float(rng.normal(0, 2)), size=spec.width)
    top = (spec.width - spec.height) // 2
    table_seed = int(rng.integers(2**31))

    def still(items: list[Item]) -> np.ndarray:
        scene = compose(np.random.default_rng(table_seed), Layout("play", items, None, aspect), camera, deck,
                        assets, {"name": "plain"}, photographic=False)
        return scene.image[top:top + spec.height]

    frames = film_play(spec, steps, rng, still)
    record = {"format": "y4m", **asdict(spec), "frames": len(frames), "deck": deck.name, "deck_split": deck.split,
              "deck_licence": deck.licence, **play_record(spec, hands, steps)}
    return frames, record


def all_places(spec: PlaySpec) -> list[tuple[float, float]]:
    """Where each card of the play lies once laid, in table units (a card is 1 wide), player by
    player in seating order: each player's row in front of him."""
    return [(i * STEP + _row_start(spec), _row(spec, k)) for k in range(len(spec.players)) for i in range(spec.hand_size)]


def _row(spec: PlaySpec, k: int) -> float:
    return (k - (len(spec.players) - 1) / 2) * ROW_GAP


def _row_start(spec: PlaySpec) -> float:
    return -(spec.hand_size - 1) / 2 * STEP


def film_play(spec: PlaySpec, steps: list[dict], rng: np.random.Generator, still) -> list[np.ndarray]:
    """The frames of the play's ``steps``, each step's first frame set in it (``"frame"``).

    Each card laid is added to its player's row and the table, drawn by ``still(items)`` (the
    cards lying there: kind "card" face up, "back" face down), lies still for
    ``spec.hold_frames`` frames of fresh sensor noise, led to by blurred frames of the hand
    laying it. When a count ends its cards are turned face down; as a card is laid, the cards
    laid before are nudged now and then; the light swings over the clip.
    """
    slots = {player: [] for player in spec.players}
    frames: list[np.ndarray] = []
    before = None
    for step in steps:
        if "go" in step:  # said before the next card's frames: at the frame to come
            step["frame"] = len(frames)
            continue
        player = step["player"]
        value = Played.parse(step["card"]).value
        if spec.turn_down and step["event"]["count"] == value and any(slots.values()):  # a new count
            for row in slots.values():
                row[:] = [Item("back", item.x, item.y, item.angle, None, "table") for item in row]
        for row in slots.values():  # the cards laid before, nudged now and then by the hand
            row[:] = [Item(item.kind, item.x + float(rng.normal(0, spec.nudge)), item.y + float(rng.normal(0, spec.nudge)),
                           item.angle, item.code, item.role) if rng.random() < 0.3 else item for item in row]
        seat = spec.players.index(player)
        slots[player].append(Item("card", len(slots[player]) * STEP + _row_start(spec) + float(rng.normal(0, 0.04)),
                                  _row(spec, seat) + float(rng.normal(0, 0.04)), float(rng.normal(0, 4.0)),
                                  step["card"], "table"))
        after = still([item for p in spec.players for item in slots[p]])
        if before is not None:
            frames += [moving_frame(before, after, k / (spec.transition_frames + 1), spec.width)
                       for k in range(1, spec.transition_frames + 1)]
        step["frame"] = len(frames)
        frames += [noisy_frame(rng, after) for _ in range(spec.hold_frames)]
        before = after
    return _swing_light(frames, spec.light)


def play_record(spec: PlaySpec, hands: dict, steps: list[dict]) -> dict:
    """The part of a clip's record that says its play: hands, dealer, steps and the goes as
    ``cribcam live play --go`` takes them."""
    return {"hands": hands, "dealer": spec.players[-1], "steps": steps,
            "goes": [f"{step['frame']}:{step['player']}" for step in steps if "go" in step]}


def _swing_light(frames: list[np.ndarray], light: float) -> list[np.ndarray]:
    """The frames lit by a light swinging once up and down over the clip by ``light`` of its level."""
    swing = [1.0 + light * math.sin(2 * math.pi * k / max(len(frames), 1)) for k in range(len(frames))]
    return [cv2.convertScaleAbs(frame, alpha=gain) for frame, gain in zip(frames, swing)]


def write_play_clip(path: str | Path, spec: PlaySpec, decks: list) -> dict:
    """Renders a clip of the play to ``path`` (``.y4m``) and its record beside it; returns the record."""
    return write_rendered(path, lambda: render_play_clip(spec, decks), spec.fps)
