from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "audit"

    def ready(self) -> None:
        from audit import checks  # noqa: F401 - registers the system check
