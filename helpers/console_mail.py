"""The mailer of a laptop with no mail server (`make run` without `EMAIL_HOST`): each email is
printed to the process's output instead of sent, as plain headers and its body as written (no
quoted-printable line breaks), with every secret in a link replaced (helpers/redaction.py): a
password reset's key printed there would sit in `make run`'s output and the worker's log."""

from __future__ import annotations

from django.core.mail import EmailMessage
from django.core.mail.backends.console import EmailBackend

from helpers.redaction import redact

BACKEND = "helpers.console_mail.ConsoleBackend"


class ConsoleBackend(EmailBackend):
    """Django's console mailer, readable and redacted."""

    def write_message(self, message: EmailMessage) -> None:
        text = "\n".join(
            [
                f"Subject: {message.subject}",
                f"From: {message.from_email}",
                f"To: {', '.join(message.to)}",
                "",
                str(message.body),
            ]
        )
        self.stream.write(f"{redact(text)}\n{'-' * 79}\n")
