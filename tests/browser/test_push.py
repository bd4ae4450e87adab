"""Poker push in a real browser: the installable app, its service worker, the setting's toggle."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from push.models import PushSubscription
from tests.browser.conftest import ARTIFACTS
from tests.browser.test_event_flow import PHONE, WAIT, sign_in
from tests.factories import make_user

# Headless Chromium cannot reach a real push service: the page's PushManager is replaced by a
# stand-in that hands out a subscription the way a browser would (on FCM, as Chromium does; the
# server accepts endpoints on the browsers' push services only).
FAKE_PUSH = """
(() => {
  let current = null;
  const make = () => ({
    endpoint: "https://fcm.googleapis.com/fcm/send/abc123",
    toJSON() {
      return {
        endpoint: this.endpoint,
        keys: {
          p256dh: "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1Xbjh"
            + "azAkj7I99e8QcYP7DkM",
          auth: "tBHItJI5svbpez7KI4CCXg",
        },
      };
    },
    unsubscribe() { current = null; return Promise.resolve(true); },
  });
  PushManager.prototype.subscribe = function (options) {
    if (!options || !options.applicationServerKey) return Promise.reject(new Error("no key"));
    window.__subscribedWithKeyLength = options.applicationServerKey.length;
    current = make();
    return Promise.resolve(current);
  };
  PushManager.prototype.getSubscription = function () { return Promise.resolve(current); };
  Notification.requestPermission = () => Promise.resolve("granted");
})();
"""


@pytest.mark.django_db(transaction=True)
def test_the_app_is_installable_with_a_service_worker(server: str, browser: Any) -> None:
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    page.goto(f"{server}/")
    scope = page.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)")
    assert scope == f"{server}/"

    manifest = page.request.get(f"{server}/manifest.webmanifest")
    assert manifest.headers["content-type"].startswith("application/manifest+json")
    data = manifest.json()
    assert data["name"] and data["short_name"] and data["display"] == "standalone"
    assert data["start_url"].startswith("/")
    sizes = {icon["sizes"] for icon in data["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in data["icons"]:
        assert page.request.get(f"{server}{icon['src']}").headers["content-type"] == "image/png"
    link = page.locator("link[rel=manifest]").get_attribute("href")
    assert link == "/manifest.webmanifest"
    context.close()


@pytest.mark.django_db(transaction=True)
def test_the_poker_push_toggle_subscribes_and_unsubscribes(server: str, browser: Any) -> None:
    player = make_user("Pia Push")
    context = browser.new_context(viewport=PHONE)
    context.add_init_script(FAKE_PUSH)
    page = context.new_page()
    sign_in(page, server, player.email)
    page.goto(f"{server}/settings/")
    status = page.locator("[data-push-status]")
    expect(status).to_have_text("Poker push is off for this device.", timeout=WAIT)

    page.check("[data-push-toggle]")
    expect(status).to_contain_text("Poker push is on for this device", timeout=WAIT)
    page.screenshot(path=str(ARTIFACTS / "12-poker-push-on.png"), full_page=True)
    assert page.evaluate("window.__subscribedWithKeyLength") == 65  # an uncompressed P-256 key
    subscription = PushSubscription.objects.get(user=player)
    assert subscription.endpoint == "https://fcm.googleapis.com/fcm/send/abc123"

    page.uncheck("[data-push-toggle]")
    expect(status).to_have_text("Poker push is off for this device.", timeout=WAIT)
    assert not PushSubscription.objects.filter(user=player).exists()
    context.close()
