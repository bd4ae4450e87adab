"""Production refuses to start without the audit signing key."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, register
from django.core.exceptions import ImproperlyConfigured

from audit.signing import read_private_key


@register()
def audit_signing_key_in_production(app_configs: Any, **kwargs: Any) -> list[Error]:
    configured = settings.AUDIT_SIGNING_KEY
    if not configured:
        if not settings.PRODUCTION:
            return []
        return [
            Error(
                "Signing the audit needs AUDIT_SIGNING_KEY in production.",
                hint="Generate one with `manage.py audit_keys` and put it in the environment.",
                id="audit.E001",
            )
        ]
    try:
        read_private_key(configured)
    except ImproperlyConfigured as problem:
        return [Error(str(problem), id="audit.E002")]
    return []
