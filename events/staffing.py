"""The staff's changes, one set for an event and for the scope above events (a series): appoint
and remove a member, hand ownership over, invite by email, accept and withdraw an invitation,
make and revoke a display link. Each names its `scope` (staff.scopes.Scope) and runs through the
one runner: the scope locked (a series before any of its events), the actor's role guarded by the
one table (staff/roles.py), the entry chained in the scope's own audit, the answer stored under
the Idempotency-Key.

What differs between the two scopes is said here once: an event's staff are changed by its owner
or by site staff (who hold no role in it and act as `site`), and not once it is finalized; a
series' by its owner; a member removed from a series leaves each of its events not yet finalized
too (the scope above does that: `events.runner.ScopeAbove.removed`).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Model
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts import revocation
from accounts.models import User
from events import answers
from events.display import display_path, new_link, revoke, tell_revoked
from events.errors import NotAllowed, NotFound, WrongState
from events.runner import Change, action, member_left_above, scope_above, staffed_above
from staff import tasks as staff_tasks
from staff.invitations import check_acceptance, invited_address, new_token, void_pending
from staff.models import DisplayLink, Invitation, Membership
from staff.roles import SITE_STAFF, Role, appointed_role, role_on_acceptance, strongest
from staff.scopes import Scope

# What a scope above events keeps, in the words of its kind (a series, an organization).
_KEEPS_A_MEMBER = {
    "series": gettext_lazy("A series keeps at least one House member."),
    "organization": gettext_lazy("An organization keeps at least one House member."),
}
_KEEPS_AN_OWNER = {
    "series": gettext_lazy("The owner hands ownership over first: a series keeps an owner."),
    "organization": gettext_lazy(
        "The owner hands ownership over first: an organization keeps an owner."
    ),
}
_OWNERSHIP_GOES_TO_A_MEMBER = {
    "event": gettext_lazy("Ownership goes to a member of the event's staff: appoint them first."),
    "series": gettext_lazy("Ownership goes to a member of the series' staff: appoint them first."),
    "organization": gettext_lazy(
        "Ownership goes to a member of the organization's staff: appoint them first."
    ),
}


def scope_of(change: Change) -> Model:
    """What the change's staff belong to: the series it concerns, else its event."""
    return change.scope if change.scope is not None else change.event


def _named(change: Change) -> tuple[str, int]:
    target = scope_of(change)
    return target._meta.model_name or "", int(target.pk)


def _guard(change: Change, by: User, refusal: str) -> None:
    """Who changes a staff: in an event, House whose role may make the change, or site staff,
    who hold no role in it and act as site staff (their entries say so), and nothing once the
    event is finalized; in a series, its House whose role may."""
    if change.scope is not None:
        change.require_house()
        return
    if not change.house:
        if not by.is_staff:
            raise change.refusal() if change.roles else change.stranger() or NotAllowed(refusal)
        change.act_as(SITE_STAFF)
    change.refuse_if_finalized()


def _members(change: Change) -> Any:
    return Membership.objects.of(scope_of(change))


def _invitations(change: Change) -> Any:
    return Invitation.objects.of(scope_of(change))


@action("house_member_add")
def house_member_add(
    change: Change,
    *,
    scope: Scope,
    by: User,
    member: User,
    role: str = Role.DIRECTOR,
    idempotency_key: str | None = None,
) -> answers.StaffChanged:
    """The owner (of an event: or site staff) appoints a staff member with a role; a member
    appointed again takes the new role (the owner's is handed over with `ownership_transfer`)."""
    _guard(change, by, _("Only site staff appoint House members."))
    wanted = appointed_role(role)
    held = _members(change).filter(user=member).first()
    if held is None:
        if not member.is_active:
            raise NotFound(_("No such account."))
        Membership.objects.create(scope=scope_of(change), user=member, role=wanted)
        change.audit("house_member_added", details={"member": member.display_name, "role": wanted})
    elif held.role != wanted:
        if held.role == Role.OWNER:
            raise NotAllowed(_("The owner stays owner until ownership is handed over."))
        held.role = wanted
        held.save(update_fields=["role"])
        change.audit("staff_role_set", details={"member": member.display_name, "role": wanted})
    kind, scope_id = _named(change)
    return answers.StaffChanged(scope=kind, scope_id=scope_id, member=member.pk)


