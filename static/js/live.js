/*
 * Live updates (docs/rules.md sections 12.1 and 12.4).
 *
 * The page names its socket: <div data-live-socket="/ws/events/7/player/">. Every frame is
 *   {"type": "snapshot" | "update", "stream": "board" | "player" | "house", "version": n, "data": {...}}
 * "snapshot" answers a connect or a reload request; "update" follows a committed change and must
 * carry the next version of its stream. A gap means a message was lost, so we ask the server for
 * the snapshots again ({"type": "reload"}) rather than trust what we hold.
 *
 * The board's and House's updates are targeted: {"type": "update", "base": n, "parts": {id: html},
 * "order": {list id: [ids], or the moves {"gone": [ids], "at": [[id, index]]}}} builds on version `base` (not necessarily version - 1: the server may
 * merge changes), or on any of "bases" when it lists several (the versions recently sent or started
 * from): each part replaces the element with its id, each list in "order" gets its
 * children in that order (new ones from the parts, those not listed removed), and then each row
 * named in "places" ({id: text}) gets that text in its place cell ([data-place]): a board row's
 * place follows from the rows around it, so a pushed row comes without it and one change moves
 * many places, not many rows. A page that does not hold exactly `base` asks for the snapshots
 * instead; so does one that cannot place a part or a place, and one that hears a frame with
 * neither its fragment nor its parts (House's, while no page listened).
 *
 * Each accepted message fires `live:update` on document (detail: {stream, version, data}; a
 * targeted board update's data is what moved since `base`, live/data_patch.py) and
 * updates every element whose data-live-stream lists that stream:
 *   - with data-live-swap, the frame's "html" (rendered once on the server for every page of the
 *     audience) replaces the element's content; no HTTP request. The element first receives a
 *     cancelable `live:beforeswap`: a page that cancels it (a choice half made) calls
 *     syndicateLive.swapHeld(el) when it is done, which swaps in the newest fragment held;
 *     after a swap the element receives `live:swapped`;
 *   - without it, htmx refreshes the element (hx-get, hx-trigger="live-refresh").
 * House's "standby" stream (the standby copies' panel, house/copies.py) is always a whole
 * snapshot whose version is the time it was rendered; it is swapped in like any fragment.
 * The "places" stream ({high, low, ranked, final}) rewrites the player's place line
 * ([data-place-line]) in place, unless the panel shown was rendered at a newer event version.
 *
 * Optional attributes:
 *   data-live-versions='{"board": 12}' on the socket element: the versions the page was rendered
 *     at, so the first snapshot does not refetch what the page already shows;
 *   data-live-throttle="5000" on a refreshed element: refresh it at most that often (ms), for
 *     pages where every change in a large event would otherwise refetch the whole fragment;
 *   data-needs-connection on an action: disabled until the socket is live and while it reconnects.
 *     The server renders it `disabled data-live-disabled`, so no click lands before the socket is
 *     live; data-live-disabled marks the disabling as ours to undo (a page's own `disabled` alone
 *     is never undone here).
 *
 * Its words come from the page's language catalog ({% js_catalog %}: gettext, interpolate).
 *
 * No inline handlers and no eval: the strict CSP allows this file as it is.
 */
