from django.apps import AppConfig


class SyndicateConfig(AppConfig):
    """The project's own app: connects the refused-authorization log (syndicate/security.py)."""

    name = "syndicate"

    def ready(self) -> None:
        from syndicate import security

        security.connect()
