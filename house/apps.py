from django.apps import AppConfig


class HouseConfig(AppConfig):
    name = "house"

    def ready(self) -> None:
        from house import staff_pages
        from house.event_staff import EVENT_STAFF

        # An event's staff, served by House's staff pages.
        staff_pages.declare(EVENT_STAFF)
        from house.organization_staff import ORGANIZATION_STAFF

        # An organization's staff, served by the same pages as a series'.
        staff_pages.declare(ORGANIZATION_STAFF)
