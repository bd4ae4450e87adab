"""The season pages (docs/rules.md section 14): the public table for phones, the projector view,
the downloads, a player's history, and House's series and season pages. Each parses the request,
calls one service or one read, renders."""

from __future__ import annotations

import datetime
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import formats, timezone
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from accounts.models import User
from events import waitlist
from events.errors import DomainError, Invalid
from events.event_language import render_in_event_language
from events.models import EntryMode, Event, Phase, Registration, RegistrationStatus
from events.query import query_flag, query_int
from events.runner import refuse_if_suspended
from helpers.forms import COMMON_ZONES, form_key, fresh_key, refuse
from house import staff_pages
from house.organizations import organization_to_make_in
from house.selectors import house_events
from organizations.models import Organization
from seasons import services
from seasons.audit import series_audit_document
from seasons.export import season_csv, season_document
from seasons.models import ChampionshipInvitation, PlayerKey, Season, Series
from seasons.points import RULE_KEYS, Rules
from seasons.reads import (
    coming_up,
    if_tonight_ended,
    invitations_of,
    player_history,
    season_table,
    series_powers,
    series_view,
)
from seasons.standings import catch_up

PAGE_SECONDS = 8  # as the event board

# The rules' fields as the season forms name them (templates/seasons/_rules_fields.html).
RULE_WORDS: dict[str, Promise] = {
    "high_points": gettext_lazy("High place points"),
    "low_points": gettext_lazy("Low place points"),
    "attendance": gettext_lazy("Attendance"),
    "best_of": gettext_lazy("Best of"),
    "min_events": gettext_lazy("Events to qualify"),
    "qualifiers": gettext_lazy("Qualifiers"),
}


def _user(request: HttpRequest) -> User | None:
    return request.user if isinstance(request.user, User) else None


def _season(season_id: int) -> Season:
    season = Season.objects.select_related("series").filter(pk=season_id).first()
    if season is None:
        raise Http404("No such season.")
    return season


def _series_house(request: HttpRequest, series_id: int) -> Series:
    """The series, if this user is its House; 404 otherwise (never say it exists)."""
    series = Series.objects.filter(pk=series_id).first()
    if series is None or not services.is_series_house(_user(request), series):
        if series is not None:
            refuse_if_suspended(_user(request), Series, series.pk)
        raise Http404("No such series.")
    return series


# Public ----------------------------------------------------------------------------------------


@require_safe
def season_page(request: HttpRequest, season_id: int) -> HttpResponse:
    """The season table, for phones."""
    season = _season(season_id)
    user = _user(request)
    view = season_table(season)
    mine = None
    invited = []
    if user is not None:
        key = PlayerKey.objects.filter(user=user).first()
        mine = key.public_id if key else None
        invited = [i for i in invitations_of(user) if i.season_id == season.pk]
    return render(
        request,
        "seasons/season.html",
        {
            "view": view,
            "tonight": if_tonight_ended(season),
            "coming": coming_up(season, timezone.now()),
            "mine": mine,
            "invited": invited,
            "house": services.is_series_house(user, season.series),
        },
    )


@require_safe
def season_board(request: HttpRequest, season_id: int) -> HttpResponse:
    """The projector view, paged as the event board; `?kiosk=1`, `?seconds=N` (2-60)."""
    season = _season(season_id)
    # On a projector, as an event's board: in the series' language, whoever's browser shows it.
    return render_in_event_language(
        request,
        season.series,
        "seasons/board.html",
        {
            "view": season_table(season),
            "kiosk": query_flag(request, "kiosk"),
            "page_seconds": query_int(request, "seconds", PAGE_SECONDS, 2, 60),
        },
    )


@require_safe
def season_csv_download(request: HttpRequest, season_id: int) -> HttpResponse:
    season = _season(season_id)
    catch_up(season)
    return HttpResponse(
        season_csv(season),
        content_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="season-{season.pk}.csv"'},
    )


