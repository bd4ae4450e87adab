"""Container health check for one daphne process (docker-compose.yml, the web service's replicas).

GET /healthz, which checks the database, on this container's daphne, sent the way nginx sends it:
with an allowed Host and `X-Forwarded-Proto: https`. A request with a Host outside
DJANGO_ALLOWED_HOSTS (127.0.0.1, say) gets a 400, and `https` keeps the answer a 200 whether or not
the settings exempt /healthz from the HTTPS redirect. Exits 0 only on a 200.
Standard library only; runs as `python deploy/healthcheck.py` in the image.
"""

from __future__ import annotations

import http.client
import os
import sys


def probe_host(allowed_hosts: str) -> str:
    """A Host header that DJANGO_ALLOWED_HOSTS admits: its first concrete entry."""
    for entry in allowed_hosts.split(","):
        host = entry.strip()
        if host and host != "*":
            return host.lstrip(".")  # ".example.com" admits "example.com"
    return "localhost"  # nothing concrete: "*" (or nothing) admits any name


def check(port: int, host: str, timeout: float = 5.0) -> tuple[bool, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", "/healthz", headers={"Host": host, "X-Forwarded-Proto": "https"})
        response = connection.getresponse()
        body = response.read(200).decode("utf-8", "replace")
    except OSError as error:
        return False, f"no answer on port {port}: {error}"
    finally:
        connection.close()
    return response.status == 200, f"{response.status} {body.strip()}"


def main() -> int:
    port = int(os.environ.get("HEALTHCHECK_PORT", "8000"))
    host = probe_host(os.environ.get("DJANGO_ALLOWED_HOSTS", ""))
    healthy, detail = check(port, host)
    print(detail)
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main())
