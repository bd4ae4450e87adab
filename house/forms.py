"""House forms: they parse what was typed; the services decide what is allowed."""

from __future__ import annotations

import zoneinfo
from typing import Any

from django import forms
from django.http import QueryDict

from accounts.models import User
from events.errors import Invalid
from events.formats import FORMATS
from events.models import Event

COMMON_ZONES = (
    "UTC",
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Phoenix",
    "America/Los_Angeles",
    "America/Anchorage",
    "Pacific/Honolulu",
    "America/Toronto",
    "America/Vancouver",
    "Europe/London",
    "Europe/Berlin",
    "Australia/Sydney",
)
MAX_ADJUSTMENTS = 50


class EventForm(forms.Form):
    """The draft settings of an event (SPEC section 3)."""

    name = forms.CharField(max_length=120)
    venue = forms.CharField(max_length=120, required=False)
    date = forms.DateField(widget=forms.DateInput(format="%Y-%m-%d", attrs={"type": "date"}))
    time_zone = forms.CharField(
        max_length=64,
        initial="UTC",
        label="Time zone",
        help_text="The venue's time zone; times are shown in it (for example America/Chicago).",
        widget=forms.TextInput(attrs={"list": "time-zones", "autocomplete": "off"}),
    )
    format = forms.ChoiceField(choices=[(f.name.value, f.label) for f in FORMATS.values()])
    contribution = forms.IntegerField(
        min_value=0,
        initial=0,
        label="Contribution per participant ($)",
        help_text="Whole dollars, venue fees excluded. $0 makes a free event with no cash pool.",
    )
    extra_decks = forms.IntegerField(
        min_value=0,
        max_value=50,
        initial=1,
        label="Extra decks",
        help_text="Added to the stock at the start, on top of the decks the players need.",
    )
    remainder_policy = forms.CharField(
        required=False,
        label="Remainder policy",
        help_text="How an indivisible High remainder will be handled. Required before "
        "registration opens when the contribution is above $0.",
        widget=forms.Textarea(attrs={"rows": 3}),
    )

    def __init__(self, *args: Any, locked: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if locked:
            for field in self.fields.values():
                field.disabled = True

    @staticmethod
    def initial_from(event: Event) -> dict[str, Any]:
        return {name: getattr(event, name) for name in EventForm.base_fields}

    def clean_time_zone(self) -> str:
        value = str(self.cleaned_data["time_zone"]).strip()
        try:
            zoneinfo.ZoneInfo(value)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise forms.ValidationError(
                f"{value!r} is not a time zone: use a name like America/Chicago."
            ) from None
        return value


class EmailForm(forms.Form):
    email = forms.EmailField(label="Email")

    def account(self) -> User | None:
        """The Syndicate Account with this email, if any."""
        return User.objects.filter(email__iexact=self.cleaned_data["email"]).first()


def parse_adjustments(data: QueryDict) -> list[tuple[int, str]]:
    """The pool adjustment rows (amount + explanation); blank rows are skipped."""
    amounts = data.getlist("amount")
    explanations = data.getlist("explanation")
    rows: list[tuple[int, str]] = []
    for number, (amount, explanation) in enumerate(
        zip(amounts, explanations + [""] * (len(amounts) - len(explanations)), strict=False),
        start=1,
    ):
        text = amount.strip().replace("$", "").replace(" ", "").replace("\u2212", "-")
        if not text and not explanation.strip():
            continue
        if text.startswith("+"):
            text = text[1:]
        digits = text[1:] if text.startswith("-") else text
        if not digits.isdigit():
            raise Invalid(
                f"Adjustment {number}: the amount is a signed whole number of dollars, "
                "like -10 for a refund or 5."
            )
        value = int(text)
        if value == 0:
            raise Invalid(f"Adjustment {number}: an adjustment cannot be $0.")
        if not explanation.strip():
            raise Invalid(f"Adjustment {number}: every adjustment needs an explanation.")
        rows.append((value, explanation.strip()))
    if len(rows) > MAX_ADJUSTMENTS:
        raise Invalid(f"At most {MAX_ADJUSTMENTS} adjustments at a time.")
    return rows


def parse_int(data: QueryDict, name: str, message: str) -> int:
    value = data.get(name, "").strip()
    if not value.isdigit():
        raise Invalid(message)
    return int(value)