@require_safe
def season_json_download(request: HttpRequest, season_id: int) -> JsonResponse:
    season = _season(season_id)
    catch_up(season)
    return JsonResponse(
        season_document(season),
        json_dumps_params={"ensure_ascii": False},
        headers={"Content-Disposition": f'attachment; filename="season-{season.pk}.json"'},
    )


@require_safe
def history(request: HttpRequest, player_id: str) -> HttpResponse:
    """A player's history: their own in full, anyone else's as the public results showed it."""
    key = PlayerKey.objects.select_related("user").filter(public_id=player_id).first()
    if key is None or not key.user.is_active:
        raise Http404("No such player.")
    return render(
        request,
        "seasons/history.html",
        {"history": player_history(key.user, _user(request))},
    )


@login_required
@require_safe
def my_history(request: HttpRequest) -> HttpResponse:
    user = _user(request)
    assert user is not None
    return render(request, "seasons/history.html", {"history": player_history(user, user)})


# House ----------------------------------------------------------------------------------------


@login_required
@require_safe
def series_page(request: HttpRequest, series_id: int) -> HttpResponse:
    series = _series_house(request, series_id)
    user = _user(request)
    return render(
        request,
        "seasons/series.html",
        {
            "series": series_view(series, user),
            "powers": series_powers(series, user),
            "staff_section": staff_pages.staff_section(request, series),
            "entry_modes": EntryMode.choices,
            "age_offered": series.minimum_age or OFFERED_AGE,
            "stripe_configured": waitlist.online_payments(),
            "languages": settings.LANGUAGES,
            "key": fresh_key(),
            "rule_keys": RULE_KEYS,
            **_season_form(request, series),
            "time_zone": series.time_zone,
            **_series_events_forms(series, user),
            **staff_pages.displays(request, series),
        },
    )


@login_required
@require_safe
def series_audit_json(request: HttpRequest, series_id: int) -> JsonResponse:
    """The series' own audit, with its signed head (docs/audit.md, "A series' audit"), for its
    House: as an event's audit is downloaded from its dashboard."""
    series = _series_house(request, series_id)
    return JsonResponse(
        series_audit_document(series),
        json_dumps_params={"ensure_ascii": False},
        headers={"Content-Disposition": f'attachment; filename="series-{series.pk}-audit.json"'},
    )


SEASON_TYPED = "season-typed-{series_id}"
FIRST_DAY_REFUSED = gettext_lazy("The first day must be a date (YYYY-MM-DD).")
LAST_DAY_REFUSED = gettext_lazy("The last day must be a date (YYYY-MM-DD).")


def _season_form(request: HttpRequest, series: Series) -> dict[str, Any]:
    """What the "Open a season" form shows: what was typed when it was last refused, else the
    series' defaults and the day after the running season."""
    typed = request.session.pop(SEASON_TYPED.format(series_id=series.pk), None)
    if isinstance(typed, dict):
        return {
            "defaults": {name: str(typed.get(name, "")) for name in RULE_KEYS},
            "season_typed": typed,
            "season_starts": str(typed.get("starts_on", "")),
        }
    return {
        "defaults": _rules_form(Rules().as_dict()),
        "season_typed": {},
        "season_starts": services.next_season_start(series).isoformat(),
    }


# The series' defaults (docs/decisions.md, "Series pages") -------------------------------------

OFFERED_AGE = 21  # what the age field offers when a series first asks players' age


