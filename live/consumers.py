"""Websockets for live updates (docs/rules.md section 12.1). Consumers only subscribe and send
snapshots.

Domain code broadcasts after commit (`live.delivery.announce`); a consumer checks who may listen,
joins the groups, sends the current snapshots on connect and on `{"type": "reload"}`, and relays
what the groups carry. Every frame a client receives is one JSON object:

    {"type": "snapshot" | "update", "stream": "board" | "venue" | "player" | "places" | "house",
     "version": <int>, "data": <the stream's full snapshot, see events.reads>,
     "html": <board, player and House: the fragment the page swaps in, see live.fragments>}

A "venue" frame (the venue's display only: BoardConsumer) is always a "snapshot" with the
board's check-in part as "html" and no data.

The board's and House's updates are targeted: instead of "html" they carry "base" (the version
they build on; "bases" when they also bring later versions up to date), "parts" ({element id:
its HTML}, only the pieces that changed), "order" ({list id: [element ids]}, for the lists
whose order changed) and "places" ({row id: the place its place cell shows}, for the board's rows
whose place moved or that came in "parts", which come without it); a targeted House update's
"data" is {"players": [the rows of the players whose row changed]}, a targeted board update's
what moved in the board's data (`live.data_patch`). A page that holds none of those versions
sends a reload. A board or House frame sent while no such page listened carries the version
alone (the page reloads); a player socket answers its own with its snapshot.

House's sockets also hear the standby copies (stream "standby", always a whole "snapshot" with
the panel's "html", versioned by the time it was rendered; `StandbyFrames`), and so does
Tonight's socket (`ws/house/standby/`), which hears nothing else.

A player socket hears its own state ("player") and its own places ("places": {"high", "low",
"ranked", "final"}, always a whole "snapshot", at the event's version), not the board. Its
panel is in its page's language: the account's choice, else what the handshake's language cookie
or Accept-Language asks for, as the page was rendered (`accounts.language.page_language`); while
it is open the socket keeps that language marked for its player (`targeting.listening`),
so each change is rendered once per language a page of the player's reads. A House socket hears
the House group of its viewer's sight and its page's language (chosen the same way), and its
standby panel is written in that language too.

"snapshot" answers a connect or a reload; "update" follows a committed change. A refused socket is
accepted and closed at once with 4401 (sign in first), 4403 (not allowed) or 4404 (no such event),
so a browser can tell a refusal (stop retrying) from a network failure (retry).

Access can end while a socket is open: an access reset signs the player out everywhere, and a
House member can be removed from an event. Player and House sockets also listen on their
account's group (accounts.revocation); when told, they check their access again and close with
the code a new connect would get (4401 after an access reset, 4403 after a removal), so no private
frame follows. A path with no route is accepted and closed with 4404. A
display link's board socket (`ws/events/<id>/board/<token>/`, events.display) listens on the
link's group; when House revokes the link it closes with 4410, as a new connect with a revoked
link, or with a series' link whose series shows another event now, does.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from asgiref.sync import sync_to_async
from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer, AsyncWebsocketConsumer
from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation

from accounts import revocation
from accounts.language import page_language
from events import display, store
from events.models import Event, Phase, Registration
from events.reads.player import player_state
from events.runner import is_house, roles_of
from events.venue import VenueCheckIn, display_grant, venue_check_in
from house.copies import StandbyPanel, sees_standby, standby_panel
from house.read_model import sight
from live import announcement_frames, protocol, targeting
from live.protocol import SWAPPED_STREAMS as SWAPPED
from staff.roles import Sight
from standby import state as standby
from web.follow import follow

CLOSE_SIGN_IN = 4401
CLOSE_NOT_ALLOWED = 4403
CLOSE_NOT_FOUND = 4404
# A display link revoked by House, or whose series shows another event now: the page reloads.
CLOSE_GONE = 4410

# A socket wakes this long after a copy is due to read as silent, so the copy reads as lost then.
STANDBY_WAKE_MARGIN = 0.25

# A client asks for a reload after a gap; answering costs full snapshots, so at most one a second.
RELOAD_INTERVAL = 1.0

# Group messages a socket only passes on: their handlers read no database.
RELAYS = frozenset(
    {
        protocol.MESSAGE_TYPE,
        protocol.PLACES_TYPE,
        protocol.VENUE_TYPE,
        announcement_frames.MESSAGE_TYPE,
    }
)


@dataclass(frozen=True, slots=True)
class Access:
    """What one socket may hear: its groups, and whose own state (a player's)."""

    event_id: int
    groups: tuple[str, ...]
    registration_id: int | None = None
    # The venue's display (a board opened by House, or House's display link): it hears the
    # check-in code. `grant` is what a display link holds of the code it was made for (None: a
    # House member's session).
    venue: bool = False
    grant: str | None = None
    # A House socket: what its viewer's roles may see and do (staff/roles.py), the House group
    # it hears.
    sight: Sight | None = None
    # A player or House socket: the language its page reads (accounts.language.page_language).
    language: str | None = None


def handshake_language(scope: dict[str, Any], user: Any) -> str:
    """The language of the page that opened a socket: the account's choice, else what the
    handshake's language cookie or Accept-Language asks for, as LocaleMiddleware picked the
    page's (`accounts.language.page_language`)."""
    headers = dict(scope.get("headers") or [])
    return page_language(
        user,
        cookies=scope.get("cookies") or {},
        accept_language=headers.get(b"accept-language", b"").decode("latin-1"),
    )


class LiveConsumer(AsyncJsonWebsocketConsumer):
    """Subscribe, send snapshots, relay updates; subclasses say who may listen and to what."""

    # Sockets that carry private frames end when their account's access does.
    private = False
    marked_at = 0.0  # when the socket last marked its page's audiences (`targeting.listening`)

    async def connect(self) -> None:
        self.access: Access | None = None
        self.sent: dict[str, int] = {}
        self.reloaded_at = 0.0
        self.account_group: str | None = None
        event_id = int(self.scope["url_route"]["kwargs"]["event_id"])
        user = self.scope.get("user")
        self.early_groups: list[str] = []
        # Before joining any group: every relay of the socket's groups is handed over.
        self.channel_layer.relay_to(self.channel_name, self)
        if self.private and user is not None and user.is_authenticated:
            # Before the access check: a revocation committed after it reaches this socket.
            self.account_group = revocation.user_group(user.pk)
            await self.channel_layer.group_add(self.account_group, self.channel_name)
        for group in await database_sync_to_async(self.revoked_through)():
            # The same for what else can be revoked (a display link): joined before the check.
            await self.channel_layer.group_add(group, self.channel_name)
            self.early_groups.append(group)
        granted = await database_sync_to_async(self.authorize)(event_id, user)
        if isinstance(granted, int):
            await self.leave_groups()
            await self.accept()
            await self.close(code=granted)
            return
        # Join before reading the snapshots, so no change can fall between the two.
        for group in granted.groups:
            await self.channel_layer.group_add(group, self.channel_name)
        self.access = granted
        await self.accept()
        await self.send_snapshots()

    # The group messages this socket only passes on: the channel layer hands them over at once
    # (`live.channel_layer.Relayer`), not through the socket's queue.
    relayed = RELAYS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Messages the socket handles in turn: queued by the layer or in hand. While any is, the
        # relays handed over wait in `waiting` and follow in order.
        self.holding = 0
        self.waiting: list[dict[str, Any]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            if getattr(self, "channel_name", None) is not None:
                self.channel_layer.stop_relaying(self.channel_name)

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Relay a group message at once; anything else as channels does, with the relays that
        arrive meanwhile kept until it is done.

        Before every message channels closes the stale database connections of the one thread
        that runs the sockets' database work: a trip to that thread and back, queued behind
        whatever it is reading (another socket's snapshots). A relay reads no database, and an
        event's places go to each of its phones on every delivery, so relays skip that trip.
        """
        if message["type"] in RELAYS:
            await self.relay(message)
            return
        if message["type"].startswith("websocket."):
            self.holding += 1  # the client's, not queued by the layer (which counted its own)
        try:
            await super().dispatch(message)
        finally:
            await self.release()

    def queued(self) -> None:
        """The layer queued a message the socket handles itself (`live.channel_layer`)."""
        self.holding += 1

    def handed(self, message: dict[str, Any]) -> bool:
        """A relay handed over by the layer: kept in order; whether to pass it on now."""
        self.waiting.append(message)
        return self.holding == 0

    async def drain(self) -> None:
        """Pass on the relays handed over, unless something held passes them on when done."""
        if self.holding:
            return
        self.holding += 1
        await self.release()

    async def release(self) -> None:
        """One held message is done: the relays that waited for it follow, unless another
        is held still (it releases them)."""
        try:
            while self.waiting and self.holding == 1:
                await self.relay(self.waiting.pop(0))
        finally:
            self.holding -= 1

    async def relay(self, message: dict[str, Any]) -> None:
        await getattr(self, get_handler_name(message))(message)

    async def disconnect(self, code: int) -> None:
        await self.leave_groups()

    async def leave_groups(self) -> None:
        groups = list(self.access.groups) if self.access is not None else []
        if self.account_group is not None:
            groups.append(self.account_group)
        groups.extend(getattr(self, "early_groups", ()))
        self.access, self.account_group, self.early_groups = None, None, []
        for group in groups:
            await self.channel_layer.group_discard(group, self.channel_name)

    async def end(self, code: int) -> None:
        """Close for lost access: leave the groups first, so no private frame follows."""
        await self.leave_groups()
        await self.close(code=code)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # Ignore what is not a JSON object, instead of letting a bad frame close the socket.
        try:
            content = json.loads(text_data or "")
        except ValueError:
            return
        if isinstance(content, dict) and content.get("type") == "reload":
            await self.reload()

    async def reload(self) -> None:
        if self.access is None:
            return
        wait = self.reloaded_at + RELOAD_INTERVAL - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
            if self.access is None:
                return  # access ended while waiting
        self.reloaded_at = time.monotonic()
        # Access may have ended since the connect (House member removed, signed out elsewhere).
        granted = await database_sync_to_async(self.reauthorize)()
        if isinstance(granted, int):
            await self.end(granted)
            return
        await self.regroup(granted)
        await self.send_snapshots()

    async def access_revoke(self, message: dict[str, Any]) -> None:
        """A message from accounts.revocation: the account's access changed; check it again."""
        if self.access is None:
            return
        event_id = message.get("event_id")
        if event_id is not None and event_id != self.access.event_id:
            return  # another event's access changed; this socket's did not
        series_id = message.get("series_id")
        if series_id is not None and not await database_sync_to_async(self.in_series)(series_id):
            return  # another series' access changed
        granted = await database_sync_to_async(self.reauthorize)()
        if isinstance(granted, int):
            await self.end(granted)
            return
        await self.regroup(granted)

    async def regroup(self, granted: Access) -> None:
        """Access still holds, perhaps to less (a board that is the venue's display no more):
        leave the groups it no longer grants, join the ones it now does."""
        if self.access is None:
            return
        was = self.access
        for group in set(was.groups) - set(granted.groups):
            await self.channel_layer.group_discard(group, self.channel_name)
        for group in set(granted.groups) - set(was.groups):
            await self.channel_layer.group_add(group, self.channel_name)
        self.access = granted

    async def send_snapshots(self) -> None:
        assert self.access is not None
        snapshots = await database_sync_to_async(self.current)(self.access)
        for snapshot in snapshots:
            self.sent[snapshot.stream] = max(
                snapshot.version, self.sent.get(snapshot.stream, snapshot.version)
            )
            await self.send_json({**snapshot.frame(), "type": "snapshot"})

    async def live_snapshot(self, message: dict[str, Any]) -> None:
        """A group message from `live.delivery`: pass its frame on unless the socket has it."""
        stream, version = message["stream"], message["version"]
        if self.access is None or version <= self.sent.get(stream, -1):
            return
        # A frame of the version alone: the mark had run out; the page asks for the snapshots.
        await self.keep_marked(now=not message.get("fragment", True) and stream in SWAPPED)
        self.sent[stream] = version
        await self.send(text_data=message["frame"])

    async def live_places(self, message: dict[str, Any]) -> None:
        """Every player's places (`live.targeting.places`): pass on this socket's own only."""
        version = message["version"]
        if self.access is None or self.access.registration_id is None:
            return
        if version <= self.sent.get("places", -1):
            return
        # Every change of the event passes here: the page stays marked while open.
        await self.keep_marked()
        self.sent["places"] = version
        data = message["data"]
        high, low = data["places"].get(str(self.access.registration_id), (None, None))
        own = {"high": high, "low": low, "ranked": data["ranked"], "final": False}
        frame = {"type": "snapshot", "stream": "places", "version": version, "data": own}
        await self.send_json(frame)

    async def live_venue(self, message: dict[str, Any]) -> None:
        """The venue's check-in part: only a board socket of the venue's display hears it."""

    async def live_announcement(self, message: dict[str, Any]) -> None:
        """House's announcement (`live.announcement_frames`): every player socket passes it on."""
        if self.access is not None and self.access.registration_id is not None:
            await self.send(text_data=message["frame"])

    async def keep_marked(self, *, now: bool = False) -> None:
        """Mark the page's audiences again (`targeting.listening`), at most once a minute."""
        access = self.access
        if access is None or not (now or time.monotonic() - self.marked_at > targeting.MARK_EVERY):
            return
        self.marked_at = time.monotonic()
        await sync_to_async(targeting.listening, thread_sensitive=False)(*self.audiences(access))

    # --- synchronous, in a database thread ---------------------------------------------------

    def audiences(self, access: Access) -> tuple[str, ...]:
        """What this socket's page shows, as `live.targeting` names the audiences it renders for
        only while a page is open."""
        return ()

    def mark(self, access: Access) -> None:
        """The page is open: marked before the first read, so a change committed after it is
        rendered for it too."""
        targeting.listening(*self.audiences(access))
        self.marked_at = time.monotonic()

    def in_series(self, series_id: int) -> bool:
        """Whether this socket's event is in the series now (a revocation's scope)."""
        assert self.access is not None
        return Event.objects.filter(pk=self.access.event_id, series=series_id).exists()

    def revoked_through(self) -> list[str]:
        """Groups that tell this socket its access was revoked, other than its account's."""
        return []

    def authorize(self, event_id: int, user: Any) -> Access | int:
        """The socket's access, or the close code that refuses it."""
        raise NotImplementedError

    def current(self, access: Access) -> list[protocol.Snapshot]:
        """The snapshots this socket starts from."""
        raise NotImplementedError

    def reauthorize(self) -> Access | int:
        assert self.access is not None
        user = self.scope.get("user")
        session = self.scope.get("session")
        signed_in = user is not None and user.is_authenticated
        if signed_in and (session is None or not session.exists(session.session_key)):
            return CLOSE_SIGN_IN
        return self.authorize(self.access.event_id, user)


def _public_event(event_id: int) -> Event | None:
    """The event, unless it is unknown or still a draft (nobody outside House sees a draft)."""
    return Event.objects.exclude(phase=Phase.DRAFT).filter(pk=event_id).first()


class BoardConsumer(LiveConsumer):
    """`ws/events/<id>/board/`: anyone; public state only. The venue's display also hears the
    check-in part of the board (stream "venue", `events.venue`): the board opened by House, or
    through a display link (`ws/events/<id>/board/<token>/`: events.display's, or the older link
    signed for one check-in code, events.venue).

    Each display renders that part itself: its QR opens the address the display was opened at
    (the page's Origin), and a display link made for an earlier code no longer shows the code. A
    render is kept per socket and sent only when what it shows changed.
    """

    # A House member's board hears their account's group: when access ends it is a plain board.
    private = True

    async def connect(self) -> None:
        self.venue_shown = ""
        await super().connect()

    def revoked_through(self) -> list[str]:
        """A display link's group, which its revocation tells (events.display)."""
        token = self.scope["url_route"]["kwargs"].get("display")
        link = display.find(token) if token else None
        return [display.group(link.pk)] if link is not None else []

    def authorize(self, event_id: int, user: Any) -> Access | int:
        event = _public_event(event_id)
        if event is None:
            return CLOSE_NOT_FOUND
        groups = (protocol.event_group(event_id),)
        venue = (*groups, protocol.venue_group(event_id))
        token = self.scope["url_route"]["kwargs"].get("display")
        link = display.find(token) if token else None
        if link is not None:
            # A display link (events.display): the venue's display of the event it shows, until
            # House revokes it or its series moves on; it hears its own group, which a
            # revocation tells.
            shown = display.shown_event(link) if link.revoked_at is None else None
            if shown is None or shown.pk != event_id:
                return CLOSE_GONE
            return Access(event_id, (*venue, display.group(link.pk)), venue=True)
        if user is not None and is_house(user, event):
            return Access(event_id, venue, venue=True)
        grant = display_grant(event_id, token) if token else None
        if grant is not None:
            return Access(event_id, venue, venue=True, grant=grant)
        return Access(event_id, groups)

    def reauthorize(self) -> Access | int:
        granted = super().reauthorize()
        if granted == CLOSE_SIGN_IN:  # signed out elsewhere: still a board, as for anyone
            assert self.access is not None
            return self.authorize(self.access.event_id, None)
        return granted

    def audiences(self, access: Access) -> tuple[str, ...]:
        return (targeting.board_audience(access.event_id),)

    def current(self, access: Access) -> list[protocol.Snapshot]:
        self.mark(access)
        with store.consistent_read():
            event = Event.objects.get(pk=access.event_id)
            found = [targeting.board(event)]
            if access.venue:
                self.venue_shown = ""  # a reload takes the part whole
                frame = self.venue_frame(access, event.version, venue_check_in(event).data())
                if frame is not None:
                    found.append(frame)
            return found

    async def regroup(self, granted: Access) -> None:
        was = self.access
        await super().regroup(granted)
        if was is not None and was.venue and not granted.venue:
            # No longer the venue's display: the code goes, the public part stays.
            version = self.sent.get("venue", 0) + 1  # the stream ends here: past what it holds
            frame = await sync_to_async(self.venue_frame)(granted, version, None)
            if frame is not None:
                await self.send_json(frame.frame())

    async def live_venue(self, message: dict[str, Any]) -> None:
        version = message["version"]
        if self.access is None or not self.access.venue:
            return
        if version <= self.sent.get("venue", -1):
            return
        self.sent["venue"] = version
        # Rendering a QR takes a few milliseconds: off the loop, and only when the part changed.
        frame = await sync_to_async(self.venue_frame, thread_sensitive=False)(
            self.access, version, message["data"]
        )
        if frame is not None:
            await self.send_json(frame.frame())

    def venue_frame(
        self, access: Access, version: int, data: dict[str, Any] | None
    ) -> protocol.Snapshot | None:
        """The venue part for this socket (`data`: `VenueCheckIn.data()`, None: the public
        part), or None when it shows what the socket was last sent."""
        event = Event(pk=access.event_id)
        shown = VenueCheckIn.from_data(data) if data is not None and access.venue else None
        html = render_to_string(
            "web/_follow.html",
            {"follow": follow(event, origin=self.origin(), venue=shown, grant=access.grant)},
        )
        if html == self.venue_shown:
            return None
        self.venue_shown = html
        group = protocol.venue_group(access.event_id)
        return protocol.Snapshot(group, "venue", version, None, kind="snapshot", html=html)

    def origin(self) -> str | None:
        """The address the page was opened at (its Origin, which asgi.py checked)."""
        headers = dict(self.scope.get("headers") or [])
        value = headers.get(b"origin")
        return value.decode("latin-1") if value else None


class PlayerConsumer(LiveConsumer):
    """`ws/events/<id>/player/`: a signed-in player of this event; their own state and places,
    in the language of the page that opened the socket."""

    private = True

    async def live_snapshot(self, message: dict[str, Any]) -> None:
        """Pass on the player's frames in this page's language; a version rendered in other
        languages only, or not at all (the page's mark had lapsed), makes the socket mark it
        again and send its own snapshot."""
        access = self.access
        if access is None or access.language is None or access.registration_id is None:
            return
        language = message.get("language")
        unheard = not message.get("fragment", True)  # no page was marked: the version alone
        if unheard or (language is not None and language != access.language):
            if access.language in message.get("languages", ()):
                return  # its own language's frame comes in a message of its own
            if message["version"] > self.sent.get(message["stream"], -1):
                await self.send_snapshots()  # marks the page's language again
            return
        await super().live_snapshot(message)

    def audiences(self, access: Access) -> tuple[str, ...]:
        assert access.registration_id is not None and access.language is not None
        return (targeting.player_audience(access.registration_id, access.language),)

    def authorize(self, event_id: int, user: Any) -> Access | int:
        if user is None or not user.is_authenticated or not user.is_active:
            return CLOSE_SIGN_IN
        if _public_event(event_id) is None:
            return CLOSE_NOT_FOUND
        registration_id = (
            Registration.objects.filter(event_id=event_id, player=user)
            .values_list("pk", flat=True)
            .first()
        )
        if registration_id is None:
            return CLOSE_NOT_ALLOWED
        groups = (protocol.places_group(event_id), protocol.player_group(registration_id))
        language = handshake_language(self.scope, user)
        return Access(event_id, groups, registration_id, language=language)

    def current(self, access: Access) -> list[protocol.Snapshot]:
        assert access.registration_id is not None and access.language is not None
        self.mark(access)
        with store.consistent_read():
            registration = Registration.objects.select_related("event", "player").get(
                pk=access.registration_id
            )
            with translation.override(access.language):
                me = player_state(registration)
                return [
                    targeting.player(registration, me, access.language),
                    targeting.own_places(registration, me),
                ]


def _standby_frame(dashboard: bool, language: str) -> tuple[StandbyPanel, dict[str, Any]]:
    """The panel as seen now and its frame in the page's language, in one trip off the event
    loop (cache reads only)."""
    with translation.override(language):
        panel = standby_panel(dashboard=dashboard)
        return panel, panel.frame()


class StandbyFrames(AsyncJsonWebsocketConsumer):
    """House's view of the standby copies on a socket (stream "standby", `house.copies`).

    The socket joins group "standby"; when a keeper says what House sees changed
    (`standby.state.publish`), it sends the panel whole. A keeper that died says nothing, so the
    socket also wakes when the first copy still reported as live is due to read as silent
    (`standby.state.SILENT_AFTER` after its last report) and sends the panel if it changed: the
    copy turns "lost" on the page within a second of that, with no client clock involved.
    """

    # The dashboard's panel says when there is no copy at all; Tonight's says nothing then.
    standby_dashboard = True
    standby_shown: str | None = None  # the panel this socket's page shows
    standby_timer: asyncio.Task[None] | None = None

    async def dispatch(self, message: dict[str, Any]) -> None:
        """A copy's change is handled at once: it reads the cache, not the database, so it skips
        channels' trip to the database thread (see `LiveConsumer.dispatch`)."""
        if message["type"] == standby.MESSAGE_TYPE:
            await self.standby_changed(message)
        else:
            await super().dispatch(message)

    async def send_standby(self, *, when: str) -> None:
        """Send the panel: on a change always, on connect when it shows a copy or a snapshot, on
        a wake when it changed."""
        panel, frame = await sync_to_async(_standby_frame, thread_sensitive=False)(
            self.standby_dashboard, self.standby_language()
        )
        html = frame["html"]
        send = (
            when == "changed"
            or (when == "connect" and panel.shown)
            or (when == "wake" and html != self.standby_shown)
        )
        if send:
            self.standby_shown = html
            await self.send_json(frame)
        elif self.standby_shown is None:
            self.standby_shown = html  # the page was rendered with it
        self.standby_wake(panel.wake_at)

    def standby_wake(self, at: datetime | None) -> None:
        if self.standby_timer is not None:
            self.standby_timer.cancel()
            self.standby_timer = None
        if at is not None:
            delay = max(0.0, (at - datetime.now(UTC)).total_seconds()) + STANDBY_WAKE_MARGIN
            self.standby_timer = asyncio.create_task(self.standby_sleep(delay))

    async def standby_sleep(self, delay: float) -> None:
        await asyncio.sleep(delay)
        self.standby_timer = None
        if self.standby_listening():
            await self.send_standby(when="wake")

    def standby_stop(self) -> None:
        self.standby_wake(None)

    def standby_listening(self) -> bool:
        raise NotImplementedError

    def standby_language(self) -> str:
        """The language of the page the panel is written for (`handshake_language`)."""
        raise NotImplementedError

    async def standby_changed(self, message: dict[str, Any]) -> None:
        """A message from `standby.state.publish`: a copy's state changed as House sees it."""
        if self.standby_listening():
            await self.send_standby(when="changed")


class HouseConsumer(LiveConsumer, StandbyFrames):
    """`ws/events/<id>/house/`: House of this event only; the board and House's table.

    The socket hears the House group of its viewer's sight (what their roles may see and do,
    staff/roles.py) and its page's language (`handshake_language`): that group's part is
    rendered for that sight, in that language, alone. While it is open it keeps the event, sight
    and language marked as having a House page (`targeting.listening`), so the publisher
    renders that group's fragment only then. The standby panel is written in the same language.
    """

    private = True

    def audiences(self, access: Access) -> tuple[str, ...]:
        assert access.sight is not None
        house = targeting.house_audience(access.event_id, access.sight.name, access.language)
        return (targeting.board_audience(access.event_id), house)

    def authorize(self, event_id: int, user: Any) -> Access | int:
        if user is None or not user.is_authenticated:
            return CLOSE_SIGN_IN
        event = _public_event(event_id)
        if event is None:
            return CLOSE_NOT_FOUND
        roles = roles_of(user, event.pk)
        if not roles:
            return CLOSE_NOT_ALLOWED
        seen = sight(roles)
        language = handshake_language(self.scope, user)
        groups = (
            protocol.event_group(event_id),
            protocol.house_group(event_id, seen.name, language),
            # The deployment's standby copies, for those who see them (house.copies).
            *((standby.GROUP,) if sees_standby(user) else ()),
        )
        return Access(event_id, groups, sight=seen, language=language)

    async def regroup(self, granted: Access) -> None:
        """As any socket; when the viewer's roles changed what they see, or the account chose
        another language, the page starts again from its new group's snapshot."""
        was = self.access
        await super().regroup(granted)
        if (
            was is not None
            and self.access is not None
            and (was.sight, was.language) != (granted.sight, granted.language)
        ):
            await self.send_snapshots()

    async def send_snapshots(self) -> None:
        await super().send_snapshots()
        if self.standby_listening():
            await self.send_standby(when="connect")

    async def leave_groups(self) -> None:
        self.standby_stop()
        await super().leave_groups()

    def standby_listening(self) -> bool:
        return self.access is not None and standby.GROUP in self.access.groups

    def standby_language(self) -> str:
        access = self.access
        return access.language if access is not None and access.language else settings.LANGUAGE_CODE

    def current(self, access: Access) -> list[protocol.Snapshot]:
        assert access.sight is not None
        self.mark(access)
        with store.consistent_read():
            event = Event.objects.get(pk=access.event_id)
            return [targeting.board(event), targeting.house(event, access.sight, access.language)]


class StandbyConsumer(StandbyFrames):
    """`ws/house/standby/`: Tonight's socket, the standby copies alone, for those who see them
    (site staff and the House of the deployment's own organization: `house.copies.sees_standby`),
    in its page's language. Closes as the event sockets do: 4401 signed out, 4403 anyone else."""

    standby_dashboard = False
    listening = False
    account_group: str | None = None
    language: str | None = None  # its page's (`handshake_language`)

    async def connect(self) -> None:
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            self.account_group = revocation.user_group(user.pk)
            await self.channel_layer.group_add(self.account_group, self.channel_name)
        code = await database_sync_to_async(self.authorize)(user)
        if code is not None:
            await self.leave()
            await self.accept()
            await self.close(code=code)
            return
        self.language = await database_sync_to_async(handshake_language)(self.scope, user)
        await self.channel_layer.group_add(standby.GROUP, self.channel_name)
        self.listening = True
        await self.accept()
        await self.send_standby(when="connect")

    async def disconnect(self, code: int) -> None:
        await self.leave()

    async def leave(self) -> None:
        self.standby_stop()
        if self.listening:
            self.listening = False
            await self.channel_layer.group_discard(standby.GROUP, self.channel_name)
        if self.account_group is not None:
            await self.channel_layer.group_discard(self.account_group, self.channel_name)
            self.account_group = None

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        # As the event sockets: a frame that is not JSON is ignored, "reload" sends the panel.
        try:
            content = json.loads(text_data or "")
        except ValueError:
            return
        if self.listening and isinstance(content, dict) and content.get("type") == "reload":
            await self.send_standby(when="connect")

    async def access_revoke(self, message: dict[str, Any]) -> None:
        """The account's access changed (accounts.revocation): check it again."""
        if not self.listening:
            return
        code = await database_sync_to_async(self.reauthorize)()
        if code is not None:
            await self.leave()
            await self.close(code=code)

    def standby_listening(self) -> bool:
        return self.listening

    def standby_language(self) -> str:
        return self.language or settings.LANGUAGE_CODE

    def authorize(self, user: Any) -> int | None:
        """None when the user may see the copies, else the close code."""
        if user is None or not user.is_authenticated or not user.is_active:
            return CLOSE_SIGN_IN
        if not sees_standby(user):
            return CLOSE_NOT_ALLOWED
        return None

    def reauthorize(self) -> int | None:
        session = self.scope.get("session")
        if session is None or not session.exists(session.session_key):
            return CLOSE_SIGN_IN
        user = self.scope.get("user")
        if user is not None and user.is_authenticated:
            user.refresh_from_db()
        return self.authorize(user)


class NoRouteConsumer(AsyncWebsocketConsumer):
    """Any other websocket path: accepted and closed with 4404, instead of an error."""

    async def connect(self) -> None:
        await self.accept()
        await self.close(code=CLOSE_NOT_FOUND)
