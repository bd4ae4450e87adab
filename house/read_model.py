"""House's read model: what House's table (the API, the House socket's data) and House's page show.

`house_table(event)` is the table the API answers and the House socket carries. `house_page(event)`
is everything the dashboard's live part is rendered from, for the page's first render, an htmx
answer and every pushed House fragment (`live.fragments`): frozen dataclasses, one per part of the
page. Each section of the page has its own part (`HouseSections`), and its template is rendered
from that part alone, so what a section shows is exactly what its part holds.

A pushed update may read only some players: `house_page(event, rows=...)` builds the rows of those
registrations, and everything event-wide (counts, the pool, the checklist, the sections) from
set-wide queries, never from every row.

A page is read once, then seen by one viewer's sight (`HousePage.seen_by`, staff/roles.py): each
section holds the House actions that viewer may do (`does`, which its template asks before
rendering a form or a dialog's button) and none of the night's money a role may not see, so a
page, first rendered or pushed, holds only what its viewer may see and do.

No face-down card identity is read here. Win choices are dealt face up; reviews show the face-up
cards the reviewed game dealt; starting selections are slots only.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from django.db.models import Count, F
from django.utils import timezone
from django.utils.translation import gettext, npgettext

from cards.models import Offer, OfferKind, Shoe, ShoeKind
from cards.names import card_face
from cards.stock import stock_size
from events import store, waitlist
from events.announcements import recent
from events.answers import Described
from events.check_in import board_check_in
from events.errors import RemainderPolicyRequired
from events.formats import Format
from events.models import Event, GameResult, Phase, Registration, RegistrationStatus, Review
from events.play_rules import (
    HouseActions,
    PlayerFacts,
    hand_complete,
    house_actions,
    starting_confirmed,
)
from events.progress import Blocker, Progress, finalization_checklist, kept_cards
from events.reads.common import (
    Adjustment,
    EventSummary,
    PoolSummary,
    event_summary,
    pool_summary,
    to_json,
)
from events.registration_switch import why_registration_cannot_open
from house import selectors
from ledger.cash_box import CashBox, cash_box
from ledger.forms import LEDGER_FORMS
from staff import roles as staff

OVERDUE_SECONDS = 180  # a pending selection is highlighted past three minutes
RESOLVED_SHOWN = 10
STATUS_ORDER: dict[str, int] = {  # RegistrationStatus values, in the page's order
    RegistrationStatus.CHECKED_IN: 0,
    RegistrationStatus.REGISTERED: 1,
    RegistrationStatus.OFFERED: 2,
    RegistrationStatus.WAITLISTED: 3,
    RegistrationStatus.WITHDRAWN: 4,
    RegistrationStatus.NO_SHOW: 5,
    RegistrationStatus.CANCELLED: 6,
}
STATUS_LABELS = dict(RegistrationStatus.choices)
# A status after its count ("4 Checked in"), agreeing with the count where a language's words do.
COUNTED_STATUS = {
    RegistrationStatus.REGISTERED: lambda n: npgettext("counted", "Registered", "Registered", n),
    RegistrationStatus.CHECKED_IN: lambda n: npgettext("counted", "Checked in", "Checked in", n),
    RegistrationStatus.WITHDRAWN: lambda n: npgettext("counted", "Withdrawn", "Withdrawn", n),
    RegistrationStatus.CANCELLED: lambda n: npgettext("counted", "Cancelled", "Cancelled", n),
    RegistrationStatus.NO_SHOW: lambda n: npgettext("counted", "No-show", "No-shows", n),
    RegistrationStatus.WAITLISTED: lambda n: npgettext("counted", "Waitlisted", "Waitlisted", n),
    RegistrationStatus.OFFERED: lambda n: npgettext(
        "counted", "Offered a place", "Offered a place", n
    ),
}
# Who shows in the check-in list.
CHECK_IN_STATUSES = (
    RegistrationStatus.REGISTERED,
    RegistrationStatus.CHECKED_IN,
    RegistrationStatus.NO_SHOW,
)


# --- who sees what: House's forms and the viewer's sight -------------------------------------

# Each form House's pages offer, by its URL's name, and the House action it performs: a page
# renders a form only for a viewer whose roles may do its action (staff/roles.py).
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
    "house:waitlist_promote": "waitlist_promote",
    "house:registration_remove": "registration_remove",
    **LEDGER_FORMS,
}
OFFERED = frozenset(HOUSE_FORMS.values())


def sight(roles: Iterable[str]) -> staff.Sight:
    """What a viewer holding `roles` (`events.runner.roles_of`) may see and do on House's pages."""
    return staff.sight_of(roles, OFFERED)


def sights() -> tuple[staff.Sight, ...]:
    """Every sight a House member can have: one live group and one render each."""
    return staff.sights(OFFERED)


# --- House's table (the API's answer and the House socket's data) -------------------------------


@dataclass(frozen=True, slots=True)
class HousePending:
    """A card choice a player has yet to make, and since when."""

    kind: OfferKind
    since: datetime.datetime
    waited_seconds: int
    reminded_at: datetime.datetime | None


