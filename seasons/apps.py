from django.apps import AppConfig


class SeasonsConfig(AppConfig):
    name = "seasons"
    verbose_name = "Series and seasons"

    def ready(self) -> None:
        from audit.export import use_owner_export
        from events import changes, runner
        from house import staff_pages
        from seasons import audit, standings
        from seasons.scope import SeriesScope
        from seasons.series_staff import SERIES_STAFF

        changes.subscribe(standings.on_change)
        # The series' staff hold their roles in its events (events.runner.roles_of).
        runner.use_scope_above(SeriesScope())
        # A series' staff, served by House's staff pages as an event's.
        staff_pages.declare(SERIES_STAFF)
        # `manage.py export_audit --series ID`: a series' own audit (seasons/audit.py).
        use_owner_export(audit.OWNER, audit.export)
