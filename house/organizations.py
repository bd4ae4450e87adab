"""House's organization pages: an organizer makes an organization, and its owner and directors
keep its venues, its staff (the staff section every scope shares: house/staff_pages.py) and
make its events. Each view parses, calls one service, and renders or redirects."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.models import User
from events.errors import DomainError, OrganizationSuspended
from events.runner import refuse_if_suspended, scope_roles
from helpers.forms import form_key, fresh_key
from house import staff_pages
from organizations import services
from organizations.models import Organization
from staff import roles as staff


def _user(request: HttpRequest) -> User:
    user = request.user
    if not isinstance(user, User):
        raise Http404("No such page.")
    return user


def house_organization(request: HttpRequest, organization_id: int) -> Organization:
    """The organization, if the viewer is on its staff; 404 otherwise (never say it exists),
    and the suspension's refusal (403) to its staff while the operator has it suspended."""
    organization = Organization.objects.filter(pk=organization_id).first()
    if organization is None:
        raise Http404("No such organization.")
    user = _user(request)
    if organization.suspended and not user.is_superuser:
        refuse_if_suspended(user, Organization, organization.pk)
        raise Http404("No such organization.")
    if not staff.may_see(scope_roles(user, organization.pk, Organization), "house"):
        raise Http404("No such organization.")
    return organization


def organization_to_make_in(request: HttpRequest, user: User, power: str) -> Organization | None:
    """The organization a new event's or series' page names (`?organization=`), if the viewer
    may make one there (`power`: "event_create", "series_create"); 404 otherwise, as every House
    page, and the suspension's refusal to its staff while it is suspended. None: none named."""
    raw = request.GET.get("organization", "")
    if not raw:
        return None
    if not raw.isdigit() or len(raw) > 18:
        raise Http404("No such organization.")
    organization = Organization.objects.filter(pk=int(raw)).first()
    if organization is None:
        raise Http404("No such organization.")
    if organization.suspended:
        refuse_if_suspended(user, Organization, organization.pk)
        raise Http404("No such organization.")
    roles = scope_roles(user, organization.pk, Organization)
    if staff.acting_role(roles, power) is None:
        raise Http404("No such organization.")
    return organization


@login_required
def organization_new(request: HttpRequest) -> HttpResponse:
    """Any signed-in user makes an organization and becomes its owner."""
    user = _user(request)
    problem = ""
    name = request.POST.get("name", "") if request.method == "POST" else ""
    if request.method == "POST":
        try:
            made = services.organization_create(
                by=user, name=name, idempotency_key=form_key(request)
            )
        except DomainError as error:
            problem = error.message
        else:
            messages.success(request, _("Your organization is ready: add its first venue."))
            return redirect("organizations:organization", organization_id=made.organization_id)
    return render(
        request,
        "house/organization_new.html",
        {"problem": problem, "name": name, "key": fresh_key()},
        status=400 if problem else 200,
    )


def suspended_page(request: HttpRequest, error: OrganizationSuspended) -> HttpResponse:
    """What a suspended organization's staff are shown instead of its House pages."""
    return render(request, "house/suspended.html", {"message": error.message}, status=403)


@login_required
def organization_page(request: HttpRequest, organization_id: int) -> HttpResponse:
    """An organization's House page: its venues, its events, its staff."""
    try:
        organization = house_organization(request, organization_id)
    except OrganizationSuspended as error:
        return suspended_page(request, error)
    user = _user(request)
    roles = scope_roles(user, organization.pk, Organization)
    context: dict[str, Any] = {
        "organization": organization,
        "venues": list(organization.venues.all()),
        "events": list(organization.events.order_by("-date", "-id")[:50]),
        "series": list(organization.series.order_by("name", "id")),
        "may_make": staff.acting_role(roles, "venue_create") is not None,
        "key": fresh_key(),
        "staff_section": staff_pages.staff_section(request, organization),
    }
    return render(request, "house/organization.html", context)


@login_required
@require_POST
def venue_add(request: HttpRequest, organization_id: int) -> HttpResponse:
    """The owner or a director adds a venue."""
    try:
        organization = house_organization(request, organization_id)
    except OrganizationSuspended as error:
        return suspended_page(request, error)
    try:
        services.venue_create(
            organization_id=organization.pk,
            by=_user(request),
            name=request.POST.get("name", ""),
            time_zone_name=request.POST.get("time_zone", "") or "UTC",
            idempotency_key=form_key(request),
        )
    except DomainError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Venue added."))
    return redirect("organizations:organization", organization_id=organization.pk)
