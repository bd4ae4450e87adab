"""Invitations to a staff (an event's, a series'): the link an invitation is accepted at, and
its email.

The invitation keeps the email and a random token (staff.models.Invitation); the email carries
the link, and the staff section of House's pages shows the same link to hand over where no mail goes
(a venue laptop sends none: docs/decisions.md, "Roles" and "Where an invitation's link is").
With no mail server nothing is sent, not even to the worker's log: the token is a secret."""

from __future__ import annotations

import datetime
import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.core.validators import validate_email
from django.db import models
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy

from accounts.language import language_of
from accounts.models import User
from helpers import console_mail
from helpers.errors import Invalid, NotAllowed, WrongState
from staff.models import Invitation
from staff.roles import Role, word
from staff.scopes import kind_of


def invited_address(email: object) -> str:
    """The address an invitation names, checked."""
    address = email.strip() if isinstance(email, str) else ""
    try:
        validate_email(address)
    except ValidationError:
        raise Invalid(_("That is not an email address.")) from None
    return address


def new_token() -> str:
    return secrets.token_urlsafe(24)


# How long an invitation can be accepted after it is made (docs/decisions.md, "Staff
# invitations end"): a link found in an old mailbox appoints nobody.
LIFETIME = datetime.timedelta(days=14)


def expires_at(created_at: datetime.datetime) -> datetime.datetime:
    return created_at + LIFETIME


def check_acceptance(
    accepted_at: datetime.datetime | None,
    email: str,
    by: User,
    *,
    created_at: datetime.datetime,
    now: datetime.datetime,
) -> None:
    """An invitation is accepted once, before it expires, by an account with its email
    (compared without case)."""
    if accepted_at is not None:
        raise WrongState(_("This invitation has already been accepted."))
    if email.casefold() != by.email.casefold():
        raise NotAllowed(_("This invitation is for another email address: sign in with that one."))
    if now >= expires_at(created_at):
        raise WrongState(_("This invitation has expired: ask for a new one."))


def void_pending[M: models.Model](invitations: models.QuerySet[M], member: User) -> int:
    """Delete the pending invitations (of one scope's staff) that name a member
    who was just removed: a link sent before the removal must not appoint them again. Returns
    how many went."""
    deleted, _ = invitations.filter(accepted_at__isnull=True, email__iexact=member.email).delete()
    return deleted


def is_expired(created_at: datetime.datetime, now: datetime.datetime | None = None) -> bool:
    return (now or timezone.now()) >= expires_at(created_at)


def invitation_link(invitation: Invitation) -> str:
    """The invitation's address: the site's address (`SITE_URL`, the venue's LAN address under
    `make run`), whichever address House's page was opened at, and the one invitation page every
    kind of scope's invitations are accepted at (named in the project's root URLs)."""
    path = reverse("staff_invitation", kwargs={"token": invitation.token})
    return str(settings.SITE_URL).rstrip("/") + path


def mail_goes_out() -> bool:
    """Whether an email leaves: False when no mail server is set (a console backend)."""
    backend = str(settings.MAILERS["default"]["BACKEND"])
    return backend not in {console_mail.BACKEND, "django.core.mail.backends.console.EmailBackend"}


def invitation_notice(email: str, role: str) -> str:
    """What House is told once an invitation is made, in the reader's language: emailed, or
    that its link, listed below on the page, is to hand over."""
    words = {"email": email, "role": word(role)}
    if mail_goes_out():
        return (
            _("Invitation emailed to %(email)s (%(role)s); its link is listed below to hand over.")
            % words
        )
    return (
        _(
            "Invitation for %(email)s (%(role)s) made. No mail server is set, so nothing was "
            "emailed: hand them its link, listed below."
        )
        % words
    )


def send_invitation(invitation_id: int) -> bool:
    """Email a pending invitation to its address; False when it is gone or already accepted."""
    invitation = (
        Invitation.objects.select_related("invited_by")
        .filter(pk=invitation_id, accepted_at__isnull=True)
        .first()
    )
    if invitation is None or is_expired(invitation.created_at) or invitation.scope is None:
        return False
    scope = invitation.scope
    # The invitee's language when their account is known, else the inviter's, else the scope's
    # (an event's language; a series has none).
    reader = User.objects.filter(email__iexact=invitation.email).first() or invitation.invited_by
    with translation.override(language_of(reader, scope)):
        email_invitation(
            to=invitation.email,
            inviter=invitation.invited_by,
            what=kind_of(scope).invitation_words(scope),
            name=str(scope),
            role=invitation.role,
            link=invitation_link(invitation),
        )
    return True


# A role as the invitation's sentences name it ("as cashier"), in the reader's language.
_ROLE_WORDS = {
    Role.OWNER: pgettext_lazy("invited as", "owner"),
    Role.DIRECTOR: pgettext_lazy("invited as", "director"),
    Role.CASHIER: pgettext_lazy("invited as", "cashier"),
    Role.SCORER: pgettext_lazy("invited as", "scorer"),
}


def email_invitation(
    *, to: str, inviter: User | None, what: str, name: str, role: str, link: str
) -> None:
    """The invitation's email, in the active language: who invites, to run what, in which role,
    and the link. Not sent when no mail server is set: the console backend would write the link
    to the worker's log."""
    if not mail_goes_out():
        return
    by = inviter.display_name if inviter is not None else _("House")
    role = str(_ROLE_WORDS.get(Role(role), Role(role).label.lower()))
    send_mail(
        subject=_("Join the staff of %(name)s as %(role)s") % {"name": name, "role": role},
        message=_(
            "%(by)s invites you to run %(what)s as %(role)s.\n\n"
            "Sign in with this email address and accept the invitation here:\n"
            "%(link)s\n\n"
            "If you did not expect this, ignore this email: nothing happens until you accept.\n"
        )
        % {"by": by, "what": what, "role": role, "link": link},
        from_email=None,
        recipient_list=[to],
    )