@login_required
@require_POST
def series_defaults(request: HttpRequest, series_id: int) -> HttpResponse:
    series = _series_house(request, series_id)
    user = _user(request)
    assert user is not None
    try:
        asks_age = request.POST.get("asks_age") == "1"
        text = request.POST.get("minimum_age", "").strip()
        age = (_whole(text, _("The minimum age")) if text else OFFERED_AGE) if asks_age else 0
        if asks_age and age == 0:
            raise Invalid(_("Players confirm an age of 1 or more; untick the box to ask none."))
        saved = services.series_defaults_set(
            series_id=series.pk,
            by=user,
            entry_mode=request.POST.get("entry_mode", ""),
            minimum_age=age,
            **_registration_typed(request),
            language=request.POST.get("language"),
            idempotency_key=form_key(request),
        )
    except DomainError as error:
        refuse(request, error)
    else:
        entry = _("sponsored entry") if saved.entry_mode == EntryMode.SPONSORED else _("paid entry")
        asked = (
            _("players confirm they are %(age)s or over") % {"age": saved.minimum_age}
            if saved.minimum_age
            else _("no age asked")
        )
        cap = (
            _("no cap")
            if saved.capacity is None
            else ngettext("%(count)s place", "%(count)s places", saved.capacity)
            % {"count": saved.capacity}
        )
        messages.success(
            request,
            _("The series' defaults are saved: %(entry)s, %(age)s, %(cap)s.")
            % {"entry": entry, "age": asked, "cap": cap},
        )
    return redirect(reverse("seasons:series", kwargs={"series_id": series.pk}) + "#defaults")


@login_required
@require_safe
def season_house(request: HttpRequest, season_id: int) -> HttpResponse:
    season = _season(season_id)
    if not services.is_series_house(_user(request), season.series):
        refuse_if_suspended(_user(request), Series, season.series_id)
        raise Http404("No such season.")
    view = season_table(season)
    invitations = list(
        ChampionshipInvitation.objects.filter(season=season).select_related("player")
    )
    registered = (
        set(
            Registration.objects.filter(event_id=season.championship_id)
            .exclude(status=RegistrationStatus.CANCELLED)
            .values_list("player_id", flat=True)
        )
        if season.championship_id is not None
        else set()
    )
    return render(
        request,
        "seasons/season_house.html",
        {
            "view": view,
            "season": season,
            "short": [row for row in view.rows if row.one_event_short],
            "rules": _rules_form(season.rules),
            "invitations": [
                {
                    "name": i.player.display_name,
                    "rank": i.rank,
                    "registered": i.player_id in registered,
                }
                for i in invitations
            ],
            "key": fresh_key(),
            "after": (season.ends_on + datetime.timedelta(days=7)).isoformat(),
            "earliest": (season.ends_on + datetime.timedelta(days=1)).isoformat(),
        },
    )


def _rules_form(rules: dict[str, Any]) -> dict[str, str]:
    """The rules as the form shows them: lists as "10, 7, 5", an empty best_of as blank."""
    shown = {}
    for name, value in Rules.from_dict(rules).as_dict().items():
        if isinstance(value, list):
            shown[name] = ", ".join(str(v) for v in value)
        else:
            shown[name] = "" if value is None else str(value)
    return shown


def _rules_from(request: HttpRequest) -> dict[str, Any]:
    """The rules typed in the form; `Rules.from_dict` (in the service) refuses what is not whole."""
    rules: dict[str, Any] = {}
    for name in RULE_KEYS:
        text = request.POST.get(name, "").strip()
        if name in ("high_points", "low_points"):
            rules[name] = [
                _whole(part, str(RULE_WORDS[name]))
                for part in text.replace(" ", "").split(",")
                if part
            ]
        elif name == "best_of":
            rules[name] = _whole(text, str(RULE_WORDS[name])) if text else None
        elif text:
            rules[name] = _whole(text, str(RULE_WORDS[name]))
    return rules


def _registration_typed(request: HttpRequest) -> dict[str, Any]:
    """The registration defaults typed on the series page (each field empty: no bound)."""
    capacity = request.POST.get("capacity", "").strip()
    opens = request.POST.get("registration_opens_days_before", "").strip()
    closes = request.POST.get("registration_closes_time", "").strip()
    typed: dict[str, Any] = {
        "capacity": _whole(capacity, _("The capacity")) if capacity else None,
        "registration_opens_days_before": (
            _whole(opens, _("Registration opens (days before)")) if opens else None
        ),
        "registration_closes_time": (
            _time(closes, _("Registration closes at a time of day (HH:MM).")) if closes else None
        ),
        "pay_ahead": request.POST.get("pay_ahead") == "1",
    }
    for name, words in (
        ("hold_minutes", _("The hold before the event's day")),
        ("day_hold_minutes", _("The hold on the event's day")),
    ):
        text = request.POST.get(name, "").strip()
        if text:
            typed[name] = _whole(text, words)
    return typed