@action("house_member_remove")
def house_member_remove(
    change: Change,
    *,
    scope: Scope,
    by: User,
    member: User,
    idempotency_key: str | None = None,
) -> answers.StaffChanged:
    """The owner (of an event: or site staff) removes a staff member; a member may leave, in
    their own role. The owner is neither removed nor leaves before handing ownership over: a
    scope always keeps one. Pending invitations to the member's address go with them."""
    leaving = member.pk == by.pk and bool(change.roles)
    held = _members(change).filter(user=member).first()
    if leaving and not change.house:
        change.act_as(held.role if held is not None else strongest(change.roles) or SITE_STAFF)
    if change.scope is not None:
        if not leaving:
            change.require_house()
        noun = _named(change)[0]
        if not _members(change).exclude(user=member).exists() and not staffed_above(
            type(change.scope), change.scope.pk
        ):
            raise WrongState(_KEEPS_A_MEMBER[noun])
        if held is not None and held.role == Role.OWNER:
            raise NotAllowed(_KEEPS_AN_OWNER[noun])
    else:
        _guard(change, by, _("Only site staff appoint House members."))
        if held is not None and held.role == Role.OWNER:
            raise NotAllowed(
                _(
                    "The owner hands ownership over before leaving or being removed: an event "
                    "keeps "
                    "an owner."
                )
            )
    if held is not None:
        if leaving:
            change.act_as(held.role)  # they leave in their own role, which the entry names
        remove_member(change, member, **({"left": True} if leaving else {}))
    kind, scope_id = _named(change)
    return answers.StaffChanged(scope=kind, scope_id=scope_id, member=member.pk)


def remove_member(change: Change, member: User, **details: Any) -> None:
    """Take `member` off the staff of the change's scope, in the change that holds its lock:
    pending invitations to their address go too, and their open House sockets check their
    access after the commit; off a series, off each of its events not yet finalized too."""
    target = scope_of(change)
    _members(change).filter(user=member).delete()
    void_pending(_invitations(change), member)
    change.audit("house_member_removed", details={"member": member.display_name, **details})
    if change.scope is not None:
        member_left_above(change, member, target.pk, details.get("left", False))
        return
    # Registered now, so it runs before this change's live update: the socket closes first.
    event_id = target.pk
    transaction.on_commit(lambda: revocation.revoke(member.pk, event_id=event_id))


@action("ownership_transfer")
def ownership_transfer(
    change: Change,
    *,
    scope: Scope,
    by: User,
    member: User,
    idempotency_key: str | None = None,
) -> answers.OwnershipTransferred:
    """The owner (of an event: or site staff) hands ownership to a staff member; the former
    owner stays on as director. A scope keeps exactly one owner; an event of a series is owned
    by the series' owner, and is handed over with the series."""
    _guard(change, by, _("Only the owner hands ownership over."))
    if change.scope is None and scope_above(change.event.pk) is not None:
        raise WrongState(
            _(
                "This event's owner is its series' owner: hand the series over instead "
                "(an event of a series has no owner of its own)."
            )
        )
    held = _members(change).filter(user=member).first()
    if held is None:
        raise NotAllowed(_OWNERSHIP_GOES_TO_A_MEMBER[_named(change)[0]])
    if held.role != Role.OWNER:
        _members(change).filter(role=Role.OWNER).update(role=Role.DIRECTOR)
        held.role = Role.OWNER
        held.save(update_fields=["role"])
        change.audit("ownership_transferred", details={"member": member.display_name})
    kind, scope_id = _named(change)
    return answers.OwnershipTransferred(scope=kind, scope_id=scope_id, owner=member.pk)


@action("staff_invite")
def staff_invite(
    change: Change,
    *,
    scope: Scope,
    by: User,
    email: str,
    role: str = Role.DIRECTOR,
    idempotency_key: str | None = None,
) -> answers.StaffInvited:
    """The owner (of an event: or site staff) invites someone to the staff by email, with a
    role: the link is emailed after the commit, and the answer holds the token to hand over
    (docs/decisions.md, "Roles"). The audit names the invitation and its role, never the
    address."""
    _guard(change, by, _("Only the owner invites staff."))
    wanted = appointed_role(role)
    invitation = Invitation.objects.create(
        scope=scope_of(change),
        email=invited_address(email),
        role=wanted,
        token=new_token(),
        invited_by=by,
    )
    change.audit("staff_invited", details={"invitation": invitation.pk, "role": wanted})
    pk = invitation.pk

    def email_it() -> None:
        staff_tasks.send_staff_invitation.delay(pk)

    change.after_commit(email_it)
    kind, scope_id = _named(change)
    return answers.StaffInvited(
        scope=kind,
        scope_id=scope_id,
        invitation_id=invitation.pk,
        role=wanted,
        token=invitation.token,
    )