@dataclass(frozen=True, slots=True)
class HouseRow:
    """One player in House's table."""

    registration_id: int
    label: str
    status: RegistrationStatus
    late: bool
    paused: bool
    games: int
    kept: int
    open_reviews: int
    wild_rank: str | None
    pending: HousePending | None
    high_place: int | None
    low_place: int | None
    award: int | None


@dataclass(frozen=True, slots=True)
class HouseTable:
    """House's table: the players, the counts, the pool and what finalizing waits for.

    From `house_table(event)`, every player; from `house_page(event, rows=...)`, only those rows.
    """

    event: EventSummary
    version: int
    players: list[HouseRow]
    counts: Annotated[dict[str, int], Described("Registrations by status.")]
    pool: PoolSummary
    blockers: list[str]
    supported_places: int | None

    def data(self) -> dict[str, Any]:
        """As the API answers it and the House socket sends it (plain JSON)."""
        json: dict[str, Any] = to_json(self)
        return json


def house_table(event: Event) -> HouseTable:
    """House's table of every player. House sees no face-down card either."""
    progress = _progress(event, None)
    return _table(event, None, progress, _checklist(event, None, progress))


def _progress(event: Event, rows: Collection[int] | None) -> dict[int, Progress]:
    """Every player's progress (or these players'), in one statement."""
    rules = event.rules
    found = store.progress_of_many(
        event_id=event.pk, registration_ids=None if rows is None else list(rows)
    )
    return {pk: Progress.of(row, rules) for pk, row in found.items()}


def _table(
    event: Event,
    rows: Collection[int] | None,
    progress: dict[int, Progress],
    checklist: list[Blocker],
) -> HouseTable:
    registrations = event.registrations.order_by("status", "check_in_order", "id")
    if rows is not None:
        registrations = registrations.filter(pk__in=list(rows))
    return HouseTable(
        event=event_summary(event),
        version=event.version,
        players=_table_rows(list(registrations), progress),
        counts={
            status: count
            for status, count in event.registrations.order_by("status")
            .values_list("status")
            .annotate(count=Count("pk"))
        },
        pool=pool_summary(event),
        blockers=[blocker.text for blocker in checklist],
        supported_places=event.supported_places,
    )


def _checklist(
    event: Event, rows: Collection[int] | None, progress: dict[int, Progress]
) -> list[Blocker]:
    """What finalizing waits for: everything, or the event's own blockers and these players'."""
    if event.phase != Phase.STARTED:
        return []
    checked_in = event.registrations.filter(status=RegistrationStatus.CHECKED_IN)
    if rows is not None:
        checked_in = checked_in.filter(pk__in=list(rows))
    return finalization_checklist(event, list(checked_in), progress)


def _table_rows(registrations: list[Registration], progress: dict[int, Progress]) -> list[HouseRow]:
    now = timezone.now()
    offers = {
        o.registration_id: o
        for o in Offer.objects.pending().filter(registration__in=[r.pk for r in registrations])
    }
    rows = []
    for r in registrations:
        offer = offers.get(r.pk)
        rows.append(
            HouseRow(
                registration_id=r.pk,
                label=r.label,
                status=RegistrationStatus(r.status),
                late=r.late,
                paused=r.paused,
                games=progress[r.pk].results,
                kept=progress[r.pk].kept,
                open_reviews=progress[r.pk].open_reviews,
                wild_rank=r.wild_rank or None,
                pending=None
                if offer is None
                else HousePending(
                    kind=OfferKind(offer.kind),
                    since=offer.offered_at,
                    waited_seconds=int((now - offer.offered_at).total_seconds()),
                    reminded_at=offer.reminded_at,
                ),
                high_place=r.high_place,
                low_place=r.low_place,
                award=r.award,
            )
        )
    return rows


# --- House's page: the event and the players' rows ----------------------------------------------


@dataclass(frozen=True, slots=True)
class EventFacts:
    """The event as House's sections show it: not its version nor its audit head, which move
    with every change (the status header shows the head: `AuditHead`)."""

    pk: int
    name: str
    phase: Phase
    phase_label: str
    date: datetime.date
    venue: str
    time_zone: str
    contribution: int
    format_label: str
    registration_open: bool
    remainder_policy: str
    commitment: str
    finalized_at: datetime.datetime | None


@dataclass(frozen=True, slots=True)
class AuditHead:
    """The audit chain's head (`audit_tags.audit_head`)."""

    audit_seq: int
    audit_hash: str


@dataclass(frozen=True, slots=True)
class ShownPending:
    """A player's pending choice as their row shows it: a Win's face-up cards, or the starting
    selection's slots."""

    kind: OfferKind
    label: str
    since: datetime.datetime
    waited_seconds: int
    overdue: bool
    reminded_at: datetime.datetime | None
    game: int | None = None
    cards: tuple[selectors.OfferedCard, ...] = ()
    offered: int | None = None
    keep: int | None = None
    slots: tuple[int, ...] = ()

    def steady(self) -> ShownPending:
        """Without its waiting time, which grows by the second: the page ages it itself
        (house.js), so a longer wait alone is no change to send."""
        return dataclasses.replace(self, waited_seconds=0, overdue=False)


