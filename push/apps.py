from django.apps import AppConfig


class PushConfig(AppConfig):
    name = "push"
    verbose_name = "Poker push"

    def ready(self) -> None:
        from events import changes, waitlist
        from push import (
            checks,  # noqa: F401 - registers the system check
            tasks,
        )

        changes.subscribe(tasks.on_change)
        changes.subscribe_announcements(tasks.on_announced)
        waitlist.place_offered.connect(tasks.on_place_offered, dispatch_uid="push.place_offers")
