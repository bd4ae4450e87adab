"""Request bodies, one per service that takes one: types and ranges only, the services decide
everything else. The API checks its requests with them, and the player pages and House's pages
check their forms with the same ones (`helpers.forms.checked`), so the limits are written once.

A reason is never refused here for being empty: the services refuse an empty one where the rules
require it, with the documented `reason_required` code. The schema marks the reasons House always
gives as required (`RequiredReason`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import serializers
from rest_framework.fields import empty

from events import limits
from events.formats import FORMATS as FORMATS_BY_NAME
from events.formats import FormatName
from events.models import EntryMode, Outcome, RefundPolicy

FORMATS = [name.value for name in FormatName]
# The board's and the printed sheets' language: one of settings.LANGUAGES, "" for the venue's.
LANGUAGE_CODES = ["", *(code for code, _ in settings.LANGUAGES)]
LANGUAGE_HELP = (
    "The language of the projector board, the final page and the printed sheets; empty: the "
    "venue's (the deployment's own)."
)
OUTCOMES = list(Outcome.values)


class Body(serializers.Serializer[Any]):
    """A JSON object with only the listed fields: a misspelt field is refused, not ignored."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError(
                    {name: [_("This field is not accepted here.")] for name in unknown}
                )
        return super().to_internal_value(data)


