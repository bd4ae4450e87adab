from django.apps import AppConfig


class SeasonsConfig(AppConfig):
    name = "seasons"
    verbose_name = "Series and seasons"

    def ready(self) -> None:
        from events import changes
        from seasons import standings

        changes.subscribe(standings.on_change)
