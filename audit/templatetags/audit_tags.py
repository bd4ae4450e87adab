"""The audit chain's current head, shown on the board and House's page.

Anyone who saw it can hold a later export to it: the export's entry at that seq must carry that
hash, or the export was rewritten.
"""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from events.models import Event

register = template.Library()

SHORT = 12  # hex digits of the hash shown; the full hash is in the title


@register.simple_tag
def audit_head(event: Any) -> SafeString:
    """`Audit #57 · 3f9a1c2e04b7`, for an Event or what holds its head (no query), or an event
    id."""
    if isinstance(event, Event) or hasattr(event, "audit_seq"):
        seq, digest = event.audit_seq, event.audit_hash
    else:
        head = Event.objects.filter(pk=event).values_list("audit_seq", "audit_hash").first()
        if head is None:
            return format_html("")
        seq, digest = head
    return format_html(
        '<span class="audit-head" title="{}">{} · <code>{}</code></span>',
        _("Audit chain head: entry %(seq)s has hash %(hash)s") % {"seq": seq, "hash": digest},
        _("Audit #%(seq)s") % {"seq": seq},
        digest[:SHORT],
    )
