from django.apps import AppConfig


class SyndicateConfig(AppConfig):
    """The project's own app: connects the refused-authorization log (syndicate/security.py) and
    keeps secrets out of every log line (helpers/redaction.py)."""

    name = "syndicate"

    def ready(self) -> None:
        from helpers import redaction
        from syndicate import security

        security.connect()
        redaction.install()
