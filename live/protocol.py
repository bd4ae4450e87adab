"""The live streams' protocol: the groups a change is sent to, and the frames sockets receive.

A committed change is sent to five kinds of groups (the consumers in `live.consumers` subscribe
sockets to them and relay what arrives):

- `event.<id>`: the public board (stream "board", version `Event.version`), with the pieces of
  its HTML that changed, the rows' places that moved and what moved in its data (`data_patch`),
  only while a board page listens;
- `venue.<id>`: the venue's displays (stream "venue", version `Event.version`): the check-in
  code's part of the board, which each display renders for itself (`live.consumers`);
- `places.<id>`: every player's High and Low place (stream "places", version `Event.version`);
  each player socket passes on only its own few bytes, so a phone's place line stays current
  without a render per phone;
- `house.<id>.<sight>.<language>`: House's table (stream "house", version `Event.version`), with
  the pieces of its live part that changed, rendered once per sight (what a viewer's roles may see
  and do: "owner-director", "cashier", "scorer", ...) and language (the page's), and only while a
  House page of that sight and language listens;
- `player.<registration id>`: one player's own state and panel HTML (stream "player", version
  `Registration.version`), only for the players the change touched; once per language its pages
  are open in (`language`), each socket passing on its own page's.

A board, House or player group no page listens for is sent its version alone (`unheard`).

What each group is sent is decided in `live.targeting`, and when in `live.delivery`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.conf import settings

# The handler a consumer needs for these messages: `live_snapshot`.
MESSAGE_TYPE = "live.snapshot"
# The handler for the places of every player of an event: `live_places`, which picks its own.
PLACES_TYPE = "live.places"
# The streams whose pages swap in the fragment their frames carry.
SWAPPED_STREAMS = frozenset({"board", "house", "player"})
# The handler for the venue's check-in part: `live_venue`, which renders it for its own display.
VENUE_TYPE = "live.venue"


def event_group(event_id: int) -> str:
    return f"event.{event_id}"


def house_group(event_id: int, sight: str, language: str | None = None) -> str:
    """The House sockets of the event whose viewers share one sight (staff/roles.py `Sight`) and
    whose pages read one language (by default the site's): each group's part is rendered once,
    for every socket of the group."""
    return f"house.{event_id}.{sight}.{language or settings.LANGUAGE_CODE}"


def player_group(registration_id: int) -> str:
    return f"player.{registration_id}"


def places_group(event_id: int) -> str:
    return f"places.{event_id}"


def venue_group(event_id: int) -> str:
    """The venue's displays of the event (events.venue): the board opened by House, and House's
    display link. Only they hear the check-in code."""
    return f"venue.{event_id}"


@dataclass(frozen=True, slots=True)
class Snapshot:
    """One stream's state at one version, and the group that hears about it.

    A full frame carries the whole fragment (`html`) and the stream's data; a targeted update of
    the board or House carries, from the version `base` a page holds, only the pieces that changed
    (`parts`, by element id), the new order of the lists whose order changed (`order`: the ids,
    or when shorter the moves from the base's order, `targeting.reordered`) and the
    places that changed or that a pushed piece leaves to it (`places`, by element id). A
    targeted board update's data is what moved since `base` (`live.data_patch`).
    """

    group: str
    stream: str
    version: int
    data: Any | None
    # "update": the stream's next version; "snapshot": versions were merged on the way, so this
    # replaces what the client holds (what it would otherwise reload after seeing the gap).
    kind: str = "update"
    # The fragment the page swaps in for this stream, rendered once for every socket.
    html: str | None = None
    base: int | None = None
    bases: tuple[int, ...] = ()
    parts: dict[str, str] | None = None
    order: dict[str, Any] | None = None
    places: dict[str, str] | None = None
    # A player's snapshot is written in one language (`language`), one of those its version was
    # rendered in (`languages`): a socket whose page reads another skips it.
    language: str | None = None
    languages: tuple[str, ...] = ()

    def frame(self) -> dict[str, Any]:
        """What a socket receives."""
        frame: dict[str, Any] = {"type": self.kind, "stream": self.stream, "version": self.version}
        if self.base is not None:
            frame["base"] = self.base
        if len(self.bases) > 1:
            frame["bases"] = list(self.bases)
        if self.data is not None:
            frame["data"] = self.data
        if self.html is not None:
            frame["html"] = self.html
        if self.parts is not None:
            frame["parts"] = self.parts
        if self.order:
            frame["order"] = self.order
        if self.places:
            frame["places"] = self.places
        return frame

    @property
    def fragment(self) -> bool:
        """Whether the frame carries what the page shows (a House frame may not)."""
        return self.html is not None or self.parts is not None

    @property
    def unheard(self) -> bool:
        """A frame of the version alone, sent while no page of its audience was open
        (`live.targeting`): a page that hears it asks for the snapshots."""
        return self.stream in SWAPPED_STREAMS and self.data is None and not self.fragment

    def message(self) -> dict[str, Any]:
        """As sent through the channel layer: the socket frame encoded once, for every socket."""
        if self.stream == "venue":
            # Each display renders its own part: the address phones reach is the one it was
            # opened at, and a display link for an earlier code no longer shows the code.
            return {"type": VENUE_TYPE, "version": self.version, "data": self.data}
        if self.stream == "places":
            # Each player socket picks its own entry (`live.consumers`), so no phone receives
            # the whole table.
            return {
                "type": PLACES_TYPE,
                "stream": self.stream,
                "version": self.version,
                "data": self.data,
            }
        message = {
            "type": MESSAGE_TYPE,
            "stream": self.stream,
            "version": self.version,
            "frame": json.dumps(self.frame()),
            "fragment": self.fragment,
        }
        if self.language is not None:
            message |= {"language": self.language, "languages": list(self.languages)}
        return message


def send_to_group(group: str, message: dict[str, Any]) -> None:
    """The one way a message reaches a group's sockets (channel_layer.group_send), from
    synchronous code; nothing when no channel layer is configured."""
    send_in_order([(group, message)])


def send_in_order(messages: list[tuple[str, dict[str, Any]]]) -> None:
    """Each (group, message) in order, in one trip to the event loop."""
    from asgiref.sync import async_to_sync
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    if layer is not None and messages:
        async_to_sync(send_on)(layer, messages)


async def send_on(layer: Any, messages: list[tuple[str, dict[str, Any]]]) -> None:
    """Each (group, message) in order through `layer`, on the caller's event loop (the
    publisher keeps its own)."""
    for group, message in messages:
        await layer.group_send(group, message)
