"""The discard advice as one JSON-ready record, its points rounded once, here.

``cribcam discard --json`` prints this record, ``POST /api/discard`` answers it, and both the
command's table and the page ``/discard`` show its numbers as they are: every expectation is
rounded to ``DECIMALS`` places once, from the exact value, so the same option never reads
-0.67 in one place and -0.68 in another (the page used to round a value already rounded to
four places). The spread is the difference of the two nets shown, so the figures add up.
"""

from __future__ import annotations

from cribcam.scoring.discard import Advice

DECIMALS = 2  # points are shown to the hundredth


def points(value: float) -> float:
    """``value`` rounded to ``DECIMALS`` places: the one rounding of an expectation."""
    return round(float(value), DECIMALS) + 0.0  # + 0.0: never -0.0


def advice_report(advice: Advice) -> dict:
    """``{"cards", "dealer", "variant", "options": [{"discard", "keep", "hand", "crib",
    "net"}], "spread"}``, best option first, points rounded by ``points``."""
    options = [{"discard": [c.code for c in o.discard], "keep": [c.code for c in o.keep],
                "hand": points(o.hand), "crib": points(o.crib), "net": points(o.net)}
               for o in advice.options]
    return {"cards": [c.code for c in advice.cards], "dealer": advice.dealer,
            "variant": advice.variant, "options": options,
            "spread": points(options[0]["net"] - options[-1]["net"])}
