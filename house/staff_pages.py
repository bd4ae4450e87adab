"""The staff section of House's pages, one for every kind of scope (an event's settings page, a
series' page), its forms, the display links section, and the one invitation page.

Each kind of scope declares once, from its app's `ready()`, how the pages serve it (`StaffScope`):
its model, the viewer's roles in one (none: 404, as every House page), its services module and
its pages; its forms' addresses, their services and its words are its rows of
house/staff_kinds.py. A form view resolves the scope, parses, calls the service through
`perform` (the one dispatch point to each kind's services), says the answer and goes back to the
page's staff anchor. Which forms the section holds
is asked of the role table (staff/roles.py `acting_role`) the same way on every page: a form the
viewer may not use is left out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db.models import Model
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import URLPattern, path, reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from accounts.models import User
from events import display, services
from events.runner import refuse_if_suspended
from events.venue import phone_url
from helpers.errors import DomainError, Invalid, NotAllowed
from helpers.forms import form_key, fresh_key, refuse
from house.staff_kinds import (
    ACCEPT,
    ADD,
    DISPLAY_CREATE,
    DISPLAY_REVOKE,
    FORMS,
    HAND_OVER,
    HAND_OVER_CHOSEN,
    INVITE,
    LEAVE,
    PLACES,
    REMOVE,
    ROLE,
    SERVICES,
    WITHDRAW,
    WORDS,
    Form,
    Place,
    Words,
    said,
)
from staff import reads as staff_reads
from staff import roles as staff
from staff import scopes
from staff.invitations import invitation_notice, is_expired
from staff.models import Membership
from staff.roles import MEMBER_ROLES, Role
from staff.scopes import Scope, kind_of

# The forms that change who is staff: a kind whose site staff may change them without a role
# in the scope says so (`site_staff`).
STAFF_CHANGES = frozenset({ADD, ROLE, REMOVE, HAND_OVER, HAND_OVER_CHOSEN, INVITE, WITHDRAW})

ROLE_CHOICES = [(role.value, role.label) for role in MEMBER_ROLES if role != Role.OWNER]

# A display link just made: its address, shown once on the page's next render (only its hash is
# kept).
DISPLAY_SESSION = "house:display-link:{kind}:{scope_id}"


@dataclass(frozen=True, slots=True)
class Above:
    """The scope whose owner owns this one (an event's series): its name, page and owner."""

    name: str
    url: str
    owner: User | None


def _never(scope: Any) -> bool:
    return False


def _always(scope: Any) -> bool:
    return True


def _nothing_above(scope: Any) -> Above | None:
    return None


@dataclass(frozen=True, slots=True)
class StaffScope:
    """How House's pages serve one kind of scope's staff (its words and forms: staff_kinds)."""

    kind: str  # "event", "series": its rows in house/staff_kinds.py and its URLs' `kind`
    model: type[Model]
    # The viewer's roles in a scope (its own and those of a scope above it).
    roles: Callable[[User, Any], frozenset[str]]
    # What an invitation to its staff says it is for (staff/scopes.py).
    invitation_words: Callable[[Any], str]
    settings_page: Callable[[Any], str]  # where the staff section is
    display_page: Callable[[Any], str]  # where the display links section is
    house_page: Callable[[Any], str]  # where an accepted invitation lands
    # Site staff change the scope's staff without a role in it.
    site_staff: bool = False
    # The scope's staff change no more (a finalized event).
    final: Callable[[Any], bool] = _never
    # Its ownership is handed over on this page (not with a scope above it).
    hands_over: Callable[[Any], bool] = _always
    above: Callable[[Any], Above | None] = _nothing_above

    @property
    def words(self) -> Words:
        return WORDS[self.kind]

    @property
    def place(self) -> Place:
        return PLACES[self.kind]

    def form(self, name: str) -> Form:
        return FORMS[self.kind][name]

    def url(self, name: str, *ids: int) -> str:
        return reverse(f"{self.place.namespace}:{self.form(name).name}", args=ids)


_scopes: dict[str, StaffScope] = {}


def declare(scope: StaffScope) -> None:
    """Serve a kind of scope on House's pages; it is a scope of staff (staff/scopes.py) too."""
    _scopes[scope.kind] = scope
    scopes.declare(scopes.ScopeKind(model=scope.model, invitation_words=scope.invitation_words))


def kind_named(kind: str) -> StaffScope:
    return _scopes[kind]


def kind_for(scope: Model) -> StaffScope:
    """The declaration serving a scope (an Event, a Series)."""
    for declared in _scopes.values():
        if isinstance(scope, declared.model):
            return declared
    raise LookupError(f"No staff pages for {type(scope).__name__}.")


def perform(form: str, scope: Model, **arguments: Any) -> Any:
    """Call the staff change of the form `form` on the scope (events/staffing.py, one set for
    every kind), the form's keywords as given."""
    service = getattr(services, SERVICES[form])
    return service(scope=Scope.of(scope), **arguments)


# --- who may do what ------------------------------------------------------------------------------


def _viewer(request: HttpRequest) -> User:
    user = request.user
    if not isinstance(user, User):
        raise Http404("No such page.")
    return user


def resolve(request: HttpRequest, kind: str, scope_id: int) -> tuple[StaffScope, Model]:
    """The scope, if the viewer is House for it; 404 otherwise (never say it exists)."""
    declared = kind_named(kind)
    scope = declared.model._default_manager.filter(pk=scope_id).first()
    if scope is None or not declared.roles(_viewer(request), scope):
        if scope is not None:
            refuse_if_suspended(_viewer(request), declared.model, scope.pk)
        raise Http404(f"No such {declared.words.noun}.")
    return declared, scope


def may(kind: StaffScope, viewer: User, scope: Model, action: str) -> bool:
    """Whether the viewer may use the form `action` on this scope: the role table's answer,
    site staff's where the kind lets them change its staff, and none once its staff are final."""
    if action in STAFF_CHANGES and kind.final(scope):
        return False
    if action == HAND_OVER and not kind.hands_over(scope):
        return False
    if kind.site_staff and viewer.is_staff and action in STAFF_CHANGES:
        return True
    return staff.acting_role(kind.roles(viewer, scope), SERVICES[action]) is not None


def _refusal(kind: StaffScope, viewer: User, scope: Model, action: str) -> NotAllowed:
    """The role table's refusal, in the services' words."""
    held = staff.strongest(kind.roles(viewer, scope))
    return staff.role_refusal(kind.words.noun, staff.word(held or ""), SERVICES[action])


# --- the section ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MemberRow:
    """A member as the section lists them, with the forms the viewer may use on them."""

    user_id: int
    display_name: str
    email: str
    role: str
    is_viewer: bool
    role_url: str | None
    remove_url: str | None
    owner_url: str | None
    leave_url: str | None


@dataclass(frozen=True, slots=True)
class InvitationRow:
    pk: int
    email: str
    role: str
    link: str
    withdraw_url: str | None


@dataclass(frozen=True, slots=True)
class StaffSection:
    """The staff section of a scope's page as one viewer sees it: a form the viewer may not use
    has no URL, so it is not rendered at all."""

    anchor: str
    name: str
    noun: str
    members: list[MemberRow]
    show_emails: bool
    add_url: str | None
    invite_url: str | None
    invitations: list[InvitationRow]
    roles: list[tuple[str, str]]
    key: str
    final: bool
    final_words: str
    who_appoints: str
    reach: str
    above: Above | None = None

    @property
    def hands_over(self) -> bool:
        """Whether the viewer may hand ownership to any member listed."""
        return any(member.owner_url for member in self.members)


def staff_section(request: HttpRequest, scope: Model) -> StaffSection:
    """The staff section of `scope`'s page for the signed-in viewer."""
    kind = kind_for(scope)
    viewer = _viewer(request)

    def url(action: str, *more: int) -> str | None:
        return kind.url(action, scope.pk, *more) if may(kind, viewer, scope, action) else None

    final = kind.final(scope)
    members = []
    for member in staff_reads.members(scope):
        other = member.user.pk != viewer.pk and member.role != Role.OWNER
        members.append(
            MemberRow(
                user_id=member.user.pk,
                display_name=member.user.display_name,
                email=member.user.email,
                role=member.role,
                is_viewer=member.user.pk == viewer.pk,
                role_url=url(ROLE, member.user.pk) if other else None,
                remove_url=url(REMOVE, member.user.pk) if other else None,
                owner_url=url(HAND_OVER, member.user.pk) if other else None,
                leave_url=(
                    kind.url(LEAVE, scope.pk)
                    if member.user.pk == viewer.pk and member.role != Role.OWNER and not final
                    else None
                ),
            )
        )
    invite_url = url(INVITE)
    add_url = url(ADD)
    invitations = [
        InvitationRow(row.pk, row.email, row.role, row.link, url(WITHDRAW, row.pk))
        for row in (staff_reads.pending_invitations(scope) if invite_url else [])
    ]
    return StaffSection(
        anchor=kind.place.anchor,
        name=str(scope),
        noun=kind.words.noun,
        members=members,
        show_emails=add_url is not None,
        add_url=add_url,
        invite_url=invite_url,
        invitations=invitations,
        roles=[(value, str(label)) for value, label in ROLE_CHOICES],
        key=fresh_key(),
        final=final,
        final_words=said(kind.words.final),
        who_appoints=said(kind.words.who_appoints),
        reach=said(kind.words.reach),
        above=kind.above(scope),
    )


def displays(request: HttpRequest, scope: Model) -> dict[str, Any]:
    """The page's Displays section (house/_displays.html): the owner's and a director's."""
    kind = kind_for(scope)
    if not may(kind, _viewer(request), scope, DISPLAY_CREATE):
        return {"displays": None}
    fresh = request.session.pop(DISPLAY_SESSION.format(kind=kind.kind, scope_id=scope.pk), None)
    return {
        "displays": display.rows(scope),
        "fresh_display": fresh,
        "locked_displays": kind.final(scope),
        "display_what": kind.words.noun,
        "display_create": kind.url(DISPLAY_CREATE, scope.pk),
        "display_revoke": kind.url(DISPLAY_REVOKE, scope.pk),
    }


# --- the forms ------------------------------------------------------------------------------------


def _form(
    back: Callable[[StaffScope, Model], str],
) -> Callable[[Callable[..., str]], Callable[..., HttpResponse]]:
    """A form of the staff or displays section: House of the scope only (404 otherwise), POST
    only; the service's answer, or its refusal, said on the page it came from."""

    def decorate(view: Callable[..., str]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapped(request: HttpRequest, kind: str, scope_id: int, **ids: int) -> HttpResponse:
            declared, scope = resolve(request, kind, scope_id)
            try:
                done = view(request, declared, scope, _viewer(request), form_key(request), **ids)
            except DomainError as error:
                refuse(request, error)
            else:
                messages.success(request, done)
            return redirect(back(declared, scope))

        return login_required(require_POST(wrapped))

    return decorate


def _staff_anchor(kind: StaffScope, scope: Model) -> str:
    return f"{kind.settings_page(scope)}#{kind.place.anchor}"


def _displays_anchor(kind: StaffScope, scope: Model) -> str:
    return f"{kind.display_page(scope)}#displays"


def _member(kind: StaffScope, scope: Model, user_id: int, refusal: str) -> User:
    held = Membership.objects.of(scope).filter(user_id=user_id).select_related("user").first()
    if held is None:
        raise Invalid(refusal)
    return held.user


def _email(request: HttpRequest, refusal: str) -> str:
    email = str(request.POST.get("email", "")).strip()
    try:
        validate_email(email)
    except ValidationError:
        raise Invalid(refusal) from None
    return email


@_form(_staff_anchor)
def member_add(request: HttpRequest, kind: StaffScope, scope: Model, by: User, key: str) -> str:
    """Appoint someone with an account, by email, with a role."""
    email = _email(request, said(kind.words.email_missing))
    # Only someone who may appoint learns whether an account uses the email.
    if not may(kind, by, scope, ADD):
        raise _refusal(kind, by, scope, ADD)
    member = User.objects.filter(email__iexact=email, is_active=True).first()
    if member is None:
        raise Invalid(_("No Syndicate Account uses that email: they sign up first."))
    role = request.POST.get("role") or Role.DIRECTOR
    perform(ADD, scope, by=by, member=member, role=role, idempotency_key=key)
    return said(kind.words.appointed).format(name=member.display_name, role=staff.word(role))


@_form(_staff_anchor)
def member_role(
    request: HttpRequest, kind: StaffScope, scope: Model, by: User, key: str, user_id: int
) -> str:
    """Change a member's role (appointed again, with another role)."""
    member = _member(kind, scope, user_id, said(kind.words.not_member))
    role = request.POST.get("role") or ""
    perform(ADD, scope, by=by, member=member, role=role, idempotency_key=key)
    return said(kind.words.role_set).format(name=member.display_name, role=staff.word(role))


@_form(_staff_anchor)
def member_remove(
    request: HttpRequest, kind: StaffScope, scope: Model, by: User, key: str, user_id: int
) -> str:
    member = _member(kind, scope, user_id, said(kind.words.not_member))
    perform(REMOVE, scope, by=by, member=member, idempotency_key=key)
    return said(kind.words.removed).format(name=member.display_name)


@_form(_staff_anchor)
def ownership_transfer(
    request: HttpRequest,
    kind: StaffScope,
    scope: Model,
    by: User,
    key: str,
    user_id: int | None = None,
) -> str:
    """Hand ownership to a member, named by the form's address (its button asks to confirm) or
    chosen in a list (its box ticked)."""
    if user_id is None:
        chosen = str(request.POST.get("user_id", ""))
        if not (chosen.isascii() and chosen.isdigit() and len(chosen) <= 9):
            raise Invalid(
                _("user_id: %(value)s is not a whole number of 0 or more.")
                % {"value": repr(chosen)}
            )
        member = _member(kind, scope, int(chosen), said(kind.words.owner_not_member))
        if request.POST.get("confirm") != "1":
            raise Invalid(_("Tick the box to confirm: you stay on as director."))
        perform(HAND_OVER_CHOSEN, scope, by=by, member=member, idempotency_key=key)
        return said(kind.words.owns).format(name=member.display_name)
    else:
        member = _member(kind, scope, user_id, said(kind.words.owner_not_member))
    perform(HAND_OVER, scope, by=by, member=member, idempotency_key=key)
    return said(kind.words.owns).format(name=member.display_name)


@_form(_staff_anchor)
def invite(request: HttpRequest, kind: StaffScope, scope: Model, by: User, key: str) -> str:
    email = str(request.POST.get("email", "")).strip()
    if kind.words.invite_email_missing:
        email = _email(request, said(kind.words.invite_email_missing))
    role = request.POST.get("role") or Role.DIRECTOR
    answer = perform(INVITE, scope, by=by, email=email, role=role, idempotency_key=key)
    return invitation_notice(email, answer.role)


@_form(_staff_anchor)
def invitation_withdraw(
    request: HttpRequest, kind: StaffScope, scope: Model, by: User, key: str, invitation_id: int
) -> str:
    perform(WITHDRAW, scope, by=by, invitation_id=invitation_id, idempotency_key=key)
    return said(kind.words.withdrawn)


@login_required
@require_POST
def leave(request: HttpRequest, kind: str, scope_id: int) -> HttpResponse:
    """A member leaves the staff (not the owner, who hands ownership over first)."""
    declared, scope = resolve(request, kind, scope_id)
    by = _viewer(request)
    try:
        perform(REMOVE, scope, by=by, member=by, idempotency_key=form_key(request))
    except DomainError as error:
        refuse(request, error)
        return redirect(_staff_anchor(declared, scope))
    messages.success(request, said(declared.words.left).format(scope=str(scope)))
    return redirect("house:events")


@_form(_displays_anchor)
def display_link_create(
    request: HttpRequest, kind: StaffScope, scope: Model, by: User, key: str
) -> str:
    answer = perform(
        DISPLAY_CREATE, scope, by=by, label=request.POST.get("label", ""), idempotency_key=key
    )
    url = phone_url(answer.path, request) or request.build_absolute_uri(answer.path)
    session_key = DISPLAY_SESSION.format(kind=kind.kind, scope_id=scope.pk)
    request.session[session_key] = {"label": answer.label, "url": url}
    return _("Display link “%(label)s” added: copy it now, it is shown once.") % {
        "label": answer.label
    }


@_form(_displays_anchor)
def display_link_revoke(
    request: HttpRequest, kind: StaffScope, scope: Model, by: User, key: str
) -> str:
    link = str(request.POST.get("link", ""))
    if not (link.isascii() and link.isdigit() and len(link) <= 18):
        raise Invalid(_("Choose the display link to revoke."))
    perform(DISPLAY_REVOKE, scope, by=by, link_id=int(link), idempotency_key=key)
    return _("Display link revoked: its screen now says so.")


# --- the invitation page --------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def invitation(request: HttpRequest, token: str) -> HttpResponse:
    """An invitation to a staff (an event's, a series'): who invites, to what, in which role;
    Accept joins, through the service of the invitation's scope."""
    found = staff_reads.invitation(token)
    if found is None or found.scope is None:
        raise Http404("No such invitation: it was withdrawn, or the link is incomplete.")
    scope = found.scope
    kind = kind_for(scope)
    viewer = _viewer(request)
    if request.method == "POST":
        try:
            accepted = perform(
                ACCEPT, scope, by=viewer, token=token, idempotency_key=form_key(request)
            )
        except DomainError as error:
            refuse(request, error)
            return redirect("staff_invitation", token=token)
        messages.success(
            request,
            _("You are on the staff of %(scope)s (%(role)s).")
            % {"scope": scope, "role": staff.word(accepted.role)},
        )
        return redirect(kind.house_page(scope))
    return render(
        request,
        "house/invitation.html",
        {
            "invitation": found,
            "name": str(scope),
            "what": kind_of(scope).invitation_words(scope),
            "role": Role(found.role).label,
            "for_me": found.email.casefold() == viewer.email.casefold(),
            "expired": is_expired(found.created_at),
            "email": viewer.email,
            "key": fresh_key(),
        },
    )


# --- the addresses --------------------------------------------------------------------------------

_VIEWS: dict[str, Callable[..., HttpResponse]] = {
    ADD: member_add,
    ROLE: member_role,
    REMOVE: member_remove,
    HAND_OVER: ownership_transfer,
    HAND_OVER_CHOSEN: ownership_transfer,
    INVITE: invite,
    WITHDRAW: invitation_withdraw,
    LEAVE: leave,
    DISPLAY_CREATE: display_link_create,
    DISPLAY_REVOKE: display_link_revoke,
}


def urls(kind: str, prefix: str) -> list[URLPattern]:
    """The sections' forms on one kind's pages, each at its address under the scope's
    (`prefix`, which takes the scope's id as `scope_id`)."""
    return [
        path(prefix + form.route, _VIEWS[name], {"kind": kind}, name=form.name)
        for name, form in FORMS[kind].items()
        if form.route
    ]
