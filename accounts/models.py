"""Syndicate Accounts: players and staff sign in with an email and a password."""

from __future__ import annotations

from typing import Any, ClassVar

from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models


class AccountManager(UserManager["User"]):
    """Users are identified by email; there is no username."""

    def _create_user_by_email(self, email: str, password: str | None, **extra_fields: Any) -> User:
        if not email:
            raise ValueError("An account needs an email address.")
        from allauth.account.models import EmailAddress

        user = self.model(email=self.normalize_email(email), **extra_fields)
        user.set_password(password)
        user.save(using=self._db)
        # Made by staff or a command, not by sign-up: the address counts as verified, so the
        # account signs in without a code (sign-up verifies its address by an emailed code).
        EmailAddress.objects.using(self._db).create(
            user=user, email=user.email, primary=True, verified=True
        )
        return user

    def create_user(  # type: ignore[override]
        self, email: str, password: str | None = None, **extra_fields: Any
    ) -> User:
        extra_fields.setdefault("is_staff", False)
        extra_fields.setdefault("is_superuser", False)
        return self._create_user_by_email(email, password, **extra_fields)

    def create_superuser(  # type: ignore[override]
        self, email: str, password: str | None = None, **extra_fields: Any
    ) -> User:
        extra_fields.setdefault("is_staff", True)
        extra_fields.setdefault("is_superuser", True)
        return self._create_user_by_email(email, password, **extra_fields)


class User(AbstractUser):
    """An account. `display_name` is public; the email never is."""

    username = None  # type: ignore[assignment]
    first_name = None  # type: ignore[assignment]
    last_name = None  # type: ignore[assignment]
    email = models.EmailField("email address", unique=True)
    display_name = models.CharField(max_length=40)
    four_colour_deck = models.BooleanField(default=False)
    # One of settings.LANGUAGES, chosen on the settings page; blank until then, when the
    # browser's Accept-Language decides (accounts/language.py).
    language = models.CharField(max_length=8, blank=True, default="")
    # The language the account's browser last asked for (its Accept-Language, at sign-up and
    # sign-in): what an email or a push is written in while `language` is blank.
    browser_language = models.CharField(max_length=8, blank=True, default="")

    USERNAME_FIELD = "email"
    REQUIRED_FIELDS: ClassVar[list[str]] = ["display_name"]

    objects = AccountManager()  # type: ignore[misc]

    class Meta(AbstractUser.Meta):
        constraints: ClassVar[list[models.BaseConstraint]] = [
            # The shipped languages (settings.LANGUAGES); a new one comes with a migration.
            models.CheckConstraint(
                condition=models.Q(language__in=["", "en", "es", "fr"]),
                name="user_language_shipped",
            ),
            models.CheckConstraint(
                condition=models.Q(browser_language__in=["", "en", "es", "fr"]),
                name="user_browser_language_shipped",
            ),
        ]

    def __str__(self) -> str:
        return self.display_name or self.email
