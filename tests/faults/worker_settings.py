"""The project's settings with a short broker visibility timeout, for worker processes whose
unacknowledged message must come back within a test (production keeps 3600 s: see
docs/reliability.md, "Celery worker killed mid-task")."""

from syndicate.settings import *  # noqa: F403

CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": 3,
    "unacked_restore_interval": 1,
    "unacked_restore_throttle": 1,
}
