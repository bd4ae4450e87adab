from django.apps import AppConfig


class SeasonsConfig(AppConfig):
    name = "seasons"
    verbose_name = "Series and seasons"

    def ready(self) -> None:
        from events import changes, runner
        from seasons import standings
        from seasons.scope import SeriesScope

        changes.subscribe(standings.on_change)
        # The series' staff hold their roles in its events (events.runner.roles_of).
        runner.use_scope_above(SeriesScope())
