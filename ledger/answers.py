"""What the ledger's services answer: one frozen dataclass each (events/answers.py explains)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from events.answers import Answer, Described


@dataclass(frozen=True)
class EntryPaid(Answer):
    """The entry line recorded, and the cash House should now hold."""

    registration_id: int
    method: str
    amount: Annotated[int, Described("Dollars taken (0 for a comp).")]
    expected_cash: Annotated[
        int, Described("Cash in the box: cash in, less cash refunds and payouts.")
    ]


@dataclass(frozen=True)
class EntryRefunded(Answer):
    """The refund line recorded, and what the player still has paid in."""

    registration_id: int
    method: str
    amount: int
    still_held: Annotated[int, Described("The player's entry dollars the event still holds.")]
    expected_cash: int


@dataclass(frozen=True)
class PayoutMade(Answer):
    """The payout line recorded, what is left of the award, and whether it is reportable."""

    registration_id: int
    method: str
    amount: int
    award_left: Annotated[int, Described("The award's dollars not yet handed over.")]
    reportable: Annotated[
        bool, Described("Winnings net of the entry above the reporting threshold.")
    ]
    expected_cash: int


@dataclass(frozen=True)
class SponsorPaid(Answer):
    """The sponsor's line recorded, and what of the sponsored pool is still to come."""

    event_id: int
    method: str
    amount: int
    still_to_come: Annotated[
        int, Described("The sponsored pool's dollars not yet recorded as received.")
    ]
    expected_cash: int


# The answers of the ledger's writes, beside the engine's (`events.answers.ALL_ANSWERS`).
LEDGER_ANSWERS: tuple[type[Answer], ...] = (EntryPaid, EntryRefunded, PayoutMade, SponsorPaid)
