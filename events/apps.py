from django.apps import AppConfig


class EventsConfig(AppConfig):
    name = "events"
    verbose_name = "Events"

    def ready(self) -> None:
        # The engine asks for its tasks by name (events/waitlist.py, a hold's end): they are
        # registered in every process, so a call runs inline where Celery runs tasks eagerly.
        from events import tasks  # noqa: F401