class Text(serializers.CharField):
    """Text as sent: a number or a list is refused, not turned into text; control characters are
    refused (line breaks and tabs too unless `multiline`)."""

    def __init__(self, *, multiline: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.multiline = multiline
        self.validators.append(limits.multi_line if multiline else limits.single_line)

    def run_validation(self, data: Any = empty) -> Any:
        # The text as sent, before the surrounding whitespace is trimmed: what the schema's
        # `pattern` and `maxLength` describe (a line break or a control character at either end
        # is refused, not trimmed away; so is a padded text past the length).
        if isinstance(data, str):
            problem = limits.text_problem(data, multiline=self.multiline)
            if problem:
                raise serializers.ValidationError(
                    _("This text %(problem)s.") % {"problem": problem}, code="characters"
                )
            if self.max_length is not None and len(data) > self.max_length:
                self.fail("max_length", max_length=self.max_length)
        return super().run_validation(data)

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class Day(serializers.DateField):
    """A calendar day written exactly as the schema's `format: date` says (YYYY-MM-DD, RFC 3339),
    not in the looser forms Python also reads (`2026-1-5`, `20261205`, `2026-W49-2`)."""

    def to_internal_value(self, value: Any) -> Any:
        if not isinstance(value, str) or not FULL_DATE.fullmatch(value):
            self.fail("invalid", format="YYYY-MM-DD")
        return super().to_internal_value(value)


FULL_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


class RequiredReason(Text):
    """A reason the rules always require. The schema says so (required, not blank); a request
    without one still reaches the service, which refuses it as `reason_required` in its own words
    and stores that refusal under the Idempotency-Key like any other."""

    schema_required = True


def reason_field(
    help_text: str = "Why (required where the rules say House needs a reason).",
    *,
    required: bool = False,
) -> Any:
    return (RequiredReason if required else Text)(
        required=False,
        allow_blank=True,
        default="",
        max_length=limits.REASON_LENGTH,
        multiline=True,
        help_text=help_text,
    )


class Empty(Body):
    """No fields: the path says everything."""


class EventCreate(Body):
    name = Text(max_length=limits.NAME_LENGTH)
    date = Day(help_text="The event day, YYYY-MM-DD.")
    format = serializers.ChoiceField(choices=FORMATS)
    contribution = serializers.IntegerField(
        min_value=0,
        max_value=limits.MAX_CONTRIBUTION,
        default=0,
        help_text="Whole dollars per participant.",
    )
    extra_decks = serializers.IntegerField(min_value=0, max_value=limits.MAX_EXTRA_DECKS, default=1)
    remainder_policy = Text(
        allow_blank=True,
        default="",
        max_length=limits.POLICY_LENGTH,
        multiline=True,
        help_text="How an indivisible High remainder is handled; required for a paid event "
        "before registration opens, and kept from then on (409 remainder_policy_required).",
    )
    venue = Text(allow_blank=True, default="", max_length=limits.VENUE_LENGTH)
    time_zone = Text(
        default="UTC", max_length=limits.TIME_ZONE_LENGTH, help_text="The venue's IANA time zone."
    )
    organization_id = serializers.IntegerField(
        min_value=1,
        max_value=limits.ID_MAX,
        required=False,
        help_text="The organization it is made in (its owner or a director); its monthly cap "
        "counts it (409 event_cap_reached).",
    )
    venue_id = serializers.IntegerField(
        min_value=1,
        max_value=limits.ID_MAX,
        required=False,
        help_text="One of the organization's venues: the event takes its name and time zone.",
    )
    entry_mode = serializers.ChoiceField(
        choices=EntryMode.values,
        default=EntryMode.PAID.value,
        help_text="`paid`: the pool is the contributions; `sponsored`: free entry (contribution "
        "0) with the sponsored pool House states.",
    )
    sponsored_pool = serializers.IntegerField(
        min_value=0, max_value=limits.MAX_SPONSORED_POOL, default=0
    )
    refund_policy = serializers.ChoiceField(
        choices=RefundPolicy.values, default=RefundPolicy.CANCELLATIONS.value
    )
    minimum_age = serializers.IntegerField(
        min_value=0,
        max_value=99,
        default=0,
        help_text="Players confirm they are this old before registering; 0 asks nothing.",
    )
    registration_opens_at = serializers.DateTimeField(
        allow_null=True,
        default=None,
        help_text="Players register from then on (null: as soon as House opens registration).",
    )
    registration_closes_at = serializers.DateTimeField(
        allow_null=True,
        default=None,
        help_text="Players register until then (null: until House closes registration); after "
        "the opening (409 wrong_state).",
    )
    capacity = serializers.IntegerField(
        min_value=1,
        max_value=limits.MAX_CAPACITY,
        allow_null=True,
        default=None,
        help_text="The most players who hold a place; past it they are waitlisted (null: no cap).",
    )
    hold_minutes = serializers.IntegerField(
        min_value=1,
        max_value=limits.MAX_HOLD_MINUTES,
        default=30,
        help_text="How long an offered (or unpaid) place is held before the event's day.",
    )
    day_hold_minutes = serializers.IntegerField(
        min_value=1,
        max_value=limits.MAX_HOLD_MINUTES,
        default=10,
        help_text="How long an offered (or unpaid) place is held on the event's day.",
    )
    pay_ahead = serializers.BooleanField(
        default=False,
        help_text="The entry is paid online when taking a place, where payments are set up.",
    )
    language = serializers.ChoiceField(
        choices=LANGUAGE_CODES, allow_blank=True, default="", help_text=LANGUAGE_HELP
    )


class EventUpdate(Body):
    """Any subset of the draft settings; only the fields sent change."""

    name = Text(max_length=limits.NAME_LENGTH, required=False)
    date = Day(required=False)
    format = serializers.ChoiceField(choices=FORMATS, required=False)
    contribution = serializers.IntegerField(
        min_value=0, max_value=limits.MAX_CONTRIBUTION, required=False
    )
    extra_decks = serializers.IntegerField(
        min_value=0, max_value=limits.MAX_EXTRA_DECKS, required=False
    )
    remainder_policy = Text(
        allow_blank=True, max_length=limits.POLICY_LENGTH, multiline=True, required=False
    )
    venue = Text(allow_blank=True, max_length=limits.VENUE_LENGTH, required=False)
    time_zone = Text(max_length=limits.TIME_ZONE_LENGTH, required=False)
    entry_mode = serializers.ChoiceField(choices=EntryMode.values, required=False)
    sponsored_pool = serializers.IntegerField(
        min_value=0, max_value=limits.MAX_SPONSORED_POOL, required=False
    )
    refund_policy = serializers.ChoiceField(choices=RefundPolicy.values, required=False)
    minimum_age = serializers.IntegerField(min_value=0, max_value=99, required=False)
    registration_opens_at = serializers.DateTimeField(allow_null=True, required=False)
    registration_closes_at = serializers.DateTimeField(allow_null=True, required=False)
    capacity = serializers.IntegerField(
        min_value=1,
        max_value=limits.MAX_CAPACITY,
        allow_null=True,
        required=False,
        help_text="Not below the players who hold a place (409 capacity_below_field); raised, "
        "the places it adds are offered to the waitlist at once.",
    )
    hold_minutes = serializers.IntegerField(
        min_value=1, max_value=limits.MAX_HOLD_MINUTES, required=False
    )
    day_hold_minutes = serializers.IntegerField(
        min_value=1, max_value=limits.MAX_HOLD_MINUTES, required=False
    )
    pay_ahead = serializers.BooleanField(required=False)
    language = serializers.ChoiceField(
        choices=LANGUAGE_CODES, allow_blank=True, required=False, help_text=LANGUAGE_HELP
    )


class HouseMember(Body):
    user_id = serializers.IntegerField(min_value=1, help_text="The account to appoint.")
    role = serializers.ChoiceField(
        choices=["director", "cashier", "scorer"],
        required=False,
        help_text="The staff member's role (staff/roles.py); director when not given.",
    )


class StaffInvitation(Body):
    email = serializers.EmailField(help_text="Who is invited: they accept signed in with it.")
    role = serializers.ChoiceField(
        choices=["director", "cashier", "scorer"],
        required=False,
        help_text="Their role (staff/roles.py); director when not given.",
    )


class DisplayLinkLabel(Body):
    # DRF's metaclass takes declared fields off the class, so this shadows no `Field.label`.
    label = Text(  # type: ignore[assignment]
        max_length=80,
        help_text="What House calls the display, e.g. “Projector by the bar”.",
    )


class InvitationAcceptance(Body):
    token = Text(max_length=64, help_text="The token at the end of the invitation's link.")


class Owner(Body):
    user_id = serializers.IntegerField(
        min_value=1, help_text="The staff member who becomes the event's owner."
    )


class Participant(Body):
    """Exactly one of `user_id` and `email` names the account to add."""

    user_id = serializers.IntegerField(min_value=1, required=False)
    email = serializers.EmailField(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("user_id" in attrs) == ("email" in attrs):
            raise serializers.ValidationError(_("Send exactly one of user_id and email."))
        return attrs


# The most face-down starting cards any format offers (Switch: 5).
MOST_OFFERED = max(rules.offered for rules in FORMATS_BY_NAME.values())


class StartingSelection(Body):
    slots = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=MOST_OFFERED - 1),
        max_length=MOST_OFFERED,
        help_text="The offered cards to keep, by slot number (0, 1, 2 ...). A slot past this "
        "event's offer (3 or 4 in a League event, which offers 3) is refused with 409 "
        "`wrong_state`.",
    )
    reason = reason_field("Required when House selects for a player.")