def _time(text: str, refusal: str) -> datetime.time:
    """A time of day typed HH:MM; else refused in `refusal`'s words."""
    try:
        when = datetime.time.fromisoformat(text)
    except ValueError:
        raise Invalid(refusal) from None
    return when.replace(second=0, microsecond=0)


def _whole(text: str, what: str) -> int:
    if not (text.isascii() and text.isdigit() and len(text) <= 9):
        raise Invalid(
            _("%(what)s: '%(text)s' is not a whole number of 0 or more.")
            % {"what": what, "text": text}
        )
    return int(text)


def _date(text: str, refusal: str) -> datetime.date:
    """A date typed YYYY-MM-DD (a date field's value); else refused in `refusal`'s words."""
    try:
        return datetime.date.fromisoformat(text)
    except ValueError:
        raise Invalid(refusal) from None


@login_required
@require_POST
def next_event(request: HttpRequest, series_id: int) -> HttpResponse:
    series = _series_house(request, series_id)
    user = _user(request)
    assert user is not None
    try:
        text = request.POST.get("date", "").strip()
        created = services.series_next_event(
            series_id=series.pk,
            by=user,
            date=_date(text, _("The date must be a date (YYYY-MM-DD).")) if text else None,
            idempotency_key=form_key(request),
        )
    except DomainError as error:
        refuse(request, error)
        return redirect("seasons:series", series_id=series.pk)
    messages.success(
        request,
        _("The next event, on %(day)s, is ready as a draft.")
        % {"day": formats.date_format(datetime.date.fromisoformat(created.date))},
    )
    return redirect(reverse("house:dashboard", kwargs={"event_id": created.event_id}))


@login_required
@require_POST
def season_new(request: HttpRequest, series_id: int) -> HttpResponse:
    series = _series_house(request, series_id)
    user = _user(request)
    assert user is not None
    try:
        saved = services.season_create(
            series_id=series.pk,
            by=user,
            name=request.POST.get("name", ""),
            starts_on=_date(request.POST.get("starts_on", ""), str(FIRST_DAY_REFUSED)),
            ends_on=_date(request.POST.get("ends_on", ""), str(LAST_DAY_REFUSED)),
            rules=_rules_from(request),
            idempotency_key=form_key(request),
        )
    except DomainError as error:
        refuse(request, error)
        # The page shows the form again as it was typed, beside the refusal.
        request.session[SEASON_TYPED.format(series_id=series.pk)] = {
            name: request.POST.get(name, "")[:200]
            for name in ("name", "starts_on", "ends_on", *RULE_KEYS)
        }
        return redirect(
            reverse("seasons:series", kwargs={"series_id": series.pk}) + "#seasons-title"
        )
    messages.success(request, _("The season is open."))
    return redirect("seasons:season_house", season_id=saved.season_id)


