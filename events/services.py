"""Every state change of an event, one function each; pages, API and commands call these.

Each is decorated with `events.runner.action` and answers a dataclass of `events.answers`.
"""

from events.announcements import announcement_send
from events.check_in import check_in_all, payment_mark, self_check_in, self_check_in_switch
from events.lifecycle import (
    event_create,
    event_finalize,
    event_start,
    event_update,
    pool_confirm,
    registration_close,
    registration_open,
)
from events.play import (
    result_correct,
    result_submit,
    review_open,
    review_resolve,
    starting_selection_confirm,
    wild_reveal,
    win_choice_confirm,
)
from events.registration import (
    access_reset,
    check_in_undo,
    participant_add,
    player_check_in,
    player_register,
    player_withdraw,
    registration_cancel,
)
from events.staffing import (
    display_link_create,
    display_link_revoke,
    house_member_add,
    house_member_remove,
    ownership_transfer,
    staff_invitation_accept,
    staff_invitation_cancel,
    staff_invite,
)
from events.waitlist import place_claim, registration_remove, waitlist_promote

__all__ = [
    "access_reset",
    "announcement_send",
    "check_in_all",
    "check_in_undo",
    "display_link_create",
    "display_link_revoke",
    "event_create",
    "event_finalize",
    "event_start",
    "event_update",
    "house_member_add",
    "house_member_remove",
    "ownership_transfer",
    "participant_add",
    "payment_mark",
    "place_claim",
    "player_check_in",
    "player_register",
    "player_withdraw",
    "pool_confirm",
    "registration_cancel",
    "registration_close",
    "registration_open",
    "registration_remove",
    "result_correct",
    "result_submit",
    "review_open",
    "review_resolve",
    "self_check_in",
    "self_check_in_switch",
    "staff_invitation_accept",
    "staff_invitation_cancel",
    "staff_invite",
    "starting_selection_confirm",
    "waitlist_promote",
    "wild_reveal",
    "win_choice_confirm",
]