(function () {
  "use strict";

  var LABELS = {
    live: gettext("Live"),
    reconnecting: gettext("Reconnecting…"),
    offline: gettext("Offline"),
  };
  var CONNECTING = gettext("Connecting…"); // the "reconnecting" dot's words before the first connection
  var FIRST_DELAY = 500; // ms: the first retry's backoff ceiling, doubling up to MAX_DELAY
  var MAX_DELAY = 10000;
  var MIN_DELAY = 250; // ms: the shortest wait, so a failing server is never retried in a spin
  var OFFLINE_AFTER = 3; // failed attempts before the dot says offline
  var RELOAD_RETRY = 3000; // ms before asking again when a reload gets no answer
  var COALESCE = 50; // ms: a change usually moves two streams; refetch once for both

  var root = document.querySelector("[data-live-socket]");
  var live = { state: "reconnecting", versions: {} };
  window.syndicateLive = live;
  // Without a socket to wait for (no data-live-socket, or an old browser) the actions are plain
  // forms that work anyway: undo the server's "disabled until live", now and in every fragment.
  var socketless = !root || !("WebSocket" in window);
  document.addEventListener("htmx:load", function (event) {
    if (event.target && event.target.querySelectorAll) {
      guardActions(event.target);
    }
  });
  if (socketless) {
    guardActions(document);
    return;
  }

  var socket = null;
  var retryTimer = null;
  var failures = 0;
  var everLive = false; // a later connection is a reconnect: the page may have missed changes
  var resyncing = false; // the snapshots right after a reconnect
  var reloadAskedAt = 0;
  var stopped = false; // the server refused us (4xxx): retrying cannot help
  var leaving = false;

  try {
    live.versions = JSON.parse(root.getAttribute("data-live-versions") || "{}") || {};
  } catch (error) {
    live.versions = {};
  }

  // --- connection state: the dot, the note, and the actions that need the server -----------

  function setState(state) {
    live.state = state;
    // The first moments of a page load are not a lost connection: no alarm, no note.
    var lost = everLive || failures > 0;
    var words = state === "reconnecting" && !lost ? CONNECTING : LABELS[state];
    document.querySelectorAll(".conn").forEach(function (dot) {
      dot.setAttribute("data-state", state);
      dot.textContent = words;
    });
    // The page's offline note names the state in the dot's own words ([data-connection-words]).
    document.querySelectorAll("[data-connection-words]").forEach(function (label) {
      label.textContent = words;
    });
    // The note reads "Reconnecting… your saved cards and results are safe".
    document.body.classList.toggle("is-offline", state !== "live" && lost);
    guardActions(document);
  }

  function guardActions(scope) {
    var connected = socketless || live.state === "live";
    scope.querySelectorAll("[data-needs-connection]").forEach(function (el) {
      if (!connected && !el.disabled) {
        el.disabled = true;
        el.setAttribute("data-live-disabled", "");
      } else if (connected && el.hasAttribute("data-live-disabled")) {
        // Only undo our own disabling (here or server-rendered): a button the page disabled
        // itself (Confirm before a choice) has no marker and stays disabled.
        el.disabled = false;
        el.removeAttribute("data-live-disabled");
      }
    });
  }

  // --- refreshing the page's live fragments ------------------------------------------------

  var timers = new WeakMap(); // element -> {timer, last}

  function refresh(el) {
    var entry = timers.get(el) || { timer: null, last: -Infinity };
    timers.set(el, entry);
    if (entry.timer) {
      return; // already scheduled; it fetches the newest state anyway
    }
    var every = Number(el.getAttribute("data-live-throttle")) || 0;
    var wait = Math.max(COALESCE, entry.last + every - Date.now());
    entry.timer = setTimeout(function () {
      entry.timer = null;
      entry.last = Date.now();
      if (window.htmx) {
        window.htmx.trigger(el, "live-refresh");
      }
    }, wait);
  }

  function refreshStream(stream) {
    document.querySelectorAll("[data-live-stream]").forEach(function (el) {
      var streams = el.getAttribute("data-live-stream").split(/\s+/);
      if (el.hasAttribute("data-live-swap")) {
        return; // swapped from frames; a snapshot brings its fragment
      }
      if (stream === null || streams.indexOf(stream) !== -1) {
        refresh(el);
      }
    });
  }

  // --- swapping in pushed fragments ------------------------------------------------------------

  // element -> what a page asked to hold back, in order: {html} (the whole fragment, which makes
  // what came before it moot) or {parts, order, places} (a targeted update).
  var held = new WeakMap();
  var places = null; // the newest places frame: {version, data}

  function notify(el, type, cancelable) {
    var event = new CustomEvent(type, { bubbles: true, cancelable: cancelable, detail: {} });
    return el.dispatchEvent ? el.dispatchEvent(event) : true;
  }

  // A form posted without htmx is taking the page away: swapping now could pull out the form
  // before its submission leaves, so fragments wait (the next page starts fresh anyway).
  var navigating = false;
  window.addEventListener("submit", function (event) {
    var form = event.target;
    if (!event.defaultPrevented && form && form.hasAttribute && !form.hasAttribute("hx-post")) {
      navigating = true;
    }
  });
  window.addEventListener("pageshow", function () {
    navigating = false;
  });

  // An htmx request sent from inside a live element (House's check-in button, a player's tap)
  // must find its form still in the page when its answer comes: htmx places the answer's
  // out-of-band parts (the action's message) from there. Fragments for that element wait until
  // the answer is in, then go in after it, so the newest state still wins.
  var sending = new Set(); // elements whose htmx request is on its way
  var waiting = new Set(); // live elements whose fragments wait for one of them

  function sendingFrom(el) {
    var found = false;
    sending.forEach(function (elt) {
      if (el.contains && el.contains(elt)) {
        found = true;
      }
    });
    return found;
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    if (!event.defaultPrevented && event.detail && event.detail.elt) {
      sending.add(event.detail.elt);
    }
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    sending.delete(event.detail && event.detail.elt);
    waiting.forEach(function (el) {
      if (!sendingFrom(el)) {
        waiting.delete(el);
        release(el);
      }
    });
  });

  // An htmx answer (a House action's) replaces a live element's content with a render of its own
  // version, marked [data-rendered-version] in the fragment: it is a snapshot the page did not
  // hear over the socket. Frames up to that version are then behind what the page shows (held
  // ones are dropped, later ones ignored); an answer behind the frames the page already took
  // (answers overtaking each other, or a frame that came first) is followed by a reload, so the
  // parts of a live page never show two versions at once.
  document.addEventListener("htmx:afterSwap", function (event) {
    var el = event.detail && event.detail.target;
    if (!el || !el.hasAttribute || !el.hasAttribute("data-live-swap")) {
      return;
    }
    var marker = el.querySelector("[data-rendered-version]");
    var version = marker ? Number(marker.getAttribute("data-rendered-version")) : NaN;
    if (isNaN(version)) {
      return;
    }
    var stream = el.getAttribute("data-live-stream").split(/\s+/)[0];
    var queue = (held.get(el) || []).filter(function (change) {
      return change.version > version;
    });
    if (queue.length) {
      held.set(el, queue);
    } else {
      held.delete(el);
    }
    var last = live.versions[stream];
    if (last === undefined || version >= last) {
      live.versions[stream] = version;
    } else if (!queue.length || (queue[0].html === undefined && !(queue[0].base <= version))) {
      delete live.versions[stream];
      askReload();
    }
  });

  function swap(el, change) {
    var queue = change.html !== undefined ? [] : held.get(el) || [];
    queue.push(change);
    held.set(el, queue);
    if (navigating) {
      return;
    }
    if (sendingFrom(el)) {
      waiting.add(el);
      return;
    }
    release(el);
  }

  function release(el) {
    if (!held.has(el) || !notify(el, "live:beforeswap", true)) {
      return; // held until the page calls swapHeld
    }
    swapHeld(el);
  }

  function swapHeld(el) {
    var queue = held.get(el);
    if (queue === undefined || navigating) {
      return;
    }
    held.delete(el);
    var placed = true;
    queue.forEach(function (change) {
      if (change.html !== undefined) {
        var kept = keepers(el);
        el.innerHTML = change.html;
        restore(kept);
        prepare(el);
        placed = true;
      } else if (!applyParts(el, change)) {
        placed = false;
      }
    });
    showPlaces();
    notify(el, "live:swapped", false);
    if (!placed) {
      // A part found no place: what the page shows is not what the server built on.
      delete live.versions[queue[queue.length - 1].stream];
      askReload();
    }
  }
  live.swapHeld = swapHeld;

  // What belongs to this page alone survives a swap: [data-live-keep] (what the session shows)
  // and hx-preserve (a typed search, a chosen file) elements with an id stay as they are.
  function keepers(el) {
    var kept = [];
    if (el.querySelectorAll) {
      el.querySelectorAll("[data-live-keep][id], [hx-preserve][id]").forEach(function (old) {
        kept.push(old);
      });
    }
    return kept;
  }

  function restore(kept) {
    kept.forEach(function (old) {
      var fresh = document.getElementById(old.id);
      if (fresh && fresh !== old) {
        fresh.replaceWith(old);
      }
    });
  }

  function prepare(el) {
    addCsrf(el);
    if (window.htmx && window.htmx.process) {
      window.htmx.process(el);
    }
    guardActions(el);
  }

  function parse(html) {
    var template = document.createElement("template");
    template.innerHTML = html.trim();
    return template.content.firstElementChild;
  }

  function byId(el, id) {
    return el.querySelector("#" + CSS.escape(id));
  }

  // A targeted update: replace each part by its id, put each listed list in order, then set each
  // listed place. False when a part, a list or a place found no element (the page then asks for
  // the snapshots).
  function applyParts(el, change) {
    var placed = true;
    var loose = {}; // new pieces, placed by their list's order
    var spare = {}; // pieces taken out of a list, which another list may take in
    Object.keys(change.parts || {}).forEach(function (id) {
      var node = parse(change.parts[id]);
      if (!node) {
        return;
      }
      var old = byId(el, id);
      if (old) {
        var kept = keepers(old);
        old.replaceWith(node);
        restore(kept);
        prepare(node);
      } else {
        loose[id] = node;
      }
    });
    Object.keys(change.order || {}).forEach(function (listId) {
      var list = byId(el, listId);
      if (!list) {
        placed = false;
        return;
      }
      var wanted = change.order[listId];
      if (!Array.isArray(wanted)) {
        wanted = moved(list, wanted);
        if (!wanted) {
          placed = false;
          return;
        }
      }
      var listed = {};
      wanted.forEach(function (id) {
        listed[id] = true;
      });
      Array.prototype.slice.call(list.children).forEach(function (child) {
        if (!listed[child.id]) {
          child.remove();
          spare[child.id] = child; // it may have moved to another list
        }
      });
      wanted.forEach(function (id, index) {
        var node = loose[id] || byId(list, id) || spare[id] || byId(el, id);
        if (!node) {
          placed = false;
          return;
        }
        if (loose[id]) {
          delete loose[id];
          prepare(node);
        }
        delete spare[id];
        if (list.children[index] !== node) {
          list.insertBefore(node, list.children[index] || null);
        }
      });
    });
    Object.keys(change.places || {}).forEach(function (id) {
      var row = byId(el, id);
      var cell = row && row.querySelector("[data-place]");
      if (!cell) {
        placed = false;
        return;
      }
      if (cell.textContent !== change.places[id]) {
        cell.textContent = change.places[id];
      }
    });
    return placed && Object.keys(loose).length === 0;
  }

  // A list's order sent as moves from the base's (live/targeting.py `reordered`): the ids neither
  // gone nor moved keep their order, and each moved or new id goes to its index. Null when an
  // index is past the list (the page does not hold the base).
  function moved(list, moves) {
    var out = {};
    (moves.gone || []).concat((moves.at || []).map(function (move) { return move[0]; }))
      .forEach(function (id) { out[id] = true; });
    var ids = [];
    Array.prototype.slice.call(list.children).forEach(function (child) {
      if (child.id && !out[child.id]) {
        ids.push(child.id);
      }
    });
    var fits = true;
    (moves.at || []).forEach(function (move) {
      if (move[1] > ids.length) {
        fits = false;
      } else {
        ids.splice(move[1], 0, move[0]);
      }
    });
    return fits ? ids : null;
  }

  // A pushed fragment was rendered outside any request, so its forms carry no CSRF token: the
  // page's own (base.html's hx-headers) goes into each form that posts without htmx.
  function addCsrf(el) {
    if (!el.querySelectorAll) {
      return;
    }
    var token = null;
    try {
      token = JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"];
    } catch (error) {
      token = null;
    }
    if (!token) {
      return;
    }
    el.querySelectorAll('form[method="post"]').forEach(function (form) {
      if (!form.querySelector('input[name="csrfmiddlewaretoken"]')) {
        var input = document.createElement("input");
        input.type = "hidden";
        input.name = "csrfmiddlewaretoken";
        input.value = token;
        form.prepend(input);
      }
    });
  }

  function swapped(stream) {
    var found = [];
    document.querySelectorAll("[data-live-stream]").forEach(function (el) {
      var streams = el.getAttribute("data-live-stream").split(/\s+/);
      if (el.hasAttribute("data-live-swap") && streams.indexOf(stream) !== -1) {
        found.push(el);
      }
    });
    return found;
  }

  function swapStream(message) {
    swapped(message.stream).forEach(function (el) {
      if (typeof message.html === "string") {
        swap(el, { html: message.html, stream: message.stream, version: message.version });
      } else if (message.parts || message.places) {
        swap(el, {
          parts: message.parts,
          order: message.order,
          places: message.places,
          stream: message.stream,
          version: message.version,
          base: message.base,
        });
      }
    });
  }

  // A place as the page's language writes it, like the server's `ordinal` filter
  // (web/templatetags/player_page.py): "3rd", "3.º", "1er" and "3e".
  function ordinal(place) {
    var language = (document.documentElement && document.documentElement.lang) || "en";
    if (language === "es") {
      return place + ".º";
    }
    if (language === "fr") {
      return place + (place === 1 ? "er" : "e");
    }
    var tens = place % 100;
    var suffix = tens >= 10 && tens <= 20 ? "th" : { 1: "st", 2: "nd", 3: "rd" }[place % 10] || "th";
    return place + suffix;
  }

  // The same words as web/_player.html: "High 3rd of 12 · Low 5th of 12 (provisional)".
  function placeText(data) {
    var p = document.createElement("p");
    if (data.high) {
      p.textContent = interpolate(
        gettext("High %(high)s of %(ranked)s · Low %(low)s of %(ranked)s (provisional)"),
        { high: ordinal(data.high), low: ordinal(data.low), ranked: data.ranked },
        true
      );
    } else {
      p.className = "muted";
      p.textContent = gettext("Standings begin with your first kept card.");
    }
    return p;
  }

  function showPlaces() {
    if (!places || places.data.final) {
      return; // a final place comes with the player's own panel
    }
    document.querySelectorAll("[data-place-line]").forEach(function (line) {
      var shown = Number(line.getAttribute("data-event-version"));
      if (places.version > shown && line.getAttribute("data-final") === null) {
        line.replaceChildren(placeText(places.data));
        line.setAttribute("data-event-version", String(places.version));
      }
    });
  }

  // --- messages ------------------------------------------------------------------------------

  function accept(message) {
    live.versions[message.stream] = message.version;
    document.dispatchEvent(
      new CustomEvent("live:update", {
        detail: { stream: message.stream, version: message.version, data: message.data },
      })
    );
  }

  function show(message) {
    if (message.stream === "places" && message.data) {
      places = { version: message.version, data: message.data };
      showPlaces();
    }
    swapStream(message);
  }

  function askReload() {
    if (!socket || (reloadAskedAt && Date.now() - reloadAskedAt < RELOAD_RETRY)) {
      return; // one request at a time; its answer covers every stream
    }
    reloadAskedAt = Date.now();
    socket.send(JSON.stringify({ type: "reload" }));
  }

  function onMessage(event) {
    var message;
    try {
      message = JSON.parse(event.data);
    } catch (error) {
      return;
    }
    if (message && message.type === "announcement") {
      // House's announcement (live/announcement_frames.py): no stream state, the page shows it.
      document.dispatchEvent(new CustomEvent("live:announcement", { detail: message }));
      return;
    }
    if (!message || typeof message.stream !== "string" || typeof message.version !== "number") {
      return;
    }
    if (live.state !== "live") {
      failures = 0;
      setState("live");
    }
    var last = live.versions[message.stream];
    var snapshot = message.type === "snapshot";
    if (snapshot) {
      reloadAskedAt = 0;
    } else {
      resyncing = false;
    }

    var shown =
      typeof message.html === "string" || Boolean(message.parts) || Boolean(message.places);
    if (!shown && swapped(message.stream).length) {
      // House's frame while no House page listened: it carries neither; the snapshots do.
      if (last === undefined || message.version > last) {
        askReload();
      }
      return;
    }
    if (typeof message.base === "number") {
      var bases = Array.isArray(message.bases) ? message.bases : [message.base];
      if (last !== undefined && bases.indexOf(last) !== -1) {
        accept(message);
        show(message);
      } else if (last === undefined || message.version > last) {
        askReload(); // built on a version this page does not hold
      }
      return;
    }
    if (snapshot && resyncing) {
      // After a reconnect: take the server's word; fragments without one refetch once.
      var first = Object.keys(live.versions).length === 0;
      accept(message);
      show(message);
      if (first) {
        refreshStream(null);
      }
      return;
    }
    if (last === undefined || (snapshot && message.version > last) || message.version === last + 1) {
      accept(message);
      show(message);
      refreshStream(message.stream);
    } else if (message.version > last + 1) {
      askReload(); // a gap: something was lost on the way
    }
    // version <= last: already seen (or older than a snapshot we hold); ignore it.
  }

  // --- the socket and its reconnects ---------------------------------------------------------

  function connect() {
    clearTimeout(retryTimer);
    retryTimer = null;
    if (socket || stopped || leaving) {
      return;
    }
    if (navigator.onLine === false) {
      setState("offline"); // the "online" event brings us back
      return;
    }
    var scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
    var current = new WebSocket(scheme + window.location.host + root.getAttribute("data-live-socket"));
    socket = current;
    current.addEventListener("open", function () {
      if (everLive) {
        resyncing = true;
        live.versions = {}; // whatever we held may be stale; the snapshots start afresh
      }
    });
    current.addEventListener("message", function (event) {
      everLive = true;
      onMessage(event);
    });
    current.addEventListener("close", function (event) {
      if (socket !== current) {
        return;
      }
      socket = null;
      if (leaving) {
        return;
      }
      if (event.code >= 4000 && event.code < 5000) {
        if (root.hasAttribute("data-live-reload-refused")) {
          // A display link's board (web/display.py): revoked, or its series moved on. The page
          // says which: a plain "revoked" page, or the next event's board.
          stopped = true;
          setTimeout(function () { window.location.reload(); }, 1000);
          return;
        }
        stopped = true; // refused (signed out, not allowed, no such event)
        failures = OFFLINE_AFTER;
        setState("offline");
        return;
      }
      failures += 1;
      setState(failures >= OFFLINE_AFTER || navigator.onLine === false ? "offline" : "reconnecting");
      scheduleRetry();
    });
  }

  function scheduleRetry() {
    var ceiling = Math.min(MAX_DELAY, FIRST_DELAY * Math.pow(2, failures - 1));
    // Full jitter: after a server restart (or a venue's Wi-Fi drop) every client fails at once;
    // a wait uniform over the whole window, not only its upper half, spreads their reconnects
    // instead of bunching them near the ceiling. MIN_DELAY is a floor, not a spike at the floor:
    // the wait is uniform between it and the ceiling.
    retryTimer = setTimeout(connect, MIN_DELAY + Math.random() * (ceiling - MIN_DELAY));
  }

  function retryNow() {
    if (!socket && !stopped) {
      connect();
    }
  }

  window.addEventListener("online", retryNow);
  window.addEventListener("offline", function () {
    setState("offline");
    if (socket) {
      socket.close(); // a dead network does not always close the socket by itself
    }
  });
  // Phones suspend background tabs; when the page is seen again, don't wait out the backoff.
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      retryNow();
    }
  });
  window.addEventListener("pagehide", function () {
    leaving = true;
  });
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) {
      leaving = false; // back from the page cache: the socket is gone
      retryNow();
    }
  });

  setState("reconnecting");
  connect();
})();
