"""The remainder policy: House announces it before accepting any paid entry, however the
contribution came to be above $0 (docs/decisions.md, Events and House).

`lacks_remainder_policy` is the rule's one predicate. The guards that use it: opening
registration (`events.registration_switch`), editing the settings once registration has opened
(`events.lifecycle.event_update`), starting the event (`event_start`) and marking a payment
(`events.check_in.payment_mark`). Each refuses with `remainder_policy_required`.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from events.errors import RemainderPolicyRequired
from events.models import Event


def lacks_remainder_policy(contribution: int, remainder_policy: str) -> bool:
    """Whether a contribution above $0 comes without an announced remainder policy."""
    return contribution > 0 and not remainder_policy.strip()


def require_remainder_policy(event: Event, *, before: str) -> None:
    """Refuse `before` (what House is about to do, in words) while the policy is missing."""
    if lacks_remainder_policy(event.contribution, event.remainder_policy):
        raise RemainderPolicyRequired(
            _(
                "Set the remainder policy (how an indivisible High remainder will be handled) in "
                "the event's settings before %(before)s: the contribution is $%(contribution)s "
                "per participant."
            )
            % {"before": before, "contribution": event.contribution}
        )