class ResultReport(Body):
    game = serializers.IntegerField(
        min_value=1, max_value=limits.MAX_GAME, help_text="The next game number (1, 2, 3 ...)."
    )
    outcome = serializers.ChoiceField(choices=OUTCOMES)
    opponent = Text(allow_blank=True, default="", max_length=limits.OPPONENT_LENGTH)
    score = Text(allow_blank=True, default="", max_length=limits.SCORE_LENGTH)
    reason = reason_field("Required when House reports for a player.")


class WinChoice(Body):
    slot = serializers.IntegerField(
        min_value=0,
        max_value=limits.MAX_SLOT,
        help_text="Which of the win's face-up cards to keep, by slot number (0, 1 ...). A slot "
        "past the pending offer's cards is refused with 400 `invalid`.",
    )
    offer_id = serializers.IntegerField(
        min_value=1,
        required=False,
        help_text="The offer the choice answers (`pending.id`). When given and another offer "
        "is pending, the choice is refused with `offer_changed` and nothing changes.",
    )
    reason = reason_field("Required when House chooses for a player.")


class Withdrawal(Body):
    reason = reason_field("Required when House withdraws a player.")


class Correction(Body):
    game = serializers.IntegerField(min_value=1, max_value=limits.MAX_GAME)
    outcome = serializers.ChoiceField(choices=OUTCOMES, help_text="The corrected result.")
    reason = reason_field("Why House corrects it.", required=True)


class Reason(Body):
    reason = reason_field("Why House does it.", required=True)


class Adjustment(Body):
    amount = serializers.IntegerField(
        min_value=-limits.MAX_ADJUSTMENT,
        max_value=limits.MAX_ADJUSTMENT,
        help_text="Signed whole dollars, not zero (a refund is negative).",
    )
    explanation = Text(max_length=limits.EXPLANATION_LENGTH, multiline=True)


class PoolConfirmation(Body):
    adjustments = serializers.ListField(
        child=Adjustment(), required=False, default=list, max_length=limits.MAX_ADJUSTMENTS
    )


class SelfCheckInSwitch(Body):
    enabled = serializers.BooleanField(help_text="On: a new code is made; off: the code is gone.")


class SelfCheckIn(Body):
    code = Text(
        max_length=limits.CHECK_IN_CODE_LENGTH,
        help_text="The check-in code shown on the board (any case; spaces and dashes ignored).",
    )
    register = serializers.BooleanField(
        required=False,
        default=False,
        help_text="A player not yet registered registers in the same step, while registration "
        "is open.",
    )
    age_confirmed = serializers.BooleanField(
        required=False,
        default=False,
        help_text="With `register`: the player confirms they are of the event's minimum age, "
        "when it has one.",
    )


class Registering(Body):
    age_confirmed = serializers.BooleanField(
        required=False,
        default=False,
        help_text="The player confirms they are of the event's minimum age, when it has one.",
    )


class Payment(Body):
    paid = serializers.BooleanField(help_text="Whether House took this player's contribution.")


class AnnouncementText(Body):
    text = Text(
        max_length=limits.ANNOUNCEMENT_LENGTH,
        label=gettext_lazy("Announcement"),
        help_text="One line for every player of the event, at most 280 characters.",
    )
