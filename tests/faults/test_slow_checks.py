"""Fault checks too slow for CI: skipped unless FAULTS_SLOW=1 (bench/faults.py sets it).

They measure and report what the project does today; docs/reliability.md quotes their figures.
Each is bounded (about 30 to 80 s).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import cast

import pytest

from push.keys import VapidKeys
from push.models import DeliveryStatus
from tests.faults.processes import Processes, app_env, publish, report
from tests.faults.pushing import SlowPushService, delivery_of, due_offer, sweep_once_more
from tests.waiting import wait_until

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not os.environ.get("FAULTS_SLOW"), reason="slow: run bench/faults.py"),
]

WATCH = 30  # seconds to watch for a redelivery that the project's settings put an hour away


@pytest.fixture
def push_service(vapid: VapidKeys) -> Iterator[SlowPushService]:
    with SlowPushService(vapid.public_key) as service:
        yield service


def test_a_whole_worker_killed_mid_delivery_with_the_project_settings(
    processes: Processes, vapid: VapidKeys, push_service: SlowPushService
) -> None:
    """Solo worker (or a whole prefork worker) killed: the message waits out visibility_timeout."""
    redis_server = processes.redis()
    env = app_env(
        redis_server.url, VAPID_PUBLIC_KEY=vapid.public_key, VAPID_PRIVATE_KEY=vapid.private_key
    )
    first = processes.worker("worker-1", env, pool="solo")
    _, offer = due_offer(push_service)
    first.wait_ready()
    publish(redis_server.url, "push.tasks.send_reminder", offer.pk)
    wait_until(push_service.holding.is_set, "the POST")
    first.kill()
    killed_at = time.monotonic()
    push_service.release.set()
    index = redis_server.client().zrange("unacked_index", 0, -1, withscores=True)
    ((_, delivered_at),) = cast(list[tuple[bytes, float]], index)

    second = processes.worker("worker-2", env, pool="solo")
    second.wait_ready()
    sweep_once_more(redis_server.url, second)
    time.sleep(max(WATCH - (time.monotonic() - killed_at), 0))
    delivery = delivery_of(offer)
    report(
        "slow_whole_worker_killed_project_settings",
        watched_s=round(time.monotonic() - killed_at),
        decrypted_deliveries=len(push_service.received),
        status=delivery.status,
        attempts=delivery.attempts,
        message_visible_again_in_s=round(delivered_at + 3600 - time.time()),
    )


def test_a_redelivered_reminder_after_the_selection_was_resolved(
    processes: Processes, vapid: VapidKeys, push_service: SlowPushService
) -> None:
    """Killed mid-delivery, then the player chooses, then the message comes back."""
    redis_server = processes.redis()
    env = app_env(
        redis_server.url,
        DJANGO_SETTINGS_MODULE="tests.faults.worker_settings",
        VAPID_PUBLIC_KEY=vapid.public_key,
        VAPID_PRIVATE_KEY=vapid.private_key,
    )
    first = processes.worker("worker-1", env, pool="solo")
    table, offer = due_offer(push_service)
    first.wait_ready()
    publish(redis_server.url, "push.tasks.send_reminder", offer.pk)
    wait_until(push_service.holding.is_set, "the POST")
    first.kill()
    push_service.release.set()
    table.choose_start(table.players[0])  # the selection is resolved
    offer.refresh_from_db()
    assert offer.resolved_at is not None

    second = processes.worker("worker-2", env, pool="solo")
    second.wait_ready()
    push_service.wait_for(2)
    wait_until(lambda: delivery_of(offer).status != DeliveryStatus.PENDING, "the delivery")
    delivery = delivery_of(offer)
    report(
        "slow_redelivery_after_resolution",
        decrypted_deliveries=len(push_service.received),
        resent_after_resolved=len(push_service.received) == 2,
        body=push_service.received[-1].payload["body"],
        status=delivery.status,
        attempts=delivery.attempts,
    )


def test_the_real_beat_sends_a_lost_reminder_after_a_redis_restart(
    processes: Processes, vapid: VapidKeys, push_service: SlowPushService
) -> None:
    """celery beat (as docker-compose.yml runs it) and a worker; Redis restarted empty; a due
    selection whose countdown is gone: the 30 s sweep sends it."""
    push_service.to_hold = 0
    redis_server = processes.redis()
    env = app_env(
        redis_server.url, VAPID_PUBLIC_KEY=vapid.public_key, VAPID_PRIVATE_KEY=vapid.private_key
    )
    worker = processes.worker("worker", env, pool="prefork")
    beat = processes.beat("beat", env)
    worker.wait_ready()
    beat.wait_ready()
    redis_server.restart_empty()
    restarted_at = time.monotonic()
    _, offer = due_offer(push_service)  # due now; its countdown is nowhere

    push_service.wait_for(1, timeout=90)  # the sweep runs every 30 s
    sent_after = time.monotonic() - restarted_at
    time.sleep(1)
    delivery = delivery_of(offer)
    report(
        "slow_real_beat_after_redis_restart",
        sent_after_restart_s=round(sent_after, 1),
        decrypted_deliveries=len(push_service.received),
        status=delivery.status,
        beat_alive=beat.alive(),
        worker_alive=worker.alive(),
        sweeps_sent_by_beat=beat.log_text().count("Sending due task sweep-reminders"),
    )
    assert delivery.status == DeliveryStatus.SENT
    assert len(push_service.received) == 1
