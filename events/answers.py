"""What each state change answers: one frozen dataclass per service.

The same dataclass is the Python answer, the JSON stored under an idempotency key (and returned by
the API) and the OpenAPI description of that JSON (`api.schema.answer_serializer`). A field whose
default is None is left out of the JSON when it is None: a loss has no `offered`, a win no `card`.
`Described` carries the text the API documentation shows for a field.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Annotated, Any

from events.models import Outcome, RegistrationStatus


@dataclass(frozen=True, slots=True)
class Described:
    """A field's description in the API documentation."""

    text: str


@dataclass(frozen=True, slots=True)
class OneOf:
    """The values the API documentation lists for a text field whose Python type stays `str`
    (a format's machine name: a test may register a format the documentation does not list)."""

    values: tuple[str, ...]


class Answer:
    """Base of every answer (a frozen dataclass)."""


def as_json(answer: Answer) -> dict[str, Any]:
    """The JSON object for an answer: its fields, without the optional ones it does not have."""
    assert dataclasses.is_dataclass(answer)
    optional = {f.name for f in dataclasses.fields(answer) if f.default is None}
    return {
        name: value
        for name, value in dataclasses.asdict(answer).items()
        if value is not None or name not in optional
    }


def from_json[A: Answer](kind: type[A], data: dict[str, Any]) -> A:
    """The answer a JSON object stored by `as_json` describes."""
    return kind(**data)


# --- event lifecycle ----------------------------------------------------------------------------


@dataclass(frozen=True)
class EventCreated(Answer):
    """The new event, a draft."""

    event_id: int


@dataclass(frozen=True)
class EventUpdated(Answer):
    """The settings that changed (none when all were as before)."""

    event_id: int
    changed: list[str]


# What a staff's change names (events/staffing.py): its scope's kind and id.
ScopeKindField = Annotated[str, Described("What the staff belongs to: `event` or `series`.")]
ScopeIdField = Annotated[int, Described("The event's or the series' id.")]


@dataclass(frozen=True)
class StaffChanged(Answer):
    """The staff member appointed or removed (nothing to change: nothing changed)."""

    scope: ScopeKindField
    scope_id: ScopeIdField
    member: Annotated[int, Described("The House member's account id.")]


@dataclass(frozen=True)
class OwnershipTransferred(Answer):
    """The owner now (already the owner: nothing changed)."""

    scope: ScopeKindField
    scope_id: ScopeIdField
    owner: Annotated[int, Described("The owner's account id.")]


@dataclass(frozen=True)
class StaffInvited(Answer):
    """The invitation made: its token, to hand to the invitee (its link is also emailed to them)."""

    scope: ScopeKindField
    scope_id: ScopeIdField
    invitation_id: int
    role: str
    token: Annotated[
        str, Described("What the invitee, signed in with the email, accepts the invitation with.")
    ]


@dataclass(frozen=True)
class StaffInvitationCancelled(Answer):
    """The invitation is withdrawn: its link no longer works and its email is not kept."""

    scope: ScopeKindField
    scope_id: ScopeIdField
    invitation_id: int


@dataclass(frozen=True)
class StaffInvitationAccepted(Answer):
    """The invitee is on the staff, in the invitation's role."""

    scope: ScopeKindField
    scope_id: ScopeIdField
    role: str


@dataclass(frozen=True)
class DisplayLinkCreated(Answer):
    """The display link made: its address, shown this once (only its hash is kept)."""

    scope: ScopeKindField
    scope_id: ScopeIdField
    link_id: int
    label: str
    path: Annotated[
        str,
        Described(
            "The display's address on this server (`/display/<token>/`): open it on the "
            "projector's laptop. It is not shown again; House revokes a lost one."
        ),
    ]


@dataclass(frozen=True)
class DisplayLinkRevoked(Answer):
    """The display link no longer opens a board; its open displays close."""

    scope: ScopeKindField
    scope_id: ScopeIdField
    link_id: int


@dataclass(frozen=True)
class RegistrationOpened(Answer):
    """Registration is open."""

    event_id: int
    registration_open: bool


@dataclass(frozen=True)
class RegistrationClosed(Answer):
    """Registration is closed; registrations never checked in are no-shows."""

    event_id: int
    registration_open: bool


@dataclass(frozen=True)
class EventStarted(Answer):
    """The stock is sized and locked; the starting offers are dealt."""

    event_id: int
    decks: int
    supported_places: int
    commitment: str


@dataclass(frozen=True)
class PoolConfirmed(Answer):
    """The confirmed pool and its base (contribution times participants)."""

    event_id: int
    pool: int
    base: int


@dataclass(frozen=True)
class EventFinalized(Answer):
    """Places and awards are locked; the dollars no place received."""

    event_id: int
    unallocated: int


# --- players joining and leaving ----------------------------------------------------------------

Label = Annotated[str, Described("The player's public label in this event.")]


# Where a registration stands (events/waitlist.py): a place, or in line for one.
Position = Annotated[
    int | None, Described("While `waitlisted`: the place in line, from 1 (first to be offered).")
]
OfferedUntil = Annotated[
    str | None,
    Described("While `offered`: until when the place is held for the player (ISO 8601, UTC)."),
]
HoldUntil = Annotated[
    str | None,
    Described(
        "Where the entry is paid ahead: until when the place is held unpaid (ISO 8601, UTC)."
    ),
]


