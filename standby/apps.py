from django.apps import AppConfig


class StandbyConfig(AppConfig):
    name = "standby"
    verbose_name = "Standby copy"

    def ready(self) -> None:
        from events import changes
        from standby import tasks

        changes.subscribe(tasks.on_change)