@dataclass(frozen=True, slots=True)
class PlayerRow:
    """One player as the dashboard shows them (a row of the table and an entry of the check-in
    list): their row of House's table, the pending choice shaped, and what House may do."""

    registration_id: int
    label: str
    status: RegistrationStatus
    status_label: str
    late: bool
    paused: bool
    games: int
    kept: int
    open_reviews: int
    wild_rank: str | None
    pending: ShownPending | None
    high_place: int | None
    low_place: int | None
    award: int | None
    anchor: str
    played: tuple[tuple[int, str], ...]
    next_game: int | None
    complete: bool
    paid: bool
    can: HouseActions
    # Settled by a comp: shown apart from a paid entry, since it collected nothing.
    comped: bool = False

    def steady(self) -> PlayerRow:
        """What the row shows that a pushed update must carry (see `ShownPending.steady`)."""
        if self.pending is None:
            return self
        return dataclasses.replace(self, pending=self.pending.steady())


@dataclass(frozen=True, slots=True)
class CheckInActions:
    """What House may do for a player from the check-in list."""

    check_in: bool
    undo: bool
    add_back: bool
    cancel: bool


@dataclass(frozen=True, slots=True)
class CheckInEntry:
    """One player in the check-in list: who, their status and what House may do at check-in."""

    registration_id: int
    label: str
    late: bool
    status: RegistrationStatus
    status_label: str
    can: CheckInActions

    @classmethod
    def of(cls, row: PlayerRow) -> CheckInEntry:
        can = row.can
        return cls(
            registration_id=row.registration_id,
            label=row.label,
            late=row.late,
            status=row.status,
            status_label=row.status_label,
            can=CheckInActions(
                check_in=can.check_in, undo=can.undo, add_back=can.add_back, cancel=can.cancel
            ),
        )


@dataclass(frozen=True, slots=True)
class RowFacts:
    """What every player's row and check-in entry shows beside the player's own data."""

    event: EventFacts
    rules: Format
    finalized: bool
    # The check-in button stands out while late entry is open (or before the start).
    check_in_primary: bool
    live_socket: bool
    # The House actions the viewer may do (`HousePage.seen_by`): a row offers only those.
    does: tuple[str, ...] = ()


# --- House's page: its sections -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StatusCount:
    status: RegistrationStatus
    label: str
    count: int


@dataclass(frozen=True, slots=True)
class HousePool:
    """The pool as House sees it, with what House has marked as collected beside it."""

    contribution: int
    participants: int
    base: int
    confirmed: bool
    pool: int | None
    adjustments: tuple[Adjustment, ...]
    unallocated: int | None
    total: int | None
    # A late participant changed a confirmed pool: House confirms it again.
    changed: bool
    can_confirm: bool
    free: bool
    sponsored: int
    # Entries settled with money; comps apart, with the dollars they waived (never collected).
    # None for a viewer who may not see the night's money (`HousePage.seen_by`).
    paid: int | None
    collected: int | None
    comped: int | None = 0
    waived: int | None = 0

    def unseen(self) -> HousePool:
        """Without the ledger's figures (the night's money)."""
        return dataclasses.replace(self, paid=None, collected=None, comped=None, waived=None)


@dataclass(frozen=True, slots=True)
class RegistrationSwitch:
    """Whether House may open registration now, and if not, why in plain words, with the
    setting to fix when that is the remainder policy (events.registration_switch)."""

    can_open: bool
    why_not: str
    needs_policy: bool


@dataclass(frozen=True, slots=True)
class StartPreview:
    """The stock the start would build from the players checked in now (docs/rules.md
    section 2)."""

    players: int
    reserve: int
    extra_decks: int
    decks: int
    cards: int
    supported_places: int
    spare_places: int
    house_decks: int
    ready: bool


@dataclass(frozen=True, slots=True)
class Stock:
    """The stock once the event started, and the places it still supports."""

    decks: int
    cards: int
    dealt: int
    supported_places: int
    placed: int
    left: int
    late_entry_open: bool
    round_two: bool


@dataclass(frozen=True, slots=True)
class ShownReview:
    id: int
    registration_id: int
    anchor: str
    player: str
    game: int | None
    corrected_from: str
    corrected_to: str
    reason: str
    opened_by: str
    opened_at: datetime.datetime
    resolution: str
    resolved_by: str
    resolved_at: datetime.datetime | None
    cards: tuple[selectors.NotedCard, ...]
    cards_are_hand: bool


@dataclass(frozen=True, slots=True)
class Reviews:
    open: tuple[ShownReview, ...]
    resolved: tuple[ShownReview, ...]
    resolved_total: int


@dataclass(frozen=True, slots=True)
class SentAnnouncement:
    pk: int
    sent_at: datetime.datetime
    text: str