@login_required
@require_POST
def season_rules(request: HttpRequest, season_id: int) -> HttpResponse:
    season = _season(season_id)
    user = _user(request)
    if not services.is_series_house(user, season.series):
        refuse_if_suspended(user, Series, season.series_id)
        raise Http404("No such season.")
    assert user is not None
    try:
        first, last = request.POST.get("starts_on", ""), request.POST.get("ends_on", "")
        saved = services.season_update(
            season_id=season.pk,
            by=user,
            name=request.POST.get("name") or None,
            starts_on=_date(first, str(FIRST_DAY_REFUSED)) if first else None,
            ends_on=_date(last, str(LAST_DAY_REFUSED)) if last else None,
            # Locked rules are a disabled fieldset: not sent, so left as they are.
            rules=_rules_from(request) if any(k in request.POST for k in RULE_KEYS) else None,
            idempotency_key=form_key(request),
        )
    except DomainError as error:
        refuse(request, error)
    else:
        counted = saved.counted_events
        messages.success(
            request,
            ngettext(
                "The season is saved: %(count)s finalized event counted in it.",
                "The season is saved: %(count)s finalized events counted in it.",
                counted,
            )
            % {"count": counted},
        )
    return redirect("seasons:season_house", season_id=season.pk)


@login_required
@require_POST
def championship_new(request: HttpRequest, season_id: int) -> HttpResponse:
    season = _season(season_id)
    user = _user(request)
    if not services.is_series_house(user, season.series):
        refuse_if_suspended(user, Series, season.series_id)
        raise Http404("No such season.")
    assert user is not None
    try:
        created = services.championship_create(
            season_id=season.pk,
            by=user,
            date=_date(
                request.POST.get("date", ""),
                _("The championship's date must be a date (YYYY-MM-DD)."),
            ),
            idempotency_key=form_key(request),
        )
    except DomainError as error:
        refuse(request, error)
        return redirect("seasons:season_house", season_id=season.pk)
    invited = len(created.invited)
    messages.success(
        request,
        ngettext(
            "The championship is open; %(count)s qualified player is invited.",
            "The championship is open; %(count)s qualified players are invited.",
            invited,
        )
        % {"count": invited},
    )
    return redirect(reverse("house:dashboard", kwargs={"event_id": created.event_id}))


# A series and its events from the pages (docs/decisions.md, "Series pages") ---------------------


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def series_new(request: HttpRequest) -> HttpResponse:
    """Site staff open a series: its name, venue, time zone and the defaults its events take; in
    an organization (`?organization=`), its owner and directors, at one of its venues (whose
    name and time zone the series takes)."""
    user = _user(request)
    if user is None:
        raise Http404("No such page.")
    organization = organization_to_make_in(request, user, "series_create")
    if organization is None and not user.is_staff:
        raise Http404("No such page.")
    venues = {} if organization is None else {v.name: v.pk for v in organization.venues.all()}
    typed = {
        "name": request.POST.get("name", ""),
        "venue": request.POST.get("venue", ""),
        "time_zone": request.POST.get("time_zone", "").strip() or "UTC",
        "entry_mode": request.POST.get("entry_mode", EntryMode.PAID.value),
        "asks_age": request.POST.get("asks_age") == "1",
        "minimum_age": request.POST.get("minimum_age", str(OFFERED_AGE)),
    }
    problem = ""
    if request.method == "POST":
        try:
            key = form_key(request)
            entry_mode, age = _defaults_typed(request)
            created = services.series_create(
                by=user,
                name=str(typed["name"]),
                idempotency_key=key,
                **_where_typed(typed, organization, venues),
            )
            if (entry_mode, age) != (EntryMode.PAID.value, 0):
                services.series_defaults_set(
                    series_id=created.series_id,
                    by=user,
                    entry_mode=entry_mode,
                    minimum_age=age,
                    idempotency_key=f"{key}:defaults",
                )
        except DomainError as error:
            refuse(request, error)
            problem = error.message
        else:
            messages.success(
                request,
                _(
                    "The series is open: make its first event with Next event, or put one of "
                    "your events in it."
                ),
            )
            return redirect("seasons:series", series_id=created.series_id)
    return render(
        request,
        "seasons/series_new.html",
        {
            "typed": typed,
            "problem": problem,
            "organization": organization,
            "venues": list(venues),
            "entry_modes": EntryMode.choices,
            "zones": COMMON_ZONES,
            "key": fresh_key(),
        },
        status=400 if problem else 200,
    )