@action("staff_invitation_accept", missing="invitation")
def staff_invitation_accept(
    change: Change,
    *,
    scope: Scope,
    by: User,
    token: str,
    idempotency_key: str | None = None,
) -> answers.StaffInvitationAccepted:
    """A signed-in user whose email the invitation names joins the staff in its role, once; a
    member already on the staff takes its role (never the owner, who stays owner)."""
    if not by.is_authenticated or not by.is_active:
        raise NotAllowed(_("Sign in to accept an invitation."))
    change.refuse_if_finalized()
    invitation = (
        _invitations(change)
        .select_for_update()
        .filter(token=token.strip() if isinstance(token, str) else "")
        .first()
    )
    if invitation is None:
        raise NotFound(_("No such invitation."))
    check_acceptance(
        invitation.accepted_at,
        invitation.email,
        by,
        created_at=invitation.created_at,
        now=change.now,
    )
    invitation.accepted_at = change.now
    invitation.save(update_fields=["accepted_at"])
    held = _members(change).filter(user=by).first()
    role = invitation.role if held is None else role_on_acceptance(held.role, invitation.role)
    change.act_as(role)  # they join, and the audit names the role they joined in
    if held is None:
        Membership.objects.create(scope=scope_of(change), user=by, role=role)
        change.audit(
            "house_member_added",
            details={"member": by.display_name, "role": role, "invitation": invitation.pk},
        )
    elif role != held.role:
        held.role = role
        held.save(update_fields=["role"])
        change.audit("staff_role_set", details={"member": by.display_name, "role": role})
    kind, scope_id = _named(change)
    return answers.StaffInvitationAccepted(scope=kind, scope_id=scope_id, role=role)


@action("staff_invitation_cancel")
def staff_invitation_cancel(
    change: Change,
    *,
    scope: Scope,
    by: User,
    invitation_id: int,
    idempotency_key: str | None = None,
) -> answers.StaffInvitationCancelled:
    """The owner (of an event: or site staff) withdraws a pending invitation: its row and the
    email it named are deleted, and its link stops working."""
    _guard(change, by, _("Only the owner invites staff."))
    invitation = _invitations(change).select_for_update().filter(pk=invitation_id).first()
    if invitation is None:
        raise NotFound(_("No such invitation."))
    if invitation.accepted_at is not None:
        raise WrongState(_("This invitation has already been accepted: remove the member instead."))
    invitation.delete()
    change.audit("staff_invitation_cancelled", details={"invitation": invitation_id})
    kind, scope_id = _named(change)
    return answers.StaffInvitationCancelled(
        scope=kind, scope_id=scope_id, invitation_id=invitation_id
    )


@action("display_link_create")
def display_link_create(
    change: Change,
    *,
    scope: Scope,
    by: User,
    label: str,
    idempotency_key: str | None = None,
) -> answers.DisplayLinkCreated:
    """House (owner or director) makes a display link for the projector: an event's shows its
    board, a series' its current event and follows it to the next one (events/display.py). The
    answer holds its address, shown this once."""
    change.require_house()
    change.refuse_if_finalized()
    link, token = new_link(by=by, label=label, scope=scope_of(change))
    change.audit("display_link_created", details={"link": link.pk, "label": link.label})
    kind, scope_id = _named(change)
    return answers.DisplayLinkCreated(
        scope=kind, scope_id=scope_id, link_id=link.pk, label=link.label, path=display_path(token)
    )


@action("display_link_revoke")
def display_link_revoke(
    change: Change,
    *,
    scope: Scope,
    by: User,
    link_id: int,
    idempotency_key: str | None = None,
) -> answers.DisplayLinkRevoked:
    """House (owner or director) revokes a display link: its page and its open sockets end. A
    link revoked already stays as it was. A finalized event changes no more: its links show the
    final board, public to anyone, and no code."""
    change.require_house()
    change.refuse_if_finalized()
    link = DisplayLink.objects.of(scope_of(change)).select_for_update().filter(pk=link_id).first()
    if link is None:
        raise NotFound(_("No such display link."))
    if revoke(link, by=by, now=change.now):
        change.audit("display_link_revoked", details={"link": link.pk, "label": link.label})
        # Registered now, so it runs before this change's live update: the sockets close first.
        transaction.on_commit(lambda: tell_revoked(link.pk))
    kind, scope_id = _named(change)
    return answers.DisplayLinkRevoked(scope=kind, scope_id=scope_id, link_id=link.pk)
