"""The request bodies of the ledger's writes, checked by the API (events/request_bodies.py)."""

from __future__ import annotations

from rest_framework import serializers

from events import limits
from events.request_bodies import Body, Text
from ledger.lines import ENTRY_METHODS, PAYOUT_METHODS, REFUND_METHODS, SPONSOR_METHODS


class EntryPayment(Body):
    registration_id = serializers.IntegerField(min_value=1, max_value=limits.ID_MAX)
    method = serializers.ChoiceField(choices=list(ENTRY_METHODS))
    reference = Text(
        max_length=limits.TEXT_LENGTH,
        required=False,
        allow_blank=True,
        help_text="An online payment's reference (required for `online`).",
    )
    reason = Text(
        max_length=limits.REASON_LENGTH,
        multiline=True,
        required=False,
        allow_blank=True,
        help_text="Why the entry is comped (required for `comp`).",
    )


class Refund(Body):
    registration_id = serializers.IntegerField(min_value=1, max_value=limits.ID_MAX)
    amount = serializers.IntegerField(min_value=1, max_value=limits.INTEGER_MAX)
    method = serializers.ChoiceField(choices=list(REFUND_METHODS))
    reason = Text(max_length=limits.REASON_LENGTH, multiline=True)


class Payout(Body):
    registration_id = serializers.IntegerField(min_value=1, max_value=limits.ID_MAX)
    amount = serializers.IntegerField(min_value=1, max_value=limits.INTEGER_MAX)
    method = serializers.ChoiceField(choices=list(PAYOUT_METHODS))
    handed_by = Text(
        max_length=limits.OPPONENT_LENGTH,
        required=False,
        allow_blank=True,
        default="",
        help_text="Who handed the money over (default: whoever records the payout).",
    )
    acknowledged = serializers.BooleanField(
        help_text="Whether the winner signed the printed payout sheet."
    )


class SponsorPayment(Body):
    amount = serializers.IntegerField(min_value=1, max_value=limits.INTEGER_MAX)
    method = serializers.ChoiceField(choices=list(SPONSOR_METHODS))
    reference = Text(
        max_length=limits.TEXT_LENGTH,
        required=False,
        allow_blank=True,
        default="",
        help_text="A transfer's reference, if any.",
    )
