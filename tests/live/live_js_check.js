// Runs static/js/live.js against a small stand-in DOM, fake sockets and a manual clock.
// Usage: node live_js_check.js path/to/live.js  (exits non-zero naming the first failure)
"use strict";

const fs = require("fs");
const vm = require("vm");
const assert = require("assert");

const SOURCE = fs.readFileSync(process.argv[2], "utf8");

function makeElement(attrs) {
  const attributes = Object.assign({}, attrs || {});
  return {
    disabled: false,
    textContent: "",
    getAttribute: (name) => (name in attributes ? attributes[name] : null),
    setAttribute: (name, value) => { attributes[name] = String(value); },
    hasAttribute: (name) => name in attributes,
    removeAttribute: (name) => { delete attributes[name]; },
  };
}

function world(options) {
  const opts = options || {};
  const listeners = { document: {}, window: {} };
  const clock = { now: 1000, timers: [], nextId: 1 };
  const sockets = [];
  const triggered = [];
  const updates = [];
  const root = makeElement(Object.assign({ "data-live-socket": "/ws/events/7/player/" }, opts.root));
  const dot = makeElement({ "data-state": "reconnecting" });
  // As the server renders an action: disabled until the socket is live.
  const button = makeElement({ "data-needs-connection": "", "data-live-disabled": "" });
  button.disabled = true;
  const pageDisabled = makeElement({ "data-needs-connection": "" });
  pageDisabled.disabled = true; // disabled by the page itself (e.g. Confirm before a choice)
  const playerPart = makeElement({ "data-live-stream": "player board" });
  const housePart = makeElement({ "data-live-stream": "house" });
  // A fragment swapped from frames (the board page), and a place line ([data-place-line]).
  const swapPart = makeElement({ "data-live-stream": "board", "data-live-swap": "" });
  swapPart.innerHTML = "";
  swapPart.querySelectorAll = () => [];
  swapPart.querySelector = () => null;
  const swapEvents = [];
  swapPart.dispatchEvent = (event) => { swapEvents.push(event.type); if (opts.holdSwap && event.type === "live:beforeswap") return false; return true; };
  const placeLine = makeElement({ "data-event-version": "3" });
  placeLine.children = [];
  placeLine.replaceChildren = (child) => { placeLine.children = [child]; };
  const bodyClasses = new Set();

  const selectors = {
    "[data-live-socket]": opts.noRoot ? [] : [root],
    ".conn": [dot],
    "[data-needs-connection]": [button, pageDisabled],
    "[data-live-stream]": opts.swap ? [swapPart] : [playerPart, housePart],
    "[data-place-line]": opts.swap ? [placeLine] : [],
  };
  const on = (where) => (type, fn) => { (listeners[where][type] = listeners[where][type] || []).push(fn); };
  const fire = (where, type, event) => (listeners[where][type] || []).forEach((fn) => fn(event || {}));

  class FakeSocket {
    constructor(url) {
      this.url = url;
      this.sent = [];
      this.handlers = {};
      sockets.push(this);
    }
    addEventListener(type, fn) { (this.handlers[type] = this.handlers[type] || []).push(fn); }
    emit(type, event) { (this.handlers[type] || []).forEach((fn) => fn(event || {})); }
    send(text) { this.sent.push(JSON.parse(text)); }
    close() { this.emit("close", { code: 1006 }); }
    open() { this.emit("open"); }
    receive(message) { this.emit("message", { data: JSON.stringify(message) }); }
  }

  const document = {
    body: { classList: { toggle: (name, on) => (on ? bodyClasses.add(name) : bodyClasses.delete(name)) } },
    visibilityState: "visible",
    querySelector: (sel) => (selectors[sel] || [])[0] || null,
    querySelectorAll: (sel) => selectors[sel] || [],
    addEventListener: on("document"),
    dispatchEvent: (event) => { if (event.type === "live:update") updates.push(event.detail); },
    createElement: () => ({ className: "", textContent: "" }),
    documentElement: { lang: "en" },
  };
  const navigator = { onLine: opts.onLine !== false };
  const window = {
    location: { protocol: opts.https ? "https:" : "http:", host: "127.0.0.1:8000" },
    addEventListener: on("window"),
    htmx: { trigger: (el, name) => triggered.push([el, name]) },
  };
  if (!opts.noWebSocket) window.WebSocket = FakeSocket;
  const context = {
    window, document, navigator, WebSocket: FakeSocket, WeakMap, JSON, Math: Object.create(Math),
    Object, Number, console, CSS: { escape: (text) => text },
    Date: { now: () => clock.now },
    // The English catalog's functions, as Django's JavaScriptCatalog defines them.
    gettext: (text) => text,
    interpolate: (fmt, obj, named) =>
      named ? fmt.replace(/%\(\w+\)s/g, (m) => String(obj[m.slice(2, -2)])) : fmt,
    CustomEvent: class { constructor(type, init) { this.type = type; this.detail = init.detail; } },
    setTimeout: (fn, ms) => { const id = clock.nextId++; clock.timers.push({ id, at: clock.now + ms, fn }); return id; },
    clearTimeout: (id) => { clock.timers = clock.timers.filter((t) => t.id !== id); },
  };
  context.Math.random = () => (opts.random === undefined ? 0.5 : opts.random);
  vm.createContext(context);
  vm.runInContext(SOURCE, context);

  function advance(ms) {
    const until = clock.now + ms;
    for (;;) {
      clock.timers.sort((a, b) => a.at - b.at);
      const next = clock.timers[0];
      if (!next || next.at > until) break;
      clock.timers.shift();
      clock.now = next.at;
      next.fn();
    }
    clock.now = until;
  }
  return {
    window, navigator, sockets, triggered, updates, dot, button, pageDisabled, playerPart,
    housePart, swapPart, swapEvents, placeLine, bodyClasses, advance, fire, live: window.syndicateLive,
    socket: () => sockets[sockets.length - 1],
    refreshed: () => triggered.splice(0).map(([el]) => (el === playerPart ? "player" : "house")),
  };
}

