"""The staff of an event or a series over the API (docs/decisions.md, "Roles"): its members and
their roles, its owner, its invitations and its display links. One set of views serves
/api/events/<id>/ and /api/series/<id>/ alike: each resolves the scope, asks the role table
(staff/roles.py) whether the viewer may see a read, and calls the scope's service through
`perform`, the one place that names a kind's services."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from django.db.models import Model
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema_view
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import Serializer

from accounts.models import User
from api import reads, schema
from api.endpoints import ApiView, actor, answered, valid
from api.seasons import SEASONS, known_series
from api.views import HOUSE
from events import display
from events import request_bodies as event_body
from events import services as event_services
from events.answers import Answer
from events.errors import DomainError, NotAllowed, NotFound
from events.models import Event
from events.reads.common import to_json
from events.runner import Service, roles_of, stranger_refusal
from seasons import reads as series_reads
from seasons import request_bodies as series_body
from seasons import services as series_services
from seasons.models import Series
from staff import roles as staff
from staff.scopes import Scope

# --- the one dispatch point -----------------------------------------------------------------

# Each kind's staff services, by what they do. The API calls them through `perform` alone, so
# the day both kinds share one set of services, this table is all that changes.
# Each job's staff change (events/staffing.py), one set for every kind of scope, and its answer.
SERVICES: dict[str, Service[..., Any]] = {
    "member_add": event_services.house_member_add,
    "member_remove": event_services.house_member_remove,
    "ownership_transfer": event_services.ownership_transfer,
    "invite": event_services.staff_invite,
    "invitation_accept": event_services.staff_invitation_accept,
    "invitation_cancel": event_services.staff_invitation_cancel,
    "link_create": event_services.display_link_create,
    "link_revoke": event_services.display_link_revoke,
}
ANSWERS: dict[str, type[Answer]] = {job: service.answer for job, service in SERVICES.items()}


def perform(scope: StaffScope, job: str, scope_id: int, **arguments: Any) -> Answer:
    """Run the staff change for `job` on the scope `scope_id` names."""
    return SERVICES[job](scope=Scope(scope.model, scope_id), **arguments)


def action_name(scope: StaffScope, job: str) -> str:
    """The name the role table (staff/roles.py) knows the change for `job` by: its own."""
    return SERVICES[job].name


# --- what the two kinds differ in -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StaffScope:
    """One kind of scope whose staff the API serves: where its routes live, how it is found and
    who holds which role in it, the words its refusals and its documentation use, and the request
    bodies and answers its services have."""

    kind: str  # "event", "series"
    model: type[Model]
    prefix: str  # the routes' start, with the scope's id
    id_name: str
    url_names: Callable[[str], str]
    tags: list[str]
    # "an event", "the event's", "its owner or site staff": the documentation's words.
    a: str
    its: str
    owners: str
    shown: str  # what a display link shows
    # The scope an id names, as `user` may know it: "No such ..." for one that does not exist,
    # and for one they may not see (a draft event is its House's and site staff's alone).
    visible: Callable[[User | None, int], Model]
    # The roles `user` holds in the scope (an event's: its own and its series').
    roles: Callable[[User | None, Any], frozenset[str]]
    # Whether site staff, holding no role, act on the scope's staff (their services say so too).
    site_staff_act: bool
    # Whether a member naming themself (to leave) must hold a role in the scope.
    leaving_checked: bool
    # Whether an account closed since may still be named, to be removed.
    former_accounts_named: bool
    # The refusal of someone holding no role: for a staff change, and for a read.
    nobody: str | Promise
    unseen: str | Promise
    bodies: Mapping[str, type[Serializer[Any]]]
    links: Callable[[Any], Any]
    links_shape: type


def _event_roles(user: User | None, event: Event) -> frozenset[str]:
    return roles_of(user, event.pk)


EVENT = StaffScope(
    kind="event",
    model=Event,
    prefix="events/<int:event_id>/",
    id_name="event_id",
    # The event's owner route was named before a series had one.
    url_names=lambda name: "event-owner" if name == "owner" else name,
    tags=HOUSE.tags,
    a="an event",
    its="the event's",
    owners="its owner or site staff",
    shown="the event's board, with the check-in code while self check-in is on,",
    visible=reads.visible_event,
    roles=_event_roles,
    site_staff_act=True,
    leaving_checked=False,
    former_accounts_named=True,
    nobody=gettext_lazy("Only site staff appoint House members."),
    unseen=gettext_lazy("Only House can see this for this event."),
    bodies={
        "member": event_body.HouseMember,
        "owner": event_body.Owner,
        "invitation": event_body.StaffInvitation,
        "acceptance": event_body.InvitationAcceptance,
        "link": event_body.DisplayLinkLabel,
    },
    links=display.event_links,
    links_shape=display.DisplayLinks,
)

SERIES = StaffScope(
    kind="series",
    model=Series,
    prefix="series/<int:series_id>/",
    id_name="series_id",
    url_names=lambda name: f"series-{name}",
    tags=SEASONS.tags,
    a="a series",
    its="the series'",
    owners="its owner",
    shown="the series' current event and follows it to the next,",
    visible=lambda user, series_id: known_series(series_id),
    roles=series_services.series_roles,
    site_staff_act=False,
    leaving_checked=True,
    former_accounts_named=False,
    nobody=gettext_lazy("Only House of this series can do that."),
    unseen=gettext_lazy("Only House of this series can do that."),
    bodies={
        "member": series_body.SeriesHouseMember,
        "owner": series_body.SeriesOwner,
        "invitation": series_body.SeriesStaffInvitation,
        "acceptance": series_body.SeriesInvitationAcceptance,
        "link": event_body.DisplayLinkLabel,
    },
    links=series_reads.series_links,
    links_shape=series_reads.SeriesDisplayLinks,
)

SCOPES = (EVENT, SERIES)


def named_member(
    scope: StaffScope, *, by: User, scope_id: int, user_id: int, job: str = "member_add"
) -> User:
    """The account a member of the scope's staff names, once their role may `job` (staff/roles.py);
    nobody else learns whether it exists. A member may name themself (to leave)."""
    roles = scope.roles(by, scope.visible(by, scope_id))
    if user_id == by.pk:
        if scope.leaving_checked and not roles:
            raise _refusal(scope, roles, action_name(scope, job), by, scope_id)
    elif not (scope.site_staff_act and by.is_staff):
        action = action_name(scope, job)
        if staff.acting_role(roles, action) is None:
            raise _refusal(scope, roles, action, by, scope_id)
    found = User.objects.filter(pk=user_id).first()
    active_only = job != "member_remove" or not scope.former_accounts_named
    if found is None or (active_only and not found.is_active):
        raise NotFound(_("No such account."))
    return found


def _refusal(
    scope: StaffScope, roles: frozenset[str], action: str, by: User, scope_id: int
) -> DomainError:
    """A refused staff change in the service's own words (`events.runner.Change.refusal`):
    a stranger to the scope is told it is not there."""
    if not roles:
        return stranger_refusal(by, scope.model, scope_id) or NotAllowed(scope.nobody)
    return staff.role_refusal(scope.kind, staff.strongest(roles) or "", action)


# --- the views ------------------------------------------------------------------------------


class StaffView(ApiView):
    # One route of a scope's staff; `for_scope` makes its view for each kind, documented in the
    # kind's words, with the scope's id passed as `scope_id`.

    scope: ClassVar[StaffScope]

    def dispatch(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        if self.scope.id_name in kwargs:
            kwargs["scope_id"] = kwargs.pop(self.scope.id_name)
        return super().dispatch(request, *args, **kwargs)

    @classmethod
    def documented(cls, scope: StaffScope) -> dict[str, Callable[[Any], Any]]:
        """The schema of each method for one kind of scope."""
        raise NotImplementedError

    def perform(self, job: str, scope_id: int, **arguments: Any) -> Answer:
        return perform(self.scope, job, scope_id, idempotency_key=self.idempotency_key, **arguments)


def _write(scope: StaffScope, job: str, summary: str, **more: Any) -> Callable[[Any], Any]:
    return schema.write(summary=summary, answer=ANSWERS[job], tags=scope.tags, **more)


class Members(StaffView):
    @classmethod
    def documented(cls, scope: StaffScope) -> dict[str, Callable[[Any], Any]]:
        return {
            "post": _write(
                scope,
                "member_add",
                f"Appoint a staff member of {scope.a} with a role, or change their role "
                f"({scope.owners})",
                request=scope.bodies["member"],
                status=201,
            )
        }

    def post(self, request: Request, scope_id: int) -> Response:
        by = actor(request)
        data = valid(request, self.scope.bodies["member"])
        member = named_member(self.scope, by=by, scope_id=scope_id, user_id=data["user_id"])
        answer = self.perform(
            "member_add", scope_id, by=by, member=member, role=data.get("role", "director")
        )
        return answered(answer, status=201)


class Member(StaffView):
    @classmethod
    def documented(cls, scope: StaffScope) -> dict[str, Callable[[Any], Any]]:
        return {
            "delete": _write(
                scope,
                "member_remove",
                f"Remove a staff member of {scope.a} ({scope.owners}), or leave its staff",
            )
        }

    def delete(self, request: Request, scope_id: int, user_id: int) -> Response:
        by = actor(request)
        member = named_member(
            self.scope, by=by, scope_id=scope_id, user_id=user_id, job="member_remove"
        )
        return answered(self.perform("member_remove", scope_id, by=by, member=member))


class Owner(StaffView):
    @classmethod
    def documented(cls, scope: StaffScope) -> dict[str, Callable[[Any], Any]]:
        return {
            "post": _write(
                scope,
                "ownership_transfer",
                f"Hand {scope.its} ownership to a staff member ({scope.owners})",
                description=f"The former owner stays on as director: {scope.a} has exactly "
                "one owner.",
                request=scope.bodies["owner"],
            )
        }

    def post(self, request: Request, scope_id: int) -> Response:
        by = actor(request)
        user_id = valid(request, self.scope.bodies["owner"])["user_id"]
        member = named_member(
            self.scope, by=by, scope_id=scope_id, user_id=user_id, job="ownership_transfer"
        )
        return answered(self.perform("ownership_transfer", scope_id, by=by, member=member))


class Invitations(StaffView):
    @classmethod
    def documented(cls, scope: StaffScope) -> dict[str, Callable[[Any], Any]]:
        return {
            "post": _write(
                scope,
                "invite",
                f"Invite someone to {scope.its} staff by email, with a role ({scope.owners})",
                request=scope.bodies["invitation"],
                status=201,
            )
        }

    def post(self, request: Request, scope_id: int) -> Response:
        data = valid(request, self.scope.bodies["invitation"])
        answer = self.perform(
            "invite",
            scope_id,
            by=actor(request),
            email=data["email"],
            role=data.get("role", "director"),
        )
        return answered(answer, status=201)


class Invitation(StaffView):
    @classmethod
    def documented(cls, scope: StaffScope) -> dict[str, Callable[[Any], Any]]:
        return {
            "delete": _write(
                scope,
                "invitation_cancel",
                f"Withdraw an invitation to {scope.its} staff not yet accepted ({scope.owners})",
            )
        }

    def delete(self, request: Request, scope_id: int, invitation_id: int) -> Response:
        return answered(
            self.perform(
                "invitation_cancel", scope_id, by=actor(request), invitation_id=invitation_id
            )
        )


class InvitationAccept(StaffView):
    @classmethod
    def documented(cls, scope: StaffScope) -> dict[str, Callable[[Any], Any]]:
        return {
            "post": _write(
                scope,
                "invitation_accept",
                f"Accept an invitation to {scope.its} staff (signed in with its email)",
                request=scope.bodies["acceptance"],
            )
        }

    def post(self, request: Request, scope_id: int) -> Response:
        token = valid(request, self.scope.bodies["acceptance"])["token"]
        return answered(self.perform("invitation_accept", scope_id, by=actor(request), token=token))


class DisplayLinks(StaffView):
    @classmethod
    def documented(cls, scope: StaffScope) -> dict[str, Callable[[Any], Any]]:
        return {
            "get": schema.read(
                summary=f"{scope.its.capitalize()} display links (its House)",
                description="Each link's label, when it was made and last seen, and whether it "
                "was revoked; never its token, which only the answer that made it holds.",
                answer=schema.read_model(scope.links_shape),
                tags=scope.tags,
            ),
            "post": _write(
                scope,
                "link_create",
                f"Make a display link for {scope.a} (its owner or a director)",
                description=f"The link shows {scope.shown} to a browser that is not signed "
                "in, in kiosk mode; it writes nothing. Its address is in this answer only.",
                request=scope.bodies["link"],
                status=201,
            ),
        }

    def get(self, request: Request, scope_id: int) -> Response:
        user = actor(request)
        found = self.scope.visible(user, scope_id)
        roles = self.scope.roles(user, found)
        if not staff.may_see(roles, "house"):
            unknown = None if roles else stranger_refusal(user, self.scope.model, scope_id)
            raise unknown or NotAllowed(self.scope.unseen)
        return Response(to_json(self.scope.links(found)))

    def post(self, request: Request, scope_id: int) -> Response:
        label = valid(request, self.scope.bodies["link"])["label"]
        answer = self.perform("link_create", scope_id, by=actor(request), label=label)
        return answered(answer, status=201)


class DisplayLinkRevoke(StaffView):
    @classmethod
    def documented(cls, scope: StaffScope) -> dict[str, Callable[[Any], Any]]:
        return {
            "post": _write(
                scope,
                "link_revoke",
                f"Revoke a display link of {scope.a} (its owner or a director)",
                description="Its page answers 410 from now on and its open displays close.",
            )
        }

    def post(self, request: Request, scope_id: int, link_id: int) -> Response:
        return answered(self.perform("link_revoke", scope_id, by=actor(request), link_id=link_id))


def for_scope(view: type[StaffView], scope: StaffScope) -> Callable[..., Any]:
    """`view` serving one kind of scope, documented in that kind's words."""
    name = f"{scope.kind.capitalize()}{view.__name__}"
    scoped: type[StaffView] = type(name, (view,), {"scope": scope, "__doc__": None})
    extend_schema_view(**view.documented(scope))(scoped)
    return scoped.as_view()


# Each route of a scope's staff, under the scope's own prefix, by its name there.
ROUTES: list[tuple[str, type[StaffView], str]] = [
    ("house-members/", Members, "house-members"),
    ("house-members/<int:user_id>/", Member, "house-member"),
    ("owner/", Owner, "owner"),
    ("staff-invitations/", Invitations, "staff-invitations"),
    ("staff-invitations/accept/", InvitationAccept, "staff-invitation-accept"),
    ("staff-invitations/<int:invitation_id>/", Invitation, "staff-invitation"),
    ("display-links/", DisplayLinks, "display-links"),
    ("display-links/<int:link_id>/revoke/", DisplayLinkRevoke, "display-link-revoke"),
]
