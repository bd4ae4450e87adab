"""Stripe's webhook endpoint: a plain Django view (Stripe signs the body; no session, no CSRF)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from payments import webhooks
from payments.checkout import configured


@csrf_exempt
@require_POST
def stripe_webhook(request: HttpRequest) -> HttpResponse:
    """`POST /payments/stripe/webhook`: 400 and nothing changed unless Stripe signed it."""
    if not configured():
        return JsonResponse(
            {"error": {"code": "online_payment_unavailable", "message": "Stripe is not set up."}},
            status=400,
        )
    try:
        webhooks.receive(request.body, request.headers.get("Stripe-Signature", ""))
    except webhooks.BadSignature:
        return JsonResponse(
            {"error": {"code": "invalid", "message": "The Stripe signature does not verify."}},
            status=400,
        )
    return JsonResponse({"received": True})
