"""One Poker push message to one device, through its browser's push service.

Reminders and announcements both send this way: signed with our VAPID keys, with short timeouts,
and never following a redirect.
"""

from __future__ import annotations

import json
from typing import Any

import requests
from django.conf import settings

from push.keys import VapidKeys
from push.models import PushSubscription


class Refused(Exception):
    """The push service refused the message; `status` is its answer's, None if none came."""

    def __init__(self, error: Exception, status: int | None) -> None:
        super().__init__(str(error))
        self.status = status


def send(subscription: PushSubscription, message: dict[str, Any], *, keys: VapidKeys) -> None:
    """Send one message (as JSON) to one device: raises `Refused`, or the network's error."""
    from pywebpush import WebPushException, webpush

    session = requests.Session()
    session.max_redirects = 0  # a push service answers; it never sends us elsewhere
    try:
        webpush(
            subscription_info=subscription.info(),
            data=json.dumps(message),
            vapid_private_key=keys.private_key,
            vapid_claims={"sub": settings.VAPID_SUBJECT},
            ttl=600,
            # Short: one slow push service holds one worker thread for seconds, not minutes.
            timeout=(settings.PUSH_CONNECT_TIMEOUT, settings.PUSH_READ_TIMEOUT),
            requests_session=session,
        )
    except WebPushException as error:
        status = error.response.status_code if error.response is not None else None
        raise Refused(error, status) from error
    finally:
        session.close()