@dataclass(frozen=True, slots=True)
class SelfCheckIn:
    code: str
    url: str


@dataclass(frozen=True, slots=True)
class Tools:
    """Self check-in, everyone at once, announcements."""

    self_check_in: bool
    check_in: SelfCheckIn | None
    waiting: int
    can_check_in_all: bool
    can_announce: bool
    announcements: tuple[SentAnnouncement, ...]


@dataclass(frozen=True, slots=True)
class CheckItem:
    """A finalization blocker in plain words, with a link to what it concerns and an id that
    stays with it while it stays on the list (its anchor and how many came before it)."""

    text: str
    anchor: str
    player: str
    id: str


# Each section's part: the names its template reads, and nothing else.


@dataclass(frozen=True, slots=True)
class StatusHeader:
    event: EventFacts
    audit: AuditHead
    finalized: bool
    pool: HousePool
    registration_switch: RegistrationSwitch
    counts: tuple[StatusCount, ...]
    pending_count: int
    paused_count: int
    live_socket: bool
    does: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ToolsSection:
    event: EventFacts
    tools: Tools
    live_socket: bool
    does: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PoolBanner:
    event: EventFacts
    pool: HousePool


@dataclass(frozen=True, slots=True)
class CheckInNote:
    event: EventFacts
    stock: Stock | None
    finalized: bool


@dataclass(frozen=True, slots=True)
class CheckInAdd:
    event: EventFacts
    finalized: bool
    live_socket: bool
    does: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class StartSection:
    event: EventFacts
    start: StartPreview | None
    live_socket: bool
    does: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PlayersNote:
    event: EventFacts
    stock: Stock | None


@dataclass(frozen=True, slots=True)
class ReviewsSection:
    event: EventFacts
    reviews: Reviews
    finalized: bool
    does: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PoolSection:
    event: EventFacts
    pool: HousePool
    started: bool
    finalized: bool
    live_socket: bool
    # The ledger's figure beside the pool, with the difference named (ledger/cash_box.py).
    cash_box: CashBox | None
    does: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CashBoxSection:
    """The night's money as the ledger's lines add it up, live."""

    event: EventFacts
    cash_box: CashBox | None
    # Why a viewer who may not see the night's money sees none (their role named).
    unseen: str = ""


@dataclass(frozen=True, slots=True)
class FinalizeStatus:
    waiting_for: int


@dataclass(frozen=True, slots=True)
class ChecklistMore:
    checklist_more: int


@dataclass(frozen=True, slots=True)
class FinalizeForm:
    event: EventFacts
    ready_to_finalize: bool
    live_socket: bool
    does: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WaitlistRow:
    """A player in line for a place: offered one (until when), or waitlisted (their place)."""

    registration_id: int
    label: str
    status: str
    position: int | None
    offered_until: datetime.datetime | None


@dataclass(frozen=True, slots=True)
class WaitlistSection:
    """The places and the line for them (events/waitlist.py): how many hold a place of the
    capacity, and who waits, in order, with Promote and Remove for the roles that may."""

    event: EventFacts
    capacity: int | None
    held: int
    line: tuple[WaitlistRow, ...]
    live_socket: bool
    does: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class HouseSections:
    """The page's sections that change with the event, each a piece of the live part."""

    registration: StatusHeader
    tools: ToolsSection
    banner: PoolBanner
    checkin_note: CheckInNote
    checkin_add: CheckInAdd
    start: StartSection
    players_note: PlayersNote
    reviews: ReviewsSection
    pool: PoolSection
    cash_box: CashBoxSection
    finalize_status: FinalizeStatus
    checklist_more: ChecklistMore
    finalize_form: FinalizeForm
    waitlist: WaitlistSection


