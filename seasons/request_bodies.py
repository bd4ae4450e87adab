"""Request bodies of the series and season services: types and ranges only, as
events.request_bodies are; the services decide everything else."""

from __future__ import annotations

from typing import Any, ClassVar

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from events import limits
from events.models import EntryMode
from events.request_bodies import LANGUAGE_CODES, Body, Day, Text
from seasons.models import MAX_CAPACITY, MAX_HOLD_MINUTES, MAX_OPENS_DAYS_BEFORE
from seasons.points import MOST_PLACES, MOST_POINTS


class Whole(serializers.IntegerField):
    """A whole number as JSON has it (7 or 7.0): text, a fraction or true/false is refused, not
    converted."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        value: int = super().to_internal_value(data)
        return value


def _points(help_text: str) -> Any:
    return serializers.ListField(
        child=Whole(min_value=0, max_value=MOST_POINTS),
        max_length=MOST_PLACES,
        required=False,
        help_text=help_text,
    )


class RulesChoice(Body):
    """The points rules; a key left out takes its default (docs/rules.md section 14.2)."""

    high_points = _points("Points for High place 1, 2, 3, ...; later places get 0.")
    low_points = _points("Points for Low place 1, 2, 3, ...; later places get 0.")
    attendance = Whole(min_value=0, max_value=MOST_POINTS, required=False)
    best_of = Whole(
        min_value=1,
        max_value=MOST_POINTS,
        required=False,
        allow_null=True,
        help_text="Count a player's best N event totals; null counts them all.",
    )
    min_events = Whole(min_value=0, max_value=MOST_POINTS, required=False)
    qualifiers = Whole(min_value=0, max_value=MOST_POINTS, required=False)


class SeriesCreate(Body):
    name = Text(max_length=limits.NAME_LENGTH)
    venue = Text(allow_blank=True, default="", max_length=limits.NAME_LENGTH)
    time_zone = Text(default="UTC", max_length=64, help_text="An IANA time zone.")
    organization_id = serializers.IntegerField(
        min_value=1,
        max_value=limits.ID_MAX,
        required=False,
        help_text="The organization it is made in (its owner or a director): no site staff needed.",
    )
    venue_id = serializers.IntegerField(
        min_value=1,
        max_value=limits.ID_MAX,
        required=False,
        help_text="One of the organization's venues: the series takes its name and time zone.",
    )


STAFF_ROLES = ["director", "cashier", "scorer"]


class StaffRole(serializers.ChoiceField):
    """A staff member's role; "owner" is refused in plain words: ownership is handed over."""

    default_error_messages: ClassVar[dict[str, Any]] = {
        "owner": "The owner's role is not given but handed over (POST /api/series/<id>/owner/).",
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(choices=STAFF_ROLES, **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        if data == "owner":
            self.fail("owner")
        return super().to_internal_value(data)


class SeriesHouseMember(Body):
    user_id = Whole(min_value=1, help_text="The account to make House of the series.")
    role = StaffRole(
        required=False,
        help_text="Their role in every event of the series (staff/roles.py); director when not "
        "given; posting again changes it. The owner's role is handed over (`owner/`).",
    )


class SeriesOwner(Body):
    user_id = Whole(min_value=1, help_text="The staff member who becomes the series' owner.")


class SeriesStaffInvitation(Body):
    email = serializers.EmailField(help_text="Who is invited: they accept signed in with it.")
    role = StaffRole(
        required=False,
        help_text="Their role (staff/roles.py); director when not given.",
    )


class SeriesInvitationAcceptance(Body):
    token = Text(max_length=64, help_text="The token at the end of the invitation's link.")


@extend_schema_field(
    {"type": "string", "pattern": r"^([01][0-9]|2[0-3]):[0-5][0-9]$", "example": "18:30"}
)
class ClockTime(serializers.TimeField):
    """A time of day as HH:MM, in the venue's time zone (no seconds, no offset): the schema says
    exactly what is taken."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(format="%H:%M", input_formats=["%H:%M"], **kwargs)


class SeriesDefaults(Body):
    entry_mode = serializers.ChoiceField(
        choices=EntryMode.values,
        required=False,
        help_text="`paid`: the pool is the contributions; `sponsored`: free entry with the "
        "sponsored pool House states for each night.",
    )
    minimum_age = Whole(
        min_value=0,
        max_value=99,
        required=False,
        help_text="The age players confirm before registering; 0: none asked.",
    )
    capacity = Whole(
        min_value=1,
        max_value=MAX_CAPACITY,
        required=False,
        allow_null=True,
        help_text="The most players who hold a place in each event; null: no cap.",
    )
    hold_minutes = Whole(
        min_value=1,
        max_value=MAX_HOLD_MINUTES,
        required=False,
        help_text="Minutes an offered place (or an unpaid one) is held before the event's day.",
    )
    day_hold_minutes = Whole(
        min_value=1,
        max_value=MAX_HOLD_MINUTES,
        required=False,
        help_text="Minutes an offered place (or an unpaid one) is held on the event's day.",
    )
    pay_ahead = serializers.BooleanField(
        required=False,
        help_text="The entry is paid online when registering, where Stripe is configured.",
    )
    registration_opens_days_before = Whole(
        min_value=0,
        max_value=MAX_OPENS_DAYS_BEFORE,
        required=False,
        allow_null=True,
        help_text="Registration opens at midnight (venue time) this many days before each "
        "event's date; null: when House opens it.",
    )
    registration_closes_time = ClockTime(
        required=False,
        allow_null=True,
        help_text="Registration closes at this time (HH:MM, venue time) on each event's date; "
        "null: no bound.",
    )
    language = serializers.ChoiceField(
        choices=LANGUAGE_CODES,
        allow_blank=True,
        required=False,
        help_text="The language each new event of the series takes for its board, final page "
        "and printed sheets; empty: the deployment's own.",
    )


class NextEvent(Body):
    date = Day(
        required=False,
        help_text="The event day; if left out, a week after the last one (for the series' "
        "first event, today in the series' time zone).",
    )


class EventSeries(Body):
    series_id = Whole(
        min_value=1, allow_null=True, help_text="The series to put the event in; null: none."
    )


class SeasonCreate(Body):
    name = Text(max_length=limits.NAME_LENGTH)
    starts_on = Day(help_text="The season's first day.")
    ends_on = Day(help_text="The season's last day.")
    rules = RulesChoice(required=False)


class SeasonUpdate(Body):
    name = Text(max_length=limits.NAME_LENGTH, required=False)
    starts_on = Day(required=False)
    ends_on = Day(required=False)
    rules = RulesChoice(required=False)


class Championship(Body):
    date = Day(help_text="The championship's day, after the season's last day.")
