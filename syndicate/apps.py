from django.apps import AppConfig


class SyndicateConfig(AppConfig):
    """The project's own app: connects the refused-authorization log (syndicate/security.py) and
    keeps secrets out of every log line (syndicate/redaction.py)."""

    name = "syndicate"

    def ready(self) -> None:
        from syndicate import redaction, security

        security.connect()
        redaction.install()