@dataclass(frozen=True, slots=True)
class HousePage:
    """Everything the dashboard's live part shows.

    `players`, `check_in` and `checklist` hold every row and item when the page is read whole; a
    pushed update's read (`house_page(event, rows=...)`) holds only the rows asked for and the
    items of those players (with the event's own), while `players_order`, `check_in_order` and
    `checklist_order` always name every row and item in the page's order.
    """

    event: EventFacts
    version: int
    summary: EventSummary
    rules: Format
    started: bool
    finalized: bool
    live_socket: bool
    sections: HouseSections
    row_facts: RowFacts
    players: tuple[PlayerRow, ...]
    check_in: tuple[CheckInEntry, ...]
    players_order: tuple[int, ...]
    check_in_order: tuple[int, ...]
    checklist: tuple[CheckItem, ...]
    checklist_order: tuple[str, ...]
    statuses: tuple[tuple[str, str], ...]
    start_slots: tuple[int, ...]
    table: HouseTable
    whole: bool
    # Whose page this is (`seen_by`); a page read for nobody offers no action and no money.
    sight: staff.Sight = staff.NO_SIGHT

    def seen_by(self, sight: staff.Sight) -> HousePage:
        """This page as a viewer of `sight` is shown it: each section with the actions the
        viewer may do, and without the night's money unless the viewer may see it."""
        does = sight.does
        s = self.sections
        pool, cash = s.pool.pool, s.cash_box
        if not sight.may_see("money"):
            pool = pool.unseen()
            cash = dataclasses.replace(
                cash, cash_box=None, unseen=sight.unseen("money").message if cash.cash_box else ""
            )
        sections = dataclasses.replace(
            s,
            registration=dataclasses.replace(s.registration, pool=pool, does=does),
            tools=dataclasses.replace(s.tools, does=does),
            banner=dataclasses.replace(s.banner, pool=pool),
            checkin_add=dataclasses.replace(s.checkin_add, does=does),
            start=dataclasses.replace(s.start, does=does),
            reviews=dataclasses.replace(s.reviews, does=does),
            pool=dataclasses.replace(
                s.pool, pool=pool, cash_box=cash.cash_box and s.pool.cash_box, does=does
            ),
            cash_box=cash,
            finalize_form=dataclasses.replace(s.finalize_form, does=does),
            waitlist=dataclasses.replace(s.waitlist, does=does),
        )
        return dataclasses.replace(
            self,
            sections=sections,
            row_facts=dataclasses.replace(self.row_facts, does=does),
            sight=sight,
        )

    def context(self) -> dict[str, Any]:
        """The live part's template context: every part's names, and the lists' rows."""
        context: dict[str, Any] = {}
        for part in (*parts(self.sections), self.row_facts):
            context.update(part_context(part))
        return {
            **context,
            "version": self.version,
            "rules": self.rules,
            "started": self.started,
            "players": self.players,
            "check_in": self.check_in,
            "checklist": self.checklist,
            "statuses": self.statuses,
            "start_slots": self.start_slots,
        }


def parts(sections: HouseSections) -> list[Any]:
    return [getattr(sections, f.name) for f in dataclasses.fields(sections)]


def part_context(part: Any) -> dict[str, Any]:
    """A part's names as a template reads them."""
    return {f.name: getattr(part, f.name) for f in dataclasses.fields(part)}


def house_page(
    event: Event,
    *,
    rows: Collection[int] | None = None,
    item_ids: Mapping[int, tuple[str, ...]] | None = None,
) -> HousePage:
    """Everything the dashboard's live part shows: every row, or only the rows of `rows`
    (registration ids), with everything event-wide read set-wide. The other players' checklist
    items are not read either: `item_ids` names them, per player, as they last were."""
    rules = event.rules
    started = event.phase == Phase.STARTED
    finalized = event.phase == Phase.FINALIZED
    live_socket = event.phase != Phase.DRAFT
    facts = EventFacts(
        pk=event.pk,
        name=event.name,
        phase=Phase(event.phase),
        phase_label=event.get_phase_display(),
        date=event.date,
        venue=event.venue,
        time_zone=event.time_zone,
        contribution=event.contribution,
        format_label=rules.label_words,
        registration_open=event.registration_open,
        remainder_policy=event.remainder_policy,
        commitment=event.commitment,
        finalized_at=event.finalized_at,
    )
    progress = _progress(event, rows)
    checklist_of = _checklist(event, rows, progress)
    table = _table(event, rows, progress, checklist_of)
    counts = table.counts
    everyone = _everyone(event)
    paid = {pk for pk, (_, _, is_paid, _) in everyone.items() if is_paid}
    checked_in = counts.get(RegistrationStatus.CHECKED_IN, 0)
    stock = _stock(event, counts) if event.phase != Phase.DRAFT else None
    box = (
        cash_box(event)
        if event.phase != Phase.DRAFT and (event.contribution or event.sponsored)
        else None
    )
    # Beside the pool: the entry money the ledger's lines hold; comps take none and are apart.
    pool = _pool(event, table.pool, box)
    shown_rows = _player_rows(event, table.players, everyone, paid)
    if box is not None and box.comped_players:
        comped = set(box.comped_players)
        shown_rows = [
            dataclasses.replace(row, comped=True) if row.label in comped else row
            for row in shown_rows
        ]
    players_order = tuple(
        pk for pk in sorted(everyone, key=lambda pk: (STATUS_ORDER.get(everyone[pk][0], 9), pk))
    )
    listed = set(CHECK_IN_STATUSES)
    in_order = _in_order(shown_rows, players_order)
    checklist = tuple(check_items(checklist_of))
    checklist_order = _checklist_order(checklist, everyone, rows, item_ids or {})
    start = _start_preview(event, checked_in) if event.phase in (Phase.DRAFT, Phase.OPEN) else None
    sections = HouseSections(
        registration=StatusHeader(
            event=facts,
            audit=AuditHead(event.audit_seq, event.audit_hash),
            finalized=finalized,
            pool=pool,
            registration_switch=_registration_switch(event),
            counts=tuple(
                StatusCount(
                    RegistrationStatus(status),
                    COUNTED_STATUS[RegistrationStatus(status)](counts[status]),
                    counts[status],
                )
                for status in STATUS_ORDER
                if counts.get(status, 0)
            ),
            pending_count=_pending_count(event),
            paused_count=sum(
                1
                for status, paused, _, _ in everyone.values()
                if paused and status == RegistrationStatus.CHECKED_IN
            ),
            live_socket=live_socket,
        ),
        tools=ToolsSection(event=facts, tools=_tools(event), live_socket=live_socket),
        banner=PoolBanner(event=facts, pool=pool),
        checkin_note=CheckInNote(event=facts, stock=stock, finalized=finalized),
        checkin_add=CheckInAdd(event=facts, finalized=finalized, live_socket=live_socket),
        start=StartSection(event=facts, start=start, live_socket=live_socket),
        players_note=PlayersNote(event=facts, stock=stock),
        reviews=ReviewsSection(event=facts, reviews=reviews(event), finalized=finalized),
        pool=PoolSection(
            event=facts,
            pool=pool,
            started=started,
            finalized=finalized,
            live_socket=live_socket,
            cash_box=box,
        ),
        cash_box=CashBoxSection(event=facts, cash_box=box),
        finalize_status=FinalizeStatus(waiting_for=len(checklist_order)),
        checklist_more=ChecklistMore(checklist_more=len(checklist_order) - CHECKLIST_SHOWN),
        finalize_form=FinalizeForm(
            event=facts, ready_to_finalize=not checklist_order, live_socket=live_socket
        ),
        waitlist=_waitlist(event, facts, live_socket),
    )
    return HousePage(
        event=facts,
        version=event.version,
        summary=table.event,
        rules=rules,
        started=started,
        finalized=finalized,
        live_socket=live_socket,
        sections=sections,
        row_facts=RowFacts(
            event=facts,
            rules=rules,
            finalized=finalized,
            check_in_primary=stock is None or stock.late_entry_open,
            live_socket=live_socket,
        ),
        players=tuple(in_order),
        check_in=tuple(CheckInEntry.of(p) for p in in_order if p.status in listed),
        players_order=players_order,
        check_in_order=tuple(pk for pk in players_order if everyone[pk][0] in listed),
        checklist=checklist,
        checklist_order=checklist_order,
        statuses=tuple((status, str(STATUS_LABELS[status])) for status in STATUS_ORDER),
        start_slots=tuple(range(rules.offered)),
        table=table,
        whole=rows is None,
    )