@dataclass(frozen=True)
class PlayerRegistered(Answer):
    """The new registration: `registered` (a place), or `waitlisted` past the capacity."""

    registration_id: int
    label: Label
    status: RegistrationStatus
    position: Position = None
    offered_until: OfferedUntil = None


@dataclass(frozen=True)
class ParticipantAdded(Answer):
    """The participant's registration, checked in."""

    registration_id: int
    label: Label


@dataclass(frozen=True)
class RegistrationCancelled(Answer):
    """The registration, cancelled."""

    registration_id: int
    status: RegistrationStatus


@dataclass(frozen=True)
class PlayerCheckedIn(Answer):
    """The registration, checked in."""

    registration_id: int
    status: RegistrationStatus


@dataclass(frozen=True)
class CheckInUndone(Answer):
    """The registration, registered again."""

    registration_id: int
    status: RegistrationStatus


@dataclass(frozen=True)
class PlayerWithdrawn(Answer):
    """The registration, withdrawn."""

    registration_id: int
    status: RegistrationStatus


@dataclass(frozen=True)
class PlaceClaimed(Answer):
    """The offered place, claimed: registered (where the entry is paid ahead, held unpaid until
    `hold_until`)."""

    registration_id: int
    status: RegistrationStatus
    hold_until: HoldUntil = None


@dataclass(frozen=True)
class WaitlistPromoted(Answer):
    """The player House gave a place to, registered."""

    registration_id: int
    status: RegistrationStatus


@dataclass(frozen=True)
class RegistrationRemoved(Answer):
    """The registration House removed, cancelled."""

    registration_id: int
    status: RegistrationStatus


@dataclass(frozen=True)
class OffersLapsed(Answer):
    """The holds that ended (their registrations cancelled) and the places offered on: the
    system's (events/tasks.py), never an endpoint's."""

    event_id: int
    lapsed: list[int]
    offered: list[int]


@dataclass(frozen=True)
class AccessReset(Answer):
    """The registration whose player was signed out everywhere."""

    registration_id: int


# --- playing ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StartingSelectionConfirmed(Answer):
    """The starting cards kept and those not kept, all now face up."""

    registration_id: int
    kept: list[str]
    not_kept: list[str]


@dataclass(frozen=True)
class ResultSubmitted(Answer):
    """The result reported; a loss's card, or a win's face-up cards to choose from."""

    registration_id: int
    game: int
    result: Outcome
    card: Annotated[str | None, Described("A loss: the card kept.")] = None
    offered: Annotated[list[str] | None, Described("A win: the face-up cards to choose from.")] = (
        None
    )


@dataclass(frozen=True)
class WinChoiceConfirmed(Answer):
    """The card kept from a win's face-up cards."""

    registration_id: int
    game: int | None
    kept: str


@dataclass(frozen=True)
class WildRevealed(Answer):
    """The wild rank revealed."""

    registration_id: int
    wild_rank: str


@dataclass(frozen=True)
class ResultCorrected(Answer):
    """The review the correction opened."""

    registration_id: int
    review_id: int


@dataclass(frozen=True)
class ReviewOpened(Answer):
    """The review opened."""

    registration_id: int
    review_id: int


@dataclass(frozen=True)
class ReviewResolved(Answer):
    """The review resolved."""

    registration_id: int
    review_id: int
    paused: Annotated[bool, Described("Still paused by another open review.")]


# --- House's tools: self check-in, payments, announcements --------------------------------------


@dataclass(frozen=True)
class SelfCheckInSwitched(Answer):
    """Whether players may check themselves in, and the code they type (None when off)."""

    event_id: int
    self_check_in: bool
    code: Annotated[
        str | None, Described("The code shown on the board; a new one each time it is switched on.")
    ] = None


@dataclass(frozen=True)
class SelfCheckedIn(Answer):
    """The player's own registration, checked in with the event's code."""

    registration_id: int
    status: RegistrationStatus


@dataclass(frozen=True)
class EveryoneCheckedIn(Answer):
    """The registrations checked in by one tap, in the order they were checked in."""

    event_id: int
    checked_in: list[int]


@dataclass(frozen=True)
class PaymentMarked(Answer):
    """The registration's paid flag and the dollars collected in the event so far."""

    registration_id: int
    paid: bool
    collected: Annotated[
        int,
        Described("The entry money the ledger holds: paid in, less voids and refunds; comps not."),
    ]


@dataclass(frozen=True)
class AnnouncementSent(Answer):
    """The announcement, and how many players it was sent to."""

    announcement_id: int
    event_id: int
    recipients: int


# The system's own answers, which no page or endpoint gives: holds ending by themselves.
SYSTEM_ANSWERS: tuple[type[Answer], ...] = (OffersLapsed,)
# The answers of the services pages, the API and commands call (events/services.py).
ALL_ANSWERS: tuple[type[Answer], ...] = tuple(
    kind for kind in Answer.__subclasses__() if kind not in SYSTEM_ANSWERS
)
