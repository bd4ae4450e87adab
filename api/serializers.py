"""Request bodies: types and ranges only. The services decide everything else.

A reason is optional here on purpose: the services refuse an empty one where the rules require
it, with the documented `reason_required` code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers

from events.formats import FormatName
from events.models import Outcome

FORMATS = [name.value for name in FormatName]
OUTCOMES = list(Outcome.values)


class Body(serializers.Serializer[Any]):
    """A JSON object with only the listed fields: a misspelt field is refused, not ignored."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError(
                    {name: ["This field is not accepted here."] for name in unknown}
                )
        return super().to_internal_value(data)


def reason_field(
    help_text: str = "Why (required where the rules say House needs a reason).",
) -> Any:
    return serializers.CharField(
        required=False, allow_blank=True, default="", max_length=500, help_text=help_text
    )


class Empty(Body):
    """No fields: the path says everything."""


class EventCreate(Body):
    name = serializers.CharField(max_length=120)
    date = serializers.DateField(help_text="The event day, YYYY-MM-DD.")
    format = serializers.ChoiceField(choices=FORMATS)
    contribution = serializers.IntegerField(
        min_value=0, max_value=1_000_000, default=0, help_text="Whole dollars per participant."
    )
    extra_decks = serializers.IntegerField(min_value=0, max_value=50, default=1)
    remainder_policy = serializers.CharField(
        allow_blank=True,
        default="",
        max_length=2000,
        help_text="How an indivisible High remainder is handled; required for a paid event "
        "before registration opens.",
    )
    venue = serializers.CharField(allow_blank=True, default="", max_length=120)
    time_zone = serializers.CharField(
        default="UTC", max_length=64, help_text="The venue's IANA time zone."
    )


class EventUpdate(Body):
    """Any subset of the draft settings; only the fields sent change."""

    name = serializers.CharField(max_length=120, required=False)
    date = serializers.DateField(required=False)
    format = serializers.ChoiceField(choices=FORMATS, required=False)
    contribution = serializers.IntegerField(min_value=0, max_value=1_000_000, required=False)
    extra_decks = serializers.IntegerField(min_value=0, max_value=50, required=False)
    remainder_policy = serializers.CharField(allow_blank=True, max_length=2000, required=False)
    venue = serializers.CharField(allow_blank=True, max_length=120, required=False)
    time_zone = serializers.CharField(max_length=64, required=False)


class HouseMember(Body):
    user_id = serializers.IntegerField(min_value=1, help_text="The account to appoint.")


class Participant(Body):
    """Exactly one of `user_id` and `email` names the account to add."""

    user_id = serializers.IntegerField(min_value=1, required=False)
    email = serializers.EmailField(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if ("user_id" in attrs) == ("email" in attrs):
            raise serializers.ValidationError("Send exactly one of user_id and email.")
        return attrs


class StartingSelection(Body):
    slots = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=9),
        max_length=10,
        help_text="The offered cards to keep, by slot number (0, 1, 2 ...).",
    )
    reason = reason_field("Required when House selects for a player.")


class ResultReport(Body):
    game = serializers.IntegerField(
        min_value=1, max_value=99, help_text="The next game number (1, 2, 3 ...)."
    )
    outcome = serializers.ChoiceField(choices=OUTCOMES)
    opponent = serializers.CharField(allow_blank=True, default="", max_length=80)
    score = serializers.CharField(allow_blank=True, default="", max_length=20)
    reason = reason_field("Required when House reports for a player.")


class WinChoice(Body):
    slot = serializers.IntegerField(
        min_value=0, max_value=1, help_text="Which of the two face-up cards to keep."
    )
    reason = reason_field("Required when House chooses for a player.")


class Withdrawal(Body):
    reason = reason_field("Required when House withdraws a player.")


class Correction(Body):
    game = serializers.IntegerField(min_value=1, max_value=99)
    outcome = serializers.ChoiceField(choices=OUTCOMES, help_text="The corrected result.")
    reason = reason_field("Required.")


class Reason(Body):
    reason = reason_field("Required.")


class Adjustment(Body):
    amount = serializers.IntegerField(
        min_value=-1_000_000,
        max_value=1_000_000,
        help_text="Signed whole dollars, not zero (a refund is negative).",
    )
    explanation = serializers.CharField(max_length=500, allow_blank=True)


class PoolConfirmation(Body):
    adjustments = Adjustment(many=True, required=False, default=list)


class AuditQuery(serializers.Serializer[Any]):
    format = serializers.ChoiceField(choices=["json", "csv"], default="json")