def _where_typed(
    typed: dict[str, Any], organization: Organization | None, venues: dict[str, int]
) -> dict[str, Any]:
    """Where the new series is held: in an organization, one of its venues picked by name;
    else the venue and time zone as typed (site staff)."""
    if organization is None:
        return {"venue": str(typed["venue"]), "time_zone": str(typed["time_zone"])}
    venue_id = venues.get(str(typed["venue"]))
    if venue_id is None:
        raise Invalid(_("Pick one of the organization's venues."))
    return {"organization_id": organization.pk, "venue_id": venue_id}


def _defaults_typed(request: HttpRequest) -> tuple[str, int]:
    """The defaults typed on the new series' form, checked before the series is made, so a
    refused form makes nothing."""
    entry_mode = request.POST.get("entry_mode", "") or EntryMode.PAID.value
    if entry_mode not in EntryMode.values:
        raise Invalid(
            _("The entry mode is %(paid)s or %(sponsored)s.")
            % {"paid": EntryMode.PAID.value, "sponsored": EntryMode.SPONSORED.value}
        )
    if request.POST.get("asks_age") != "1":
        return entry_mode, 0
    text = request.POST.get("minimum_age", "").strip()
    age = _whole(text, _("The minimum age")) if text else OFFERED_AGE
    if not 1 <= age <= 99:
        raise Invalid(_("Players confirm an age of 1 to 99; untick the box to ask none."))
    return entry_mode, age


def _series_events_forms(series: Series, user: User | None) -> dict[str, Any]:
    """What the series page's Events section offers: the events this user runs that may join
    the series (not started, in no other series' championship), and the date Next event gives."""
    last = Event.objects.filter(series=series).exclude(championship_of__isnull=False).first()
    movable = (
        house_events(user)
        .filter(phase__in=[Phase.DRAFT, Phase.OPEN])
        .exclude(series=series)
        .exclude(championship_of__isnull=False)
        if user is not None
        else Event.objects.none()
    )
    return {
        "movable": list(movable.values("pk", "name", "date")[:200]),
        "next_date": services.next_event_date(series, last).isoformat(),
        "first_event": last is None,
    }


@login_required
@require_POST
def series_event_add(request: HttpRequest, series_id: int) -> HttpResponse:
    """Put one of House's events, not yet started, in the series."""
    series = _series_house(request, series_id)
    user = _user(request)
    assert user is not None
    chosen = request.POST.get("event", "")
    try:
        key = form_key(request)
        if not (chosen.isascii() and chosen.isdigit() and len(chosen) <= 18):
            raise Invalid(_("Choose the event to put in the series."))
        services.event_series_set(
            event_id=int(chosen), series_id=series.pk, by=user, idempotency_key=key
        )
    except DomainError as error:
        refuse(request, error)
    else:
        name = Event.objects.filter(pk=int(chosen)).values_list("name", flat=True).first()
        messages.success(
            request,
            _("%(event)s is in %(series)s now, with the series' defaults.")
            % {"event": name, "series": series.name},
        )
    return redirect(reverse("seasons:series", kwargs={"series_id": series.pk}) + "#events")


@login_required
@require_POST
def series_event_remove(request: HttpRequest, series_id: int, event_id: int) -> HttpResponse:
    """Take an event that has not started out of the series."""
    series = _series_house(request, series_id)
    user = _user(request)
    assert user is not None
    try:
        if not Event.objects.filter(pk=event_id, series=series).exists():
            raise Invalid(_("That event is not in this series."))
        services.event_series_set(
            event_id=event_id, series_id=None, by=user, idempotency_key=form_key(request)
        )
    except DomainError as error:
        refuse(request, error)
    else:
        name = Event.objects.filter(pk=event_id).values_list("name", flat=True).first()
        messages.success(
            request,
            _("%(event)s is out of %(series)s; it keeps its settings.")
            % {"event": name, "series": series.name},
        )
    return redirect(reverse("seasons:series", kwargs={"series_id": series.pk}) + "#events")
