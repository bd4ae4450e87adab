"""A Celery worker killed (SIGKILL) inside a reminder delivery.

The push stand-in takes the message (decrypts and counts it) and then holds its answer, so the
kill lands while the worker waits for the push service: the POST reached the service, the worker
never learned it. `deliver_reminder` is acknowledged late, so the message comes back and the POST
is made again. What the system keeps to once is the PushDelivery row: one per pending selection
and device, claimed once by a conditional update; the push service may see the same message
twice.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator

import pytest

from push.keys import VapidKeys
from push.models import DeliveryStatus, PushDelivery
from tests.faults.processes import Processes, app_env, publish, report
from tests.faults.pushing import SlowPushService, delivery_of, due_offer, sweep_once_more
from tests.waiting import wait_until

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def push_service(vapid: VapidKeys) -> Iterator[SlowPushService]:
    with SlowPushService(vapid.public_key) as service:
        yield service


def test_a_solo_worker_killed_mid_delivery_resends_it_after_the_visibility_timeout(
    processes: Processes, vapid: VapidKeys, push_service: SlowPushService
) -> None:
    redis_server = processes.redis()
    # A short visibility timeout (3 s instead of 3600 s) so the lost message comes back in time.
    env = app_env(
        redis_server.url,
        DJANGO_SETTINGS_MODULE="tests.faults.worker_settings",
        VAPID_PUBLIC_KEY=vapid.public_key,
        VAPID_PRIVATE_KEY=vapid.private_key,
    )
    first = processes.worker("worker-1", env, pool="solo")
    _, offer = due_offer(push_service)
    first.wait_ready()

    publish(redis_server.url, "push.tasks.send_reminder", offer.pk)  # the countdown fires
    wait_until(push_service.holding.is_set, "the worker's POST to reach the push service")
    during = delivery_of(offer)
    assert (during.status, during.attempts) == (DeliveryStatus.PENDING, 1)
    unacked = redis_server.client().hlen("unacked")
    first.kill()
    killed_at = time.monotonic()
    push_service.release.set()

    second = processes.worker("worker-2", env, pool="solo")
    second.wait_ready()
    push_service.wait_for(2)
    wait_until(lambda: delivery_of(offer).status == DeliveryStatus.SENT, "the delivery")
    # A sweep now finds nothing to send: no later delivery can come.
    assert sweep_once_more(redis_server.url, second) == 0

    after = delivery_of(offer)
    offer.refresh_from_db()
    received = push_service.received
    report(
        "worker_killed_solo",
        unacked_when_killed=unacked,
        decrypted_deliveries=len(received),
        delivery_rows=PushDelivery.objects.filter(offer=offer).count(),
        status=after.status,
        attempts=after.attempts,
        resent_after_kill_s=round(push_service.accepted_at[1] - killed_at, 2),
    )
    # Once where the system decides: one claim, one delivery row for the offer and the device.
    assert offer.reminded_at is not None
    assert PushDelivery.objects.filter(offer=offer).count() == 1
    assert (after.status, after.attempts) == (DeliveryStatus.SENT, 2)
    # At least once at the push service: the POST whose answer was lost is made again; both
    # carry the same notification tag, so the browser shows one notification (sw.js).
    assert len(received) == 2
    assert received[0].payload == received[1].payload
    assert received[0].payload["tag"] == f"offer-{offer.pk}"
    assert push_service.refused == []


def test_a_prefork_pool_process_killed_mid_delivery_is_requeued_at_once(
    processes: Processes, vapid: VapidKeys, push_service: SlowPushService
) -> None:
    redis_server = processes.redis()
    # The project's own settings (visibility timeout 3600 s) and its pool, as in production.
    env = app_env(
        redis_server.url,
        VAPID_PUBLIC_KEY=vapid.public_key,
        VAPID_PRIVATE_KEY=vapid.private_key,
    )
    worker = processes.worker("worker", env, pool="prefork")
    _, offer = due_offer(push_service)
    worker.wait_ready()

    publish(redis_server.url, "push.tasks.send_reminder", offer.pk)
    wait_until(push_service.holding.is_set, "the worker's POST to reach the push service")
    (child,) = worker.children()
    os.kill(child, signal.SIGKILL)  # the pool process inside the delivery, not the worker
    killed_at = time.monotonic()
    push_service.release.set()

    push_service.wait_for(2)
    wait_until(lambda: delivery_of(offer).status == DeliveryStatus.SENT, "the delivery")
    assert sweep_once_more(redis_server.url, worker) == 0

    after = delivery_of(offer)
    report(
        "worker_killed_prefork_child",
        decrypted_deliveries=len(push_service.received),
        status=after.status,
        attempts=after.attempts,
        resent_after_kill_s=round(push_service.accepted_at[1] - killed_at, 2),
        worker_lost_logged="WorkerLostError" in worker.log_text(),
    )
    assert worker.alive()
    assert PushDelivery.objects.filter(offer=offer).count() == 1
    assert (after.status, after.attempts) == (DeliveryStatus.SENT, 2)
    assert len(push_service.received) == 2
    assert push_service.received[0].payload == push_service.received[1].payload
