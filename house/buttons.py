"""Which of House's buttons a staff member's role uses (staff/roles.py).

House's page is one page for every role: its live parts are rendered once and pushed to every
House socket of the event. So the page does not leave buttons out per role; each page load carries
a short style sheet that hides the forms and the dialog buttons of the actions the member's roles
do not include, found by the address they post to. The service still refuses such a post with the
role's words (a hidden button is a courtesy, never the check).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from django.urls import NoReverseMatch, reverse

from staff import roles as staff

# Each House form, by its URL's name, and the engine action it performs.
HOUSE_FORMS: dict[str, str] = {
    "house:registration_open": "registration_open",
    "house:registration_close": "registration_close",
    "house:event_start": "event_start",
    "house:participant_add": "participant_add",
    "house:self_check_in_switch": "self_check_in_switch",
    "house:check_in_all": "check_in_all",
    "house:announcement_send": "announcement_send",
    "house:pool_confirm": "pool_confirm",
    "house:event_finalize": "event_finalize",
    "house:scoreholio_upload": "result_submit",
    "house:scoreholio_clear": "result_submit",
    "house:review_resolve": "review_resolve",
    "house:display_link_create": "display_link_create",
    "house:display_link_revoke": "display_link_revoke",
    "house:check_in": "player_check_in",
    "house:check_in_undo": "check_in_undo",
    "house:registration_cancel": "registration_cancel",
    "house:payment_mark": "payment_mark",
    "house:result_submit": "result_submit",
    "house:win_choice": "win_choice_confirm",
    "house:starting_selection": "starting_selection_confirm",
    "house:result_correct": "result_correct",
    "house:review_open": "review_open",
    "house:withdraw": "player_withdraw",
    "house:access_reset": "access_reset",
    "house:wild_reveal": "wild_reveal",
    "ledger:entry": "entry_paid",
    "ledger:refund": "entry_refunded",
    "ledger:payout": "payout_made",
    "ledger:sponsor": "sponsor_paid",
}

# The actions behind a player row's "More" menu: with none of them, the menu goes too.
MORE_MENU = ("result_correct", "review_open", "access_reset", "player_withdraw")


def allowed(roles: Iterable[str], action: str) -> bool:
    return staff.acting_role(roles, action) is not None


@cache
def _address_end(name: str) -> str:
    """What every address of the form `name` ends with: its last fixed part ("/correct")."""
    for arguments in _ARGUMENTS:
        try:
            path = reverse(name, kwargs=arguments)
        except NoReverseMatch:
            continue
        return "/" + path.rstrip("/").rsplit("/", 1)[-1]
    raise LookupError(f"No House form is named {name}.")


_ARGUMENTS = (
    {"event_id": 1},
    {"scope_id": 1},  # the forms an event's page shares with a series' (house/staff_pages.py)
    {"event_id": 1, "registration_id": 1},
    {"event_id": 1, "review_id": 1},
)


def style(roles: Iterable[str]) -> str:
    """The CSS that hides the forms and dialog buttons `roles` do not use ("" for none)."""
    held = frozenset(roles)
    ends = sorted(
        {_address_end(name) for name, action in HOUSE_FORMS.items() if not allowed(held, action)}
    )
    selectors = [f'form[action$="{end}"], button[data-url$="{end}"]' for end in ends]
    if not any(allowed(held, action) for action in MORE_MENU):
        selectors.append("details.more")
    if not selectors:
        return ""
    return ",\n".join(selectors) + " { display: none !important; }"
