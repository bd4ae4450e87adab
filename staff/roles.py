"""Staff and their jobs: who may perform which House action (docs/decisions.md, "Roles").

An event's staff are its House members, each with one role; a series' staff hold their role in
every event of the series. This table is the one place that says which role may do what: the
runner's guard (`events.runner.Change.house`) asks it with the action's name, and the pages' flags
ask it through the same guard, so no view checks a role by hand.

- owner: everything, staff and ownership included;
- director: everything but staff and ownership;
- cashier: check-in, payments, refunds and payouts;
- scorer: results and choices assisted with a reason, opening a review; no correction, no review
  resolved, no pool, no finalization;
- display: a display link (events/display.py): shows the board and the kiosk, writes nothing,
  needs no account; it is never a membership. Making and revoking one is the owner's and a
  director's (`DISPLAY_LINK_ACTIONS`): a link is not a membership and writes nothing, so it is
  not a staff change.

What each role may see is the second table here (`SIGHTS`, asked through `may_see`): the
night's money (the cash box, the night report and its print, the ledger's CSV, the API's cash
box) is the owner's, a director's and a cashier's; a scorer sees House's pages without it; the
display sees the board alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from itertools import combinations

from django.db import models
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from helpers.errors import Invalid, NotAllowed


class Role(models.TextChoices):
    # The labels are what a page shows, in the reader's language; the stored values stay.
    OWNER = "owner", gettext_lazy("Owner")
    DIRECTOR = "director", gettext_lazy("Director")
    CASHIER = "cashier", gettext_lazy("Cashier")
    SCORER = "scorer", gettext_lazy("Scorer")
    DISPLAY = "display", gettext_lazy("Display")


# The roles a membership can hold (display is a link, not a membership).
MEMBER_ROLES = (Role.OWNER, Role.DIRECTOR, Role.CASHIER, Role.SCORER)

# The role a House entry names when site staff who hold no role in the event change its staff
# (they appoint and remove an event's staff, and hand its ownership over): not a membership.
SITE_STAFF = "site"

# Changing who is staff, and ownership: the owner's alone.
STAFF_ACTIONS = frozenset(
    {
        "house_member_add",
        "house_member_remove",
        "staff_role_set",
        "ownership_transfer",
        "staff_invite",
        "staff_invitation_cancel",
    }
)

# Display links (events/staffing.py, for an event and a series alike): the owner's and a
# director's, neither a cashier's nor a scorer's.
DISPLAY_LINK_ACTIONS = frozenset({"display_link_create", "display_link_revoke"})

CASHIER_ACTIONS = frozenset(
    {
        "player_check_in",
        # Who checks players in gives a player in line a place (events/waitlist.py), with a
        # reason; removing a registration is the owner's and a director's, as cancelling one is.
        "waitlist_promote",
        "check_in_undo",
        "check_in_all",
        "participant_add",
        "payment_mark",
        "entry_paid",
        "entry_refunded",
        "payout_made",
        "sponsor_paid",
    }
)

SCORER_ACTIONS = frozenset(
    {
        "starting_selection_confirm",
        "result_submit",
        "win_choice_confirm",
        "wild_reveal",
        "review_open",
    }
)

# What each role may see (docs/decisions.md, "What a role may see"). "money": the cash box, the
# night report page and its print, the ledger's CSV, the API's cash box; "house": House's pages;
# "board": the board and the kiosk.
SIGHTS: dict[str, frozenset[str]] = {
    Role.OWNER.value: frozenset({"house", "money", "board"}),
    Role.DIRECTOR.value: frozenset({"house", "money", "board"}),
    Role.CASHIER.value: frozenset({"house", "money", "board"}),
    Role.SCORER.value: frozenset({"house", "board"}),
    Role.DISPLAY.value: frozenset({"board"}),
}

# How a refusal names what was not shown.
_SIGHT_WORDS = {"money": "the night's money", "house": "House's pages", "board": "the board"}

# Strongest first: the role an audit entry names when a member holds several.
_ORDER: dict[str, int] = {role.value: place for place, role in enumerate(MEMBER_ROLES)}


def may(role: str, action: str) -> bool:
    """Whether `role` may perform the House action `action` (an `events.runner.action` name)."""
    if role == Role.OWNER:
        return True
    if role == Role.DIRECTOR:
        return action not in STAFF_ACTIONS
    if role == Role.CASHIER:
        return action in CASHIER_ACTIONS
    if role == Role.SCORER:
        return action in SCORER_ACTIONS
    return False  # display, and anything else, writes nothing


def may_see(roles: Iterable[str], sight: str) -> bool:
    """Whether any of `roles` may see `sight` (a key of a role's `SIGHTS`): the one question the
    pages, the API and the read models ask before serving it."""
    return any(sight in SIGHTS.get(str(role), frozenset()) for role in roles)


def unseen(roles: Iterable[str], sight: str) -> NotAllowed:
    """The refusal for `roles` that may not see `sight`: a refused House action's words, the
    role named."""
    held = strongest(roles)
    if held is None:
        return NotAllowed(_("Only House can see this for this event."))
    return role_refusal("event", held, _SIGHT_WORDS.get(sight, sight))


def role_refusal(noun: str, held: str, action: str) -> NotAllowed:
    """A held role without this power, said in the reader's language; the role and the action
    stay the rule table's own words (docs/decisions.md, "Roles")."""
    words = {"role": held, "action": action.replace("_", " ")}
    if noun == "series":
        return NotAllowed(
            _("Your role in this series (%(role)s) does not include that (%(action)s).") % words
        )
    if noun == "organization":
        return NotAllowed(
            _("Your role in this organization (%(role)s) does not include that (%(action)s).")
            % words
        )
    return NotAllowed(
        _("Your role in this event (%(role)s) does not include that (%(action)s).") % words
    )


def acting_role(roles: Iterable[str], action: str) -> str | None:
    """The strongest of `roles` that may perform `action`, or None."""
    allowed = [role for role in roles if may(role, action)]
    return min(allowed, key=lambda role: _ORDER.get(role, 99)) if allowed else None


def appointed_role(role: object) -> str:
    """A role a member is appointed or invited to: any but the owner's, which is handed over."""
    if role == Role.OWNER:
        raise Invalid(
            _(
                "The owner's role is not given but handed over: appoint them first, then hand "
                "ownership over."
            )
        )
    if role not in {r.value for r in MEMBER_ROLES}:
        raise Invalid(_("A staff member is a director, a cashier or a scorer."))
    return str(role)


def role_on_acceptance(held: str, invited: str) -> str:
    """The role a member holding `held` has after accepting an invitation to `invited`: the
    invitation's, but the owner stays owner."""
    return held if held == Role.OWNER else invited


def order(role: str) -> int:
    """A role's place, strongest first (for listing a member's roles)."""
    return _ORDER.get(role, 99)


def word(role: str) -> str:
    """A role's name as a sentence or a member's chip says it ('cashier'), in the active
    language; a value that is no role stays as it is."""
    return str(Role(role).label).lower() if role in Role.values else role


def labels(roles: Iterable[str]) -> list[str]:
    """A member's roles as a page names them, strongest first."""
    return [str(Role(role).label) for role in sorted(roles, key=order) if role in Role.values]


def strongest(roles: Iterable[str]) -> str | None:
    ordered = sorted(roles, key=lambda role: _ORDER.get(role, 99))
    return ordered[0] if ordered else None


# --- what one viewer is shown -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Sight:
    """What the holder of some roles may see (`SIGHTS`) and do among the actions a page offers:
    a page is rendered once per sight, for every viewer whose roles give the same table rows.

    `name` names the class in a live group's name ("owner-director", "cashier", "scorer",
    "cashier-scorer"); `roles` are the fewest roles that give it, for the refusal's words.
    """

    name: str
    roles: tuple[str, ...]
    sees: tuple[str, ...]
    does: tuple[str, ...]

    def may_see(self, sight: str) -> bool:
        return sight in self.sees

    def may(self, action: str) -> bool:
        return action in self.does

    def unseen(self, sight: str) -> NotAllowed:
        return unseen(self.roles, sight)


# A viewer who holds no role: nothing to see or do.
NO_SIGHT = Sight("none", (), (), ())


def _rows(roles: frozenset[str], offered: frozenset[str]) -> tuple[tuple[str, ...], ...]:
    sees = sorted({seen for role in roles for seen in SIGHTS.get(role, frozenset())})
    does = sorted(action for action in offered if acting_role(roles, action) is not None)
    return tuple(sees), tuple(does)


@cache
def sights(offered: frozenset[str]) -> tuple[Sight, ...]:
    """Every sight a member's roles can give among the `offered` actions, one per class of
    roles with the same table rows (owner and director share one while no staff change is
    offered)."""
    held = [
        frozenset(combo)
        for size in range(1, len(MEMBER_ROLES) + 1)
        for combo in combinations([role.value for role in MEMBER_ROLES], size)
    ]
    classes: dict[tuple[tuple[str, ...], ...], list[frozenset[str]]] = {}
    for roles in held:
        classes.setdefault(_rows(roles, offered), []).append(roles)
    found = []
    for (sees, does), members in classes.items():
        alone = [next(iter(roles)) for roles in members if len(roles) == 1]
        fewest = sorted(sorted(members, key=len)[0], key=order)
        name = "-".join(sorted(alone, key=order) or fewest)
        found.append(Sight(name, tuple(fewest), sees, does))
    return tuple(found)


def sight_of(roles: Iterable[str], offered: Iterable[str]) -> Sight:
    """The sight of a viewer holding `roles` (`roles_of`), among the `offered` actions."""
    offered = frozenset(offered)
    rows = _rows(frozenset(roles), offered)
    for sight in sights(offered):
        if (sight.sees, sight.does) == rows:
            return sight
    return NO_SIGHT
