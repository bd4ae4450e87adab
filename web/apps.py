from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "web"

    def ready(self) -> None:
        from django.urls import reverse

        from events.addresses import Addresses, use_addresses

        # The pages the engine's answers point at (a display link, self check-in, the venue's
        # board): the engine names none of these URLs.
        use_addresses(
            Addresses(
                display=lambda token: reverse("web:display", kwargs={"token": token}),
                self_check_in=lambda event_id: reverse(
                    "web:self_check_in", kwargs={"event_id": event_id}
                ),
                board_venue=lambda event_id, token: reverse(
                    "web:board_venue", kwargs={"event_id": event_id, "token": token}
                ),
            )
        )
