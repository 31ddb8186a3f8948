"""The rehearsal set that every lesson mixes in, as shipped in ``models/``."""

from cribcam.scoring.cards import RANKS
from cribcam.teach import rehearsal


def test_the_rehearsal_set_is_small_and_holds_every_kind_of_crop():
    assert rehearsal.REHEARSAL.stat().st_size < 3e6
    bank = rehearsal.load_rehearsal()
    groups = bank.groups()
    assert len(bank) >= 2000 and min(len(groups[k]) for k in ("synthetic", "art", "negative", "real")) >= 500
    assert set(bank.rank[groups["synthetic"]]) == set(range(len(RANKS)))