def _waitlist(event: Event, facts: EventFacts, live_socket: bool) -> WaitlistSection:
    """The places held of the capacity and the line for them, in its order."""
    line = waitlist.waitlist_of(event)
    places = waitlist.positions(event)
    return WaitlistSection(
        event=facts,
        capacity=event.capacity,
        held=waitlist.places_held(event),
        line=tuple(
            WaitlistRow(
                registration_id=r.pk,
                label=r.label,
                status=r.status,
                position=places.get(r.pk),
                offered_until=r.hold_until if r.status == RegistrationStatus.OFFERED else None,
            )
            for r in line
        ),
        live_socket=live_socket,
    )


CHECKLIST_SHOWN = 25  # checklist items shown before "more" (house/_finalize.html)


def _checklist_order(
    built: tuple[CheckItem, ...],
    everyone: dict[int, tuple[str, bool, bool, bool]],
    rows: Collection[int] | None,
    item_ids: Mapping[int, tuple[str, ...]],
) -> tuple[str, ...]:
    """Every checklist item's id in the list's order: the event's own first, then each checked-in
    player's in check-in order (read now for `rows`, as they were for the others)."""
    if rows is None:
        return tuple(item.id for item in built)
    read = set(rows)
    own: dict[int, list[str]] = {}
    order = []
    for item in built:
        if item.anchor.startswith("player-"):
            own.setdefault(int(item.anchor.removeprefix("player-")), []).append(item.id)
        else:
            order.append(item.id)
    for pk, (status, _, _, _) in everyone.items():
        if status == RegistrationStatus.CHECKED_IN:
            order += own.get(pk, []) if pk in read else item_ids.get(pk, ())
    return tuple(order)


def _in_order(rows: Iterable[PlayerRow], order: tuple[int, ...]) -> list[PlayerRow]:
    place = {pk: n for n, pk in enumerate(order)}
    return sorted(rows, key=lambda p: place[p.registration_id])


def _everyone(event: Event) -> dict[int, tuple[str, bool, bool, bool]]:
    """Every registration's status, pause, paid mark and whether it has an account: what the
    counts and the rows' order need, without building a row; in check-in order."""
    return {
        pk: (status, paused, paid, player_id is not None)
        for pk, status, paused, paid, player_id in event.registrations.order_by(
            F("check_in_order").asc(nulls_last=True), "pk"
        ).values_list("pk", "status", "paused", "paid", "player_id")
    }


def _pending_count(event: Event) -> int:
    return (
        Offer.objects.pending()
        .filter(registration__event=event)
        .aggregate(players=Count("registration_id", distinct=True))["players"]
    )