const plain = (value) => JSON.parse(JSON.stringify(value)); // objects made inside the sandbox
const snapshot = (stream, version) => ({ type: "snapshot", stream, version, data: { version } });
const update = (stream, version) => ({ type: "update", stream, version, data: { version } });

const checks = {
  "it swaps pushed fragments in and asks nothing over HTTP"() {
    const w = world({ swap: true });
    const s = w.socket();
    s.open();
    s.receive(Object.assign(snapshot("board", 4), { html: "<p>four</p>" }));
    s.receive(Object.assign(update("board", 5), { html: "<p>five</p>" }));
    w.advance(5000);
    assert.strictEqual(w.swapPart.innerHTML, "<p>five</p>");
    assert.deepStrictEqual(w.triggered, [], "no refetch");
    assert.deepStrictEqual(w.swapEvents, ["live:beforeswap", "live:swapped", "live:beforeswap", "live:swapped"]);
    s.receive(Object.assign(update("board", 7), { html: "<p>seven</p>" }));
    assert.strictEqual(w.swapPart.innerHTML, "<p>five</p>", "a gap is not shown");
    assert.deepStrictEqual(s.sent, [{ type: "reload" }]);
  },

  "a targeted update builds only on the version the page holds"() {
    const w = world({ swap: true });
    const s = w.socket();
    s.open();
    s.receive(Object.assign(snapshot("board", 4), { html: "<p>four</p>" }));
    // Merged changes: version 6 on base 4 is taken (no reload), with its parts.
    s.receive({ type: "update", stream: "board", version: 6, base: 4, parts: {} });
    assert.strictEqual(w.live.versions.board, 6);
    assert.deepStrictEqual(s.sent, []);
    assert.deepStrictEqual(w.swapEvents.slice(-2), ["live:beforeswap", "live:swapped"]);
    // Built on a version this page never held: not shown, the snapshots asked for instead.
    s.receive({ type: "update", stream: "board", version: 8, base: 7, parts: {} });
    assert.strictEqual(w.live.versions.board, 6);
    assert.deepStrictEqual(s.sent, [{ type: "reload" }]);
    // One that builds on any of several versions, this page's among them, is taken.
    s.receive({ type: "update", stream: "board", version: 7, base: 6, bases: [5, 6], parts: {} });
    assert.strictEqual(w.live.versions.board, 7);
    assert.deepStrictEqual(s.sent, [{ type: "reload" }], "no second reload");
    // An old one (already covered) is ignored.
    w.advance(5000);
    s.receive({ type: "update", stream: "board", version: 5, base: 4, parts: {} });
    assert.strictEqual(w.live.versions.board, 7);
    assert.deepStrictEqual(s.sent, [{ type: "reload" }]);
    s.receive(Object.assign(snapshot("board", 8), { html: "<p>eight</p>" }));
    assert.strictEqual(w.swapPart.innerHTML, "<p>eight</p>");
    assert.deepStrictEqual(w.triggered, [], "no refetch");
  },

  "a targeted update sets the places it carries, and asks for the snapshots when one has no row"() {
    const w = world({ swap: true });
    const s = w.socket();
    s.open();
    s.receive(Object.assign(snapshot("board", 4), { html: "<p>four</p>" }));
    const cell = { textContent: "7" };
    const row = { querySelector: (sel) => (sel === "[data-place]" ? cell : null) };
    w.swapPart.querySelector = (sel) => (sel === "#board-row-9" ? row : null);
    // Places alone (no row changed, one row's place moved) are something to show.
    s.receive({ type: "update", stream: "board", version: 5, base: 4, places: { "board-row-9": "3" } });
    assert.strictEqual(cell.textContent, "3");
    assert.strictEqual(w.live.versions.board, 5);
    assert.deepStrictEqual(s.sent, []);
    // A place for a row the page does not have: what it shows is not what the server built on.
    s.receive({ type: "update", stream: "board", version: 6, base: 5, parts: {}, places: { "board-row-8": "1" } });
    assert.strictEqual(w.live.versions.board, undefined);
    assert.deepStrictEqual(s.sent, [{ type: "reload" }]);
    assert.deepStrictEqual(w.triggered, [], "no refetch");
  },

  "a frame with neither its fragment nor its parts asks for the snapshots, not over HTTP"() {
    const w = world({ swap: true });
    const s = w.socket();
    s.open();
    s.receive(Object.assign(snapshot("board", 4), { html: "<p>four</p>" }));
    s.receive({ type: "update", stream: "board", version: 5 });
    w.advance(5000);
    assert.strictEqual(w.live.versions.board, 4, "nothing to show: the version is not taken");
    assert.deepStrictEqual(s.sent, [{ type: "reload" }]);
    assert.deepStrictEqual(w.triggered, [], "no refetch");
    assert.strictEqual(w.swapPart.innerHTML, "<p>four</p>");
  },

  "it holds a fragment the page holds back until asked"() {
    const w = world({ swap: true, holdSwap: true });
    const s = w.socket();
    s.open();
    s.receive(Object.assign(snapshot("board", 4), { html: "<p>four</p>" }));
    assert.strictEqual(w.swapPart.innerHTML, "");
    w.live.swapHeld(w.swapPart);
    assert.strictEqual(w.swapPart.innerHTML, "<p>four</p>");
  },

  "it rewrites the place line from newer places only"() {
    const w = world({ swap: true });
    const s = w.socket();
    s.open();
    s.receive({ type: "snapshot", stream: "places", version: 3, data: { high: 1, low: 2, ranked: 3, final: false } });
    assert.deepStrictEqual(w.placeLine.children, [], "the panel shows version 3 already");
    s.receive({ type: "snapshot", stream: "places", version: 6, data: { high: 2, low: 1, ranked: 4, final: false } });
    assert.strictEqual(w.placeLine.children[0].textContent, "High 2nd of 4 · Low 1st of 4 (provisional)");
    assert.strictEqual(w.placeLine.getAttribute("data-event-version"), "6");
    s.receive({ type: "snapshot", stream: "places", version: 5, data: { high: 9, low: 9, ranked: 9, final: false } });
    assert.strictEqual(w.placeLine.children[0].textContent, "High 2nd of 4 · Low 1st of 4 (provisional)");
    assert.deepStrictEqual(w.triggered, []);
  },

  "it connects to the page's socket with the page's scheme"() {
    assert.strictEqual(world().socket().url, "ws://127.0.0.1:8000/ws/events/7/player/");
    assert.strictEqual(world({ https: true }).socket().url, "wss://127.0.0.1:8000/ws/events/7/player/");
  },

  "it is live on the first snapshot and enables actions then"() {
    const w = world();
    assert.strictEqual(w.dot.getAttribute("data-state"), "reconnecting");
    assert.strictEqual(w.dot.textContent, "Connecting…");
    assert.strictEqual(w.button.disabled, true);
    w.socket().open();
    assert.strictEqual(w.button.disabled, true, "an open socket is not live until its snapshot");
    assert(!w.bodyClasses.has("is-offline"), "no offline note while first connecting");
    w.socket().receive(snapshot("board", 4));
    assert.strictEqual(w.live.state, "live");
    assert.strictEqual(w.dot.getAttribute("data-state"), "live");
    assert.strictEqual(w.dot.textContent, "Live");
    assert.strictEqual(w.button.disabled, false);
    assert.strictEqual(w.pageDisabled.disabled, true, "a button the page disabled stays disabled");
  },

  "it accepts the next version, ignores old ones and reloads on a gap"() {
    const w = world();
    const s = w.socket();
    s.open();
    s.receive(snapshot("board", 4));
    s.receive(snapshot("player", 2));
    w.advance(100);
    assert.deepStrictEqual(w.refreshed(), ["player"], "one refresh for two streams at once");
    s.receive(update("board", 5));
    s.receive(update("board", 5));
    s.receive(update("board", 3));
    w.advance(100);
    assert.deepStrictEqual(plain(w.live.versions), { board: 5, player: 2 });
    assert.deepStrictEqual(w.updates.map((u) => [u.stream, u.version]), [["board", 4], ["player", 2], ["board", 5]]);
    assert.deepStrictEqual(w.refreshed(), ["player"]);
    assert.deepStrictEqual(s.sent, []);
    s.receive(update("board", 7));
    s.receive(update("board", 8));
    assert.deepStrictEqual(s.sent, [{ type: "reload" }], "one reload request per gap");
    assert.strictEqual(w.live.versions.board, 5);
    s.receive(snapshot("board", 8));
    s.receive(snapshot("player", 2));
    assert.strictEqual(w.live.versions.board, 8);
    w.advance(100);
    assert.deepStrictEqual(w.refreshed(), ["player"]);
  },

  "it refreshes only the fragments that list the stream"() {
    const w = world({ root: { "data-live-socket": "/ws/events/7/house/" } });
    const s = w.socket();
    s.open();
    s.receive(snapshot("house", 1));
    w.advance(100);
    assert.deepStrictEqual(w.refreshed(), ["house"]);
  },

  "it skips the first snapshot when the page was rendered at that version"() {
    const w = world({ root: { "data-live-versions": '{"board": 4, "player": 2}' } });
    const s = w.socket();
    s.open();
    s.receive(snapshot("board", 4));
    s.receive(snapshot("player", 2));
    w.advance(100);
    assert.deepStrictEqual(w.refreshed(), []);
    assert.strictEqual(w.live.state, "live");
    s.receive(update("board", 5));
    w.advance(100);
    assert.deepStrictEqual(w.refreshed(), ["player"]);
  },

  "it reconnects with backoff, goes offline after three failures and resyncs"() {
    const w = world();
    let s = w.socket();
    s.open();
    s.receive(snapshot("board", 4));
    s.emit("close", { code: 1006 });
    assert.strictEqual(w.live.state, "reconnecting");
    assert.strictEqual(w.dot.textContent, "Reconnecting…");
    assert(w.bodyClasses.has("is-offline"));
    assert.strictEqual(w.button.disabled, true);
    const delays = [];
    for (let attempt = 0; attempt < 6; attempt++) {
      const before = w.sockets.length;
      let waited = 0;
      while (w.sockets.length === before) { w.advance(50); waited += 50; }
      delays.push(waited);
      w.socket().emit("close", { code: 1006 });
    }
    // Ceilings of 0.5 s doubling to 10 s, full jitter between 250 ms and the ceiling (here
    // halfway: 375, 625, 1125, 2125, 4125, 5125 ms, seen in 50 ms steps).
    assert.deepStrictEqual(delays, [400, 650, 1150, 2150, 4150, 5150]);
    assert.strictEqual(w.live.state, "offline");
    assert.strictEqual(w.dot.textContent, "Offline");
    while (w.sockets.length === 7) w.advance(50);
    w.refreshed();
    s = w.socket();
    s.open();
    assert.deepStrictEqual(plain(w.live.versions), {}, "a reconnect starts from fresh snapshots");
    s.receive(snapshot("board", 9));
    s.receive(snapshot("player", 3));
    w.advance(100);
    assert.deepStrictEqual(w.refreshed().sort(), ["house", "player"], "every fragment once");
    assert.strictEqual(w.live.state, "live");
    assert(!w.bodyClasses.has("is-offline"));
    assert.strictEqual(w.button.disabled, false);
    s.receive(update("board", 10));
    w.advance(100);
    assert.deepStrictEqual(w.refreshed(), ["player"]);
  },

  "it spreads retries over the whole window, never below the floor"() {
    const waits = (random) => {
      const w = world({ random });
      const delays = [];
      for (let attempt = 0; attempt < 6; attempt++) {
        const before = w.sockets.length;
        w.socket().emit("close", { code: 1006 });
        let waited = 0;
        while (w.sockets.length === before) { w.advance(10); waited += 10; }
        delays.push(waited);
      }
      return delays;
    };
    assert.deepStrictEqual(waits(0), [250, 250, 250, 250, 250, 250], "the floor");
    assert.deepStrictEqual(waits(0.999), [500, 1000, 2000, 4000, 8000, 10000], "the ceilings");
  },

  "it enables the actions at once when there is no socket to wait for"() {
    for (const opts of [{ noRoot: true }, { noWebSocket: true }]) {
      const w = world(opts);
      assert.strictEqual(w.sockets.length, 0);
      assert.strictEqual(w.button.disabled, false, JSON.stringify(opts));
      assert.strictEqual(w.button.hasAttribute("data-live-disabled"), false);
      assert.strictEqual(w.pageDisabled.disabled, true, "a button the page disabled stays disabled");
      assert.strictEqual(w.dot.getAttribute("data-state"), "reconnecting", "the dot is left alone");
    }
  },

  "it stops on a refusal"() {
    const w = world();
    w.socket().open();
    w.socket().emit("close", { code: 4403 });
    w.advance(60000);
    assert.strictEqual(w.sockets.length, 1);
    assert.strictEqual(w.live.state, "offline");
  },

  "it waits for the network when the browser is offline"() {
    const w = world();
    w.socket().open();
    w.socket().receive(snapshot("board", 1));
    w.navigator.onLine = false;
    w.fire("window", "offline");
    assert.strictEqual(w.live.state, "offline");
    w.advance(60000);
    assert.strictEqual(w.sockets.length, 1);
    w.navigator.onLine = true;
    w.fire("window", "online");
    assert.strictEqual(w.sockets.length, 2);
  },

  "it throttles a fragment that asks for it"() {
    const w = world();
    w.playerPart.setAttribute("data-live-throttle", "5000");
    const s = w.socket();
    s.open();
    s.receive(snapshot("board", 1));
    w.advance(100);
    assert.deepStrictEqual(w.refreshed(), ["player"]);
    s.receive(update("board", 2));
    w.advance(1000);
    s.receive(update("board", 3));
    w.advance(1000);
    assert.deepStrictEqual(w.refreshed(), []);
    w.advance(3000);
    assert.deepStrictEqual(w.refreshed(), ["player"], "one refresh for both, once allowed");
  },
};

let failed = 0;
for (const [name, check] of Object.entries(checks)) {
  try {
    check();
    console.log("ok   " + name);
  } catch (error) {
    failed += 1;
    console.log("FAIL " + name + "\n" + (error.stack || error));
  }
}
process.exit(failed ? 1 : 0);
