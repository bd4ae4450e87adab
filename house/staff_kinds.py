"""What House's staff and displays sections say and call on each kind of scope's pages (an
event's, a series'): the answers' words, and for each form its address, its URL name, its
staff change (one set for both: events/staffing.py). One table, so that the pages differ only
here; each address and name is the one the form had before both pages shared one section, so a
link or a form already open keeps working."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext, gettext_noop

# The sections' forms, each one name on every page. A role changes by appointing the member
# again; a member leaves by being removed by themself; a series' owner may also be chosen in a
# list, its box ticked.
ADD, ROLE, REMOVE, HAND_OVER, HAND_OVER_CHOSEN, LEAVE = (
    "add",
    "role",
    "remove",
    "hand_over",
    "hand_over_chosen",
    "leave",
)
INVITE, ACCEPT, WITHDRAW = "invite", "accept", "withdraw"
DISPLAY_CREATE, DISPLAY_REVOKE = "display_link_create", "display_link_revoke"


# Each form's staff change (events/staffing.py), one for both kinds; its name is also the role
# table's (staff/roles.py).
SERVICES: dict[str, str] = {
    ADD: "house_member_add",
    ROLE: "house_member_add",
    REMOVE: "house_member_remove",
    HAND_OVER: "ownership_transfer",
    HAND_OVER_CHOSEN: "ownership_transfer",
    INVITE: "staff_invite",
    WITHDRAW: "staff_invitation_cancel",
    LEAVE: "house_member_remove",
    ACCEPT: "staff_invitation_accept",
    DISPLAY_CREATE: "display_link_create",
    DISPLAY_REVOKE: "display_link_revoke",
}


@dataclass(frozen=True, slots=True)
class Form:
    """One form on one kind's pages: its address under the scope's ("" for none: accepting is
    the one invitation page's) and its URL name, each the one it had before both pages shared
    one section."""

    route: str
    name: str


FORMS: dict[str, dict[str, Form]] = {
    "event": {
        ADD: Form("house-members", "house_member_add"),
        ROLE: Form("staff/<int:user_id>/role", "staff_role"),
        REMOVE: Form("house-members/<int:user_id>/remove", "house_member_remove"),
        HAND_OVER: Form("staff/<int:user_id>/owner", "ownership_transfer"),
        INVITE: Form("staff/invitations", "staff_invite"),
        WITHDRAW: Form("staff/invitations/<int:invitation_id>/withdraw", "staff_invitation_cancel"),
        LEAVE: Form("staff/leave", "house_leave"),
        ACCEPT: Form("", ""),
        DISPLAY_CREATE: Form("display-links", "display_link_create"),
        DISPLAY_REVOKE: Form("display-links/revoke", "display_link_revoke"),
    },
    "series": {
        ADD: Form("staff", "staff_add"),
        ROLE: Form("staff/<int:user_id>/role", "staff_role"),
        REMOVE: Form("staff/<int:user_id>/remove", "staff_remove"),
        HAND_OVER: Form("staff/<int:user_id>/owner", "staff_owner"),
        HAND_OVER_CHOSEN: Form("owner", "owner"),
        INVITE: Form("invitations", "invite"),
        WITHDRAW: Form("invitations/<int:invitation_id>/withdraw", "invitation_withdraw"),
        LEAVE: Form("leave", "leave"),
        ACCEPT: Form("", ""),
        DISPLAY_CREATE: Form("display-links", "display_link_create"),
        DISPLAY_REVOKE: Form("display-links/revoke", "display_link_revoke"),
    },
    "organization": {
        ADD: Form("staff", "staff_add"),
        ROLE: Form("staff/<int:user_id>/role", "staff_role"),
        REMOVE: Form("staff/<int:user_id>/remove", "staff_remove"),
        HAND_OVER: Form("staff/<int:user_id>/owner", "staff_owner"),
        INVITE: Form("invitations", "invite"),
        WITHDRAW: Form("invitations/<int:invitation_id>/withdraw", "invitation_withdraw"),
        LEAVE: Form("leave", "leave"),
        ACCEPT: Form("", ""),
    },
}


@dataclass(frozen=True, slots=True)
class Place:
    """Where a kind's forms are: their URL namespace and the staff section's id on its page."""

    namespace: str
    anchor: str


PLACES = {
    "event": Place("house", "house"),
    "series": Place("seasons", "staff"),
    "organization": Place("organizations", "staff"),
}


@dataclass(frozen=True, slots=True)
class Words:
    """What the pages say of one kind of scope: the answers' words as they have always been, in
    English (marked for the catalogs); `said` gives one in the reader's language."""

    noun: str
    appointed: str
    role_set: str
    removed: str
    owns: str
    withdrawn: str
    left: str
    not_member: str  # a member chosen who is not on the staff
    owner_not_member: str
    email_missing: str  # the appoint form's email is not one
    who_appoints: str
    # The invite form's email is not one: these words, or the service's when empty.
    invite_email_missing: str = ""
    # What a role in the scope holds (shown above the members), or nothing.
    reach: str = ""
    # The scope's staff change no more (a finalized event).
    final: str = ""


WORDS = {
    "event": Words(
        noun="event",
        appointed=gettext_noop("{name} is House for this event ({role})."),
        role_set=gettext_noop("{name} is now {role} of the event."),
        removed=gettext_noop("{name} is no longer House for this event."),
        owns=gettext_noop("{name} owns this event now; you stay on as director."),
        withdrawn=gettext_noop("Invitation withdrawn: its link no longer works."),
        left=gettext_noop("You left the staff of {scope}."),
        not_member=gettext_noop("That person is not House for this event."),
        owner_not_member=gettext_noop(
            "Ownership goes to a member of the event's staff: appoint them first."
        ),
        email_missing=gettext_noop("Enter the House member's email address."),
        invite_email_missing=gettext_noop("Enter the email address to invite."),
        who_appoints=gettext_noop(
            "The event's owner (and site staff) appoint and invite its staff."
        ),
        final=gettext_noop("The event is final: its staff stay as they were."),
    ),
    "series": Words(
        noun="series",
        appointed=gettext_noop("{name} is on the series' staff ({role})."),
        role_set=gettext_noop("{name} is now {role} of the series."),
        removed=gettext_noop("{name} is no longer on the series' staff."),
        owns=gettext_noop("{name} owns the series now; you stay on as director."),
        withdrawn=gettext_noop("The invitation is withdrawn: its link no longer works."),
        left=gettext_noop("You have left {scope}."),
        not_member=gettext_noop("That person is not on this series' staff."),
        owner_not_member=gettext_noop("That person is not on this series' staff."),
        email_missing=gettext_noop("Enter the staff member's email address."),
        who_appoints=gettext_noop("The series' owner appoints and invites its staff."),
        reach=gettext_noop(
            "A role in the series holds in every event of it: the owner does everything, a "
            "director everything but the staff, a cashier check-in and money, a scorer results."
        ),
    ),
    "organization": Words(
        noun="organization",
        appointed=gettext_noop("{name} is on the organization's staff ({role})."),
        role_set=gettext_noop("{name} is now {role} of the organization."),
        removed=gettext_noop("{name} is no longer on the organization's staff."),
        owns=gettext_noop("{name} owns the organization now; you stay on as director."),
        withdrawn=gettext_noop("The invitation is withdrawn: its link no longer works."),
        left=gettext_noop("You have left {scope}."),
        not_member=gettext_noop("That person is not on this organization's staff."),
        owner_not_member=gettext_noop("That person is not on this organization's staff."),
        email_missing=gettext_noop("Enter the staff member's email address."),
        who_appoints=gettext_noop("The organization's owner appoints and invites its staff."),
        reach=gettext_noop(
            "A role in the organization holds in every series and event of it: the owner does "
            "everything, a director everything but the staff, a cashier check-in and money, a "
            "scorer results."
        ),
    ),
}


def said(words: str) -> str:
    """One of a kind's `Words` in the active language ("" stays "")."""
    return gettext(words) if words else ""