def _player_rows(
    event: Event,
    rows: list[HouseRow],
    everyone: dict[int, tuple[str, bool, bool, bool]],
    paid: set[int],
) -> list[PlayerRow]:
    ids = [row.registration_id for row in rows]
    win_offers = selectors.win_offers(event, ids)
    games = selectors.games(event, ids)
    accounts = {pk for pk, (_, _, _, has_account) in everyone.items() if has_account}
    return [_player_row(row, event, games, win_offers, accounts, paid) for row in rows]


def _player_row(
    row: HouseRow,
    event: Event,
    games: dict[int, list[tuple[int, str]]],
    win_offers: dict[int, selectors.WinOffer],
    accounts: set[int],
    paid: set[int],
) -> PlayerRow:
    rules = event.rules
    rid = row.registration_id
    pending = _pending(row.pending, win_offers.get(rid), rules.offered, rules.starting)
    played = tuple(games.get(rid, []))
    complete, can = _row_actions(row, event, pending, len(played), accounts, paid)
    return PlayerRow(
        registration_id=rid,
        label=row.label,
        status=row.status,
        status_label=str(STATUS_LABELS.get(row.status, row.status)),
        late=row.late,
        paused=row.paused,
        games=row.games,
        kept=row.kept,
        open_reviews=row.open_reviews,
        wild_rank=row.wild_rank,
        pending=pending,
        high_place=row.high_place,
        low_place=row.low_place,
        award=row.award,
        anchor=f"player-{rid}",
        played=played,
        next_game=len(played) + 1 if len(played) < rules.games else None,
        complete=complete,
        paid=rid in paid,
        can=can,
    )


def _row_actions(
    row: HouseRow,
    event: Event,
    pending: ShownPending | None,
    reported: int,
    accounts: set[int],
    paid: set[int],
) -> tuple[bool, HouseActions]:
    """Whether the player's hand is complete, and what House may do for them now: the rules of
    play's predicates, the same the services' guards ask (docs/rules.md section 8)."""
    rules = event.rules
    rid = row.registration_id
    kind = row.pending.kind if row.pending else None
    facts = PlayerFacts(
        label=row.label,
        phase=event.phase,
        status=row.status,
        paused=row.paused,
        wild_revealed=bool(row.wild_rank),
        results=reported,
        kept=row.kept,
        starting_confirmed=starting_confirmed(rules, kind),
        pending=kind,
        open_reviews=row.open_reviews,
    )
    actions = house_actions(
        facts, rules, contribution=event.contribution, paid=rid in paid, has_account=rid in accounts
    )
    return hand_complete(facts, rules), actions


def _pending(
    pending: HousePending | None, win: selectors.WinOffer | None, offered: int, keep: int
) -> ShownPending | None:
    if pending is None:
        return None
    waited = pending.waited_seconds
    shown = ShownPending(
        kind=pending.kind,
        label="",
        since=pending.since,
        waited_seconds=waited,
        overdue=waited > OVERDUE_SECONDS,
        reminded_at=pending.reminded_at,
    )
    if pending.kind == OfferKind.WIN:
        return dataclasses.replace(
            shown,
            label=(
                gettext("Win choice (game %(game)s)") % {"game": win.game}
                if win
                else gettext("Win choice")
            ),
            game=win.game if win else None,
            cards=win.cards if win else (),
        )
    return dataclasses.replace(
        shown,
        label=gettext("Starting selection (%(keep)s of %(offered)s)")
        % {"keep": keep, "offered": offered},
        offered=offered,
        keep=keep,
        slots=tuple(range(offered)),
    )


def check_items(blockers: list[Blocker]) -> list[CheckItem]:
    """The finalization blockers as the checklist shows them (`CheckItem`)."""
    items = []
    seen: dict[str, int] = {}
    for blocker in blockers:
        anchor = ""
        player = ""
        if blocker.registration_id is not None:
            anchor, player = f"player-{blocker.registration_id}", blocker.player or ""
        elif blocker.text.startswith("Registration"):
            anchor = "registration"
        elif blocker.text.startswith("The pool"):
            anchor = "pool"
        seen[anchor] = seen.get(anchor, 0) + 1
        item_id = f"check-{anchor or 'event'}-{seen[anchor]}"
        items.append(CheckItem(text=blocker.text, anchor=anchor, player=player, id=item_id))
    return items


def _registration_switch(event: Event) -> RegistrationSwitch:
    refusal = None if event.registration_open else why_registration_cannot_open(event)
    return RegistrationSwitch(
        can_open=not event.registration_open and refusal is None,
        why_not=refusal.message if refusal is not None else "",
        needs_policy=isinstance(refusal, RemainderPolicyRequired),
    )


def _start_preview(event: Event, checked_in: int) -> StartPreview:
    rules = event.rules
    size = stock_size(players=checked_in, reserve=rules.reserve, extra_decks=event.extra_decks)
    return StartPreview(
        players=checked_in,
        reserve=rules.reserve,
        extra_decks=event.extra_decks,
        decks=size.decks,
        cards=size.decks * 52,
        supported_places=size.supported_places,
        spare_places=max(size.supported_places - checked_in, 0),
        house_decks=size.house_decks,
        ready=checked_in >= 2,
    )


