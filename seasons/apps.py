from django.apps import AppConfig


class SeasonsConfig(AppConfig):
    name = "seasons"
    verbose_name = "Series and seasons"

    def ready(self) -> None:
        from django.urls import reverse

        from audit.export import use_owner_export
        from events import changes, runner
        from seasons import audit, standings
        from seasons.models import Series
        from seasons.scope import SeriesScope
        from staff.scopes import ScopeKind, declare

        changes.subscribe(standings.on_change)
        # The series' staff hold their roles in its events (events.runner.roles_of).
        runner.use_scope_above(SeriesScope())
        # A series' staff: invited to "the events of Thursday League at The Dock".
        declare(
            ScopeKind(
                model=Series,
                invitation_words=lambda series: (
                    f"the events of {series}" + (f" at {series.venue}" if series.venue else "")
                ),
                invitation_path=lambda token: reverse(
                    "seasons:series_invitation", kwargs={"token": token}
                ),
            )
        )
        # `manage.py export_audit --series ID`: a series' own audit (seasons/audit.py).
        use_owner_export(audit.OWNER, audit.export)
