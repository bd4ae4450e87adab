from django.apps import AppConfig


class LiveConfig(AppConfig):
    name = "live"

    def ready(self) -> None:
        from accounts import revocation
        from events import changes, display
        from live import (
            announcement_frames,
            checks,  # noqa: F401 - registers the system check
            delivery,
            protocol,
        )

        display.send_with(protocol.send_to_group)
        revocation.send_with(protocol.send_to_group)

        changes.subscribe(delivery.on_change)
        changes.subscribe_announcements(announcement_frames.on_announced)
