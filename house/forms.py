"""House forms: they parse what was typed; the services decide what is allowed."""

from __future__ import annotations

import datetime
import zoneinfo
from typing import Any

from django import forms
from django.conf import settings
from django.http import QueryDict
from django.utils.text import format_lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import User
from events import limits
from events import request_bodies as body
from events.errors import Invalid
from events.formats import FORMATS
from events.models import DEFAULT_MINIMUM_AGE, EntryMode, Event, RefundPolicy
from helpers.forms import checked

MAX_ADJUSTMENTS = limits.MAX_ADJUSTMENTS


class EventForm(forms.Form):
    """The draft settings of an event (docs/rules.md section 1.5)."""

    name = forms.CharField(
        max_length=limits.NAME_LENGTH, validators=[limits.single_line], label=gettext_lazy("Name")
    )
    venue = forms.CharField(
        max_length=limits.VENUE_LENGTH,
        required=False,
        validators=[limits.single_line],
        label=gettext_lazy("Venue"),
    )
    date = forms.DateField(
        widget=forms.DateInput(format="%Y-%m-%d", attrs={"type": "date"}),
        label=gettext_lazy("Date"),
    )
    time_zone = forms.CharField(
        max_length=limits.TIME_ZONE_LENGTH,
        validators=[limits.single_line],
        initial="UTC",
        label=gettext_lazy("Time zone"),
        help_text=gettext_lazy(
            "The venue's time zone; times are shown in it (for example America/Chicago)."
        ),
        widget=forms.TextInput(attrs={"list": "time-zones", "autocomplete": "off"}),
    )
    format = forms.ChoiceField(
        choices=[(str(f.name), gettext_lazy(f.label)) for f in FORMATS.values()],
        label=gettext_lazy("Format"),
    )
    contribution = forms.IntegerField(
        min_value=0,
        max_value=limits.MAX_CONTRIBUTION,
        initial=0,
        label=gettext_lazy("Contribution per participant ($)"),
        help_text=gettext_lazy(
            "Whole dollars, venue fees excluded. $0 makes a free event with no cash pool."
        ),
    )
    extra_decks = forms.IntegerField(
        min_value=0,
        max_value=limits.MAX_EXTRA_DECKS,
        initial=1,
        label=gettext_lazy("Extra decks"),
        help_text=gettext_lazy(
            "Added to the stock at the start, on top of the decks the players need."
        ),
    )
    remainder_policy = forms.CharField(
        required=False,
        max_length=limits.POLICY_LENGTH,
        validators=[limits.multi_line],
        label=gettext_lazy("Remainder policy"),
        help_text=gettext_lazy(
            "How an indivisible High remainder will be handled. A paid event (contribution "
            "above $0) needs it before registration opens, and keeps it from then on."
        ),
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    entry_mode = forms.ChoiceField(
        choices=EntryMode.choices,
        required=False,
        initial=EntryMode.PAID.value,
        label=gettext_lazy("Entry"),
        help_text=gettext_lazy(
            "Paid entry: the pool is the contributions. Free entry: contribution $0, and the "
            "pool is the sponsored pool below; the 80/20 split is the same."
        ),
    )
    sponsored_pool = forms.IntegerField(
        min_value=0,
        max_value=limits.MAX_SPONSORED_POOL,
        required=False,
        initial=0,
        label=gettext_lazy("Sponsored pool ($)"),
        help_text=gettext_lazy("Free entry only: the prize money a sponsor puts up."),
    )
    refund_policy = forms.ChoiceField(
        choices=RefundPolicy.choices,
        required=False,
        initial=RefundPolicy.CANCELLATIONS.value,
        label=gettext_lazy("Refunds"),
    )
    minimum_age = forms.IntegerField(
        min_value=0,
        max_value=99,
        required=False,
        initial=0,
        label=gettext_lazy("Minimum age"),
        help_text=format_lazy(
            gettext_lazy(
                "Players confirm they are this old before registering ({age} where a venue "
                "requires it); 0 asks nothing."
            ),
            age=DEFAULT_MINIMUM_AGE,
        ),
    )

    capacity = forms.IntegerField(
        min_value=1,
        max_value=limits.MAX_CAPACITY,
        required=False,
        label=gettext_lazy("Places"),
        help_text=gettext_lazy(
            "The most players who hold a place; past it, registrations join the waitlist "
            "and each freed place is offered to the first in line. Empty: no cap."
        ),
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )
    registration_opens_at = forms.DateTimeField(
        required=False,
        label=gettext_lazy("Registration opens"),
        help_text=gettext_lazy(
            "In the venue's time zone; players register from the event's page from then "
            "on, while registration is open. Empty: as soon as you open registration."
        ),
        widget=forms.DateTimeInput(format="%Y-%m-%dT%H:%M", attrs={"type": "datetime-local"}),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"],
    )
    registration_closes_at = forms.DateTimeField(
        required=False,
        label=gettext_lazy("Registration closes"),
        help_text=gettext_lazy("In the venue's time zone. Empty: when you close registration."),
        widget=forms.DateTimeInput(format="%Y-%m-%dT%H:%M", attrs={"type": "datetime-local"}),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"],
    )
    hold_minutes = forms.IntegerField(
        min_value=1,
        max_value=limits.MAX_HOLD_MINUTES,
        required=False,
        initial=30,
        label=gettext_lazy("A freed place is held (minutes)"),
        help_text=gettext_lazy(
            "How long the player offered a freed place (or an unpaid one) has to claim or "
            "pay it, before the event's day."
        ),
    )
    day_hold_minutes = forms.IntegerField(
        min_value=1,
        max_value=limits.MAX_HOLD_MINUTES,
        required=False,
        initial=10,
        label=gettext_lazy("On the event's day (minutes)"),
        help_text=gettext_lazy("The same, shorter, on the day itself."),
    )
    pay_ahead = forms.BooleanField(
        required=False,
        label=gettext_lazy("Players pay the entry online when they take a place"),
        help_text=gettext_lazy(
            "Through Stripe Checkout; an unpaid place is held for the hold time above."
        ),
    )
    language = forms.ChoiceField(
        choices=[("", gettext_lazy("The venue's")), *settings.LANGUAGES],
        required=False,
        label=gettext_lazy("Board and printed sheets"),
        help_text=gettext_lazy(
            "The language of the projector board, the final results shown on it and the "
            "printed sheets, whatever language each viewer reads."
        ),
    )

    def clean_capacity(self) -> int | None:
        value = self.cleaned_data.get("capacity")
        return None if value is None else int(value)

    def clean_hold_minutes(self) -> int:
        return int(self.cleaned_data.get("hold_minutes") or 30)

    def clean_day_hold_minutes(self) -> int:
        return int(self.cleaned_data.get("day_hold_minutes") or 10)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        # The window is typed in the venue's time zone (the form's own field).
        zone_name = cleaned.get("time_zone")
        if zone_name:
            zone = zoneinfo.ZoneInfo(str(zone_name))
            for name in ("registration_opens_at", "registration_closes_at"):
                moment = cleaned.get(name)
                if isinstance(moment, datetime.datetime):
                    cleaned[name] = moment.replace(tzinfo=None).replace(tzinfo=zone)
        return cleaned

    def clean_entry_mode(self) -> str:
        return str(self.cleaned_data.get("entry_mode") or EntryMode.PAID.value)

    def clean_sponsored_pool(self) -> int:
        return int(self.cleaned_data.get("sponsored_pool") or 0)

    def clean_refund_policy(self) -> str:
        return str(self.cleaned_data.get("refund_policy") or RefundPolicy.CANCELLATIONS.value)

    def clean_minimum_age(self) -> int:
        return int(self.cleaned_data.get("minimum_age") or 0)

    def __init__(
        self,
        *args: Any,
        locked: bool = False,
        language_locked: bool = True,
        paid_entries: bool = False,
        stripe: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        if not stripe:
            self.fields["pay_ahead"].help_text = _(
                "Stripe is not configured here (STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET): "
                "players pay at the door, whatever this says."
            )
        if locked:
            # Started, the board's language may still change until the event is finalized.
            for name, field in self.fields.items():
                field.disabled = name != "language" or language_locked
        elif paid_entries:
            # The money settings, once House took a paid entry (events.check_in).
            for name in ("contribution", "remainder_policy", "entry_mode"):
                self.fields[name].disabled = True

    @staticmethod
    def initial_from(event: Event) -> dict[str, Any]:
        initial = {name: getattr(event, name) for name in EventForm.base_fields}
        zone = zoneinfo.ZoneInfo(event.time_zone)
        for name in ("registration_opens_at", "registration_closes_at"):
            moment = initial[name]
            if moment is not None:
                # Shown, and typed back, in the venue's time.
                initial[name] = moment.astimezone(zone).replace(tzinfo=None)
        return initial

    def clean_time_zone(self) -> str:
        value = str(self.cleaned_data["time_zone"]).strip()
        try:
            zoneinfo.ZoneInfo(value)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise forms.ValidationError(
                _("%(value)s is not a time zone: use a name like America/Chicago.")
                % {"value": repr(value)}
            ) from None
        return value


class EmailForm(forms.Form):
    email = forms.EmailField(label=gettext_lazy("Email"))

    def account(self) -> User | None:
        """The Syndicate Account with this email, if any."""
        return User.objects.filter(email__iexact=self.cleaned_data["email"]).first()


def parse_adjustments(data: QueryDict) -> list[tuple[int, str]]:
    """The pool adjustment rows (amount + explanation); blank rows are skipped. Each row is
    checked by the API's serializer for an adjustment, so the limits are the API's."""
    amounts = data.getlist("amount")
    explanations = data.getlist("explanation")
    if len(amounts) > MAX_ADJUSTMENTS or len(explanations) > MAX_ADJUSTMENTS:
        raise Invalid(_("At most %(count)s adjustments at a time.") % {"count": MAX_ADJUSTMENTS})
    rows: list[tuple[int, str]] = []
    for number, (amount, explanation) in enumerate(
        zip(amounts, explanations + [""] * (len(amounts) - len(explanations)), strict=False),
        start=1,
    ):
        text = amount.strip().replace("$", "").replace(" ", "").replace("\u2212", "-")
        if not text and not explanation.strip():
            continue
        text = text.removeprefix("+")
        digits = text.removeprefix("-")
        if not (digits.isascii() and digits.isdigit()):
            raise Invalid(
                _(
                    "Adjustment %(number)s: the amount is a signed whole number of dollars, "
                    "like -10 for a refund or 5."
                )
                % {"number": number}
            )
        if not explanation.strip():
            raise Invalid(
                _("Adjustment %(number)s: every adjustment needs an explanation.")
                % {"number": number}
            )
        try:
            row = checked(body.Adjustment, {"amount": text, "explanation": explanation})
        except Invalid as problem:
            raise Invalid(
                _("Adjustment %(number)s: %(problem)s")
                % {"number": number, "problem": problem.message}
            ) from None
        if row["amount"] == 0:
            raise Invalid(
                _("Adjustment %(number)s: an adjustment cannot be $0.") % {"number": number}
            )
        rows.append((row["amount"], row["explanation"]))
    return rows
