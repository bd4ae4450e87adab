"""The deployment's audit public key, at a stable address anyone may fetch."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

from audit.anchor import public_key_document, public_key_pem
from audit.signing import signing_key


@require_safe
@cache_control(public=True, max_age=300)
def public_key(request: HttpRequest) -> HttpResponse:
    """`/audit/public-key`: JSON (`algorithm`, `key_id`, `public_key` base64, `pem`)."""
    return JsonResponse(public_key_document(signing_key().public_key()))


@require_safe
@cache_control(public=True, max_age=300)
def public_key_pem_file(request: HttpRequest) -> HttpResponse:
    """`/audit/public-key.pem`: the same key as PEM."""
    pem = public_key_pem(signing_key().public_key())
    return HttpResponse(pem, content_type="application/x-pem-file")
