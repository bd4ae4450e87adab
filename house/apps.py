from django.apps import AppConfig


class HouseConfig(AppConfig):
    name = "house"

    def ready(self) -> None:
        from django.urls import reverse

        from events.models import Event
        from staff.scopes import ScopeKind, declare

        # An event's staff: invited to "Ann's Friday (Friday 04 December 2026)", accepted on
        # House's invitation page.
        declare(
            ScopeKind(
                model=Event,
                invitation_words=lambda event: f"{event} ({event.date:%A %d %B %Y})",
                invitation_path=lambda token: reverse("house:invitation", kwargs={"token": token}),
            )
        )
