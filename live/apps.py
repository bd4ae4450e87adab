from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "live"

    def ready(self) -> None:
        from events import changes
        from live import (
            announcement_frames,
            checks,  # noqa: F401 - registers the system check
            delivery,
        )

        changes.subscribe(delivery.on_change)
        changes.subscribe_announcements(announcement_frames.on_announced)
