from django.apps import AppConfig


class PushConfig(AppConfig):
    name = "push"
    verbose_name = "Poker push"

    def ready(self) -> None:
        from push import checks  # noqa: F401 - registers the system check
