"""The count of a hand with the judgement of a claim, as one JSON-ready record.

This is the single shape shared by ``cribcam count --json``, ``cribcam read --json`` and the
web API, so they can never drift apart.
"""

from __future__ import annotations

from cribcam.scoring.muggins import judge_show
from cribcam.scoring.show import Score


def count_report(score: Score, claimed: int | None = None) -> dict:
    """``score`` as a dict; with ``claimed``, also ``verdict``, ``difference``, ``overlooked``.

    ``difference`` is the true total minus the claim: the points overlooked under muggins,
    negative when the player over-claimed.
    """
    record = score.as_dict()
    if claimed is not None:
        record.update(judge_show(claimed, score).as_dict())
    return record
