"""Staff, their invitations and the venue's display links, each kept once for every scope that has
staff: an event, or a series whose staff hold their roles in each of its events. A scope is named
by its model and its id (Django's content types), so this layer, below events and seasons, names
neither: the model that owns a scope declares the relations (`scope_relation`) and deletes its rows
with it. What each role may do and see is `staff/roles.py`."""

from __future__ import annotations

from typing import Any, Self

from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey, GenericRelation
from django.contrib.contenttypes.models import ContentType
from django.db import models

from staff.roles import MEMBER_ROLES, Role


class ScopedQuerySet(models.QuerySet[Any]):
    def of(self, scope: models.Model) -> Self:
        """The rows of one scope (an event, a series)."""
        return self.filter(scope_type=scope_type(scope), scope_id=scope.pk)

    def of_kind(self, model: type[models.Model]) -> Self:
        return self.filter(scope_type=ContentType.objects.get_for_model(model))


def scope_type(scope: models.Model | type[models.Model]) -> ContentType:
    """The content type that names a scope's model (cached by Django after its first read)."""
    return ContentType.objects.get_for_model(scope)


class Scoped(models.Model):
    """A row that belongs to one scope with staff: an event or a series."""

    scope_type = models.ForeignKey(ContentType, on_delete=models.PROTECT, related_name="+")
    scope_id = models.PositiveBigIntegerField()
    scope = GenericForeignKey("scope_type", "scope_id")

    objects = ScopedQuerySet.as_manager()

    class Meta:
        abstract = True


def scope_relation(model: str, related_query_name: str) -> GenericRelation:
    """The relation a scope's model declares to its staff rows: they are deleted with it, and
    `related_query_name` reaches it from them."""
    return GenericRelation(
        model,
        content_type_field="scope_type",
        object_id_field="scope_id",
        related_query_name=related_query_name,
    )


class Membership(Scoped):
    """One member of a scope's staff and their role (staff/roles.py): an event's House, or a
    series' House, who hold their role in every event of the series."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="staff_roles"
    )
    role = models.CharField(
        max_length=8,
        choices=[(role.value, role.label) for role in MEMBER_ROLES],
        default=Role.DIRECTOR,
    )

    class Meta:
        ordering = ["scope_type_id", "scope_id", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["scope_type", "scope_id", "user"], name="one_membership_per_scope"
            ),
            models.CheckConstraint(
                condition=models.Q(role__in=[role.value for role in MEMBER_ROLES]),
                name="membership_role_known",
            ),
        ]
        indexes = [models.Index(fields=["user", "scope_type", "scope_id"], name="roles_by_user")]

    def __str__(self) -> str:
        return f"{self.role} of {self.scope_type_id}:{self.scope_id}"


class Invitation(Scoped):
    """An invitation to a scope's staff, by email, with a role: a signed-in user with that email
    accepts it through its link, once. The email stays here, never in an audit."""

    email = models.EmailField()
    role = models.CharField(max_length=8, choices=[(r.value, r.label) for r in MEMBER_ROLES])
    token = models.CharField(max_length=64, unique=True)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    accepted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["scope_type_id", "scope_id", "id"]
        indexes = [models.Index(fields=["scope_type", "scope_id"], name="invitations_by_scope")]

    def __str__(self) -> str:
        return f"{self.role} invitation to {self.scope_type_id}:{self.scope_id}"


class DisplayLink(Scoped):
    """A display link House hands to a projector's laptop that is not signed in (events/display.py):
    it shows an event's board in kiosk mode, or the board of a series' current event. It writes
    nothing and ends when House revokes it. Only the sha256 of its token is kept: the link itself
    is shown once, when it is made."""

    label = models.CharField(max_length=80)
    token_hash = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    last_seen_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["scope_type", "scope_id"], name="display_links_by_scope")]

    def __str__(self) -> str:
        return f"display link {self.label!r}"
