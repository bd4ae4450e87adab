from django.apps import AppConfig


class HouseConfig(AppConfig):
    name = "house"

    def ready(self) -> None:
        from house import staff_pages
        from house.event_staff import EVENT_STAFF

        # An event's staff, served by House's staff pages.
        staff_pages.declare(EVENT_STAFF)
