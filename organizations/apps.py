from django.apps import AppConfig


class OrganizationsConfig(AppConfig):
    name = "organizations"
    verbose_name = "Organizations"

    def ready(self) -> None:
        from events import runner
        from organizations.scope import OrganizationScope

        # An organization's staff hold their roles in each of its series and events
        # (events.runner.roles_in): the scope above the series.
        runner.use_scope_above(OrganizationScope())