def _pool(event: Event, pool: PoolSummary, box: CashBox | None) -> HousePool:
    adjusted = sum(a.amount for a in pool.adjustments)
    return HousePool(
        contribution=pool.contribution,
        participants=pool.participants,
        base=pool.base,
        confirmed=pool.confirmed,
        pool=pool.pool,
        adjustments=pool.adjustments,
        unallocated=pool.unallocated,
        total=pool.pool if pool.confirmed else pool.base + adjusted,
        changed=not event.pool_confirmed and event.pool_was_confirmed,
        can_confirm=event.phase == Phase.STARTED and not event.pool_confirmed,
        free=event.contribution == 0 and not event.sponsored,
        sponsored=pool.sponsored,
        paid=box.entries_paid if box is not None else 0,
        collected=box.collected if box is not None else 0,
        comped=box.comps if box is not None else 0,
        waived=box.comped if box is not None else 0,
    )


def _stock(event: Event, counts: dict[str, int]) -> Stock | None:
    shoes = {
        kind: (decks, size, dealt)
        for kind, decks, size, dealt in Shoe.objects.filter(event=event).values_list(
            "kind", "decks", "size", "next_position"
        )
    }
    stock = shoes.get(ShoeKind.STOCK)
    if stock is None or event.supported_places is None:
        return None
    placed = counts.get(RegistrationStatus.CHECKED_IN, 0) + counts.get(
        RegistrationStatus.WITHDRAWN, 0
    )
    round_two = GameResult.objects.filter(registration__event=event, game=2).exists()
    left = max(event.supported_places - placed, 0)
    return Stock(
        decks=stock[0],
        cards=stock[1],
        dealt=stock[2],
        supported_places=event.supported_places,
        placed=placed,
        left=left,
        late_entry_open=event.phase == Phase.STARTED and not round_two and left > 0,
        round_two=round_two,
    )


def reviews(event: Event) -> Reviews:
    """Open reviews with what changed, who, when and the cards exposed; the latest resolved."""
    rows = list(
        Review.objects.filter(registration__event=event)
        .select_related("registration", "result")
        .order_by("-opened_at", "-pk")
    )
    open_rows = [r for r in rows if r.resolved_at is None]
    exposed = selectors.exposed_cards([r.result_id for r in open_rows if r.result_id is not None])

    def shape(review: Review) -> ShownReview:
        game = review.result.game if review.result is not None else None
        cards: tuple[selectors.NotedCard, ...]
        if review.resolved_at is not None:
            cards = ()
        elif review.result_id is not None:
            cards = tuple(exposed.get(review.result_id, []))
        else:
            cards = tuple(
                selectors.NotedCard(**card_face(card), note="kept")
                for card in kept_cards(review.registration)
            )
        return ShownReview(
            id=review.pk,
            registration_id=review.registration_id,
            anchor=f"player-{review.registration_id}",
            player=review.registration.label,
            game=game,
            corrected_from=review.corrected_from,
            corrected_to=review.corrected_to,
            reason=review.reason,
            opened_by=review.opened_by,
            opened_at=review.opened_at,
            resolution=review.resolution,
            resolved_by=review.resolved_by,
            resolved_at=review.resolved_at,
            cards=cards,
            cards_are_hand=game is None,
        )

    resolved = [r for r in rows if r.resolved_at is not None]
    resolved.sort(key=lambda r: r.resolved_at or r.opened_at, reverse=True)
    return Reviews(
        open=tuple(shape(r) for r in reversed(open_rows)),
        resolved=tuple(shape(r) for r in resolved[:RESOLVED_SHOWN]),
        resolved_total=len(resolved),
    )


def _tools(event: Event) -> Tools:
    waiting = event.registrations.filter(status=RegistrationStatus.REGISTERED).count()
    check_in = board_check_in(event)
    return Tools(
        self_check_in=event.self_check_in,
        check_in=None if check_in is None else SelfCheckIn(**check_in),
        waiting=waiting,
        can_check_in_all=event.phase == Phase.OPEN and waiting > 0,
        can_announce=event.phase in (Phase.OPEN, Phase.STARTED),
        announcements=tuple(SentAnnouncement(a.pk, a.sent_at, a.text) for a in recent(event, 3)),
    )


def row_stamps(event: Event) -> dict[int, str]:
    """Each registration's stamp: its version, which every change touching it moves, and whether
    a reminder went out for its pending choice (a reminder is no change). A row whose stamp did
    not move shows what it showed."""
    reminded = set(
        Offer.objects.pending()
        .filter(registration__event=event, reminded_at__isnull=False)
        .values_list("registration_id", flat=True)
    )
    return {
        pk: f"{version}r" if pk in reminded else str(version)
        for pk, version in event.registrations.values_list("pk", "version")
    }
