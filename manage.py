#!/usr/bin/env python
"""Django's command-line utility."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "syndicate.settings")
    if not os.environ.get("DATABASE_URL"):
        # `dbshell` runs psql: the embedded server's own, when no system psql is installed.
        from syndicate import embedded

        try:
            client_tools = str(embedded.postgres_bin())
        except embedded.EmbeddedError:
            pass  # settings say what to install
        else:
            os.environ["PATH"] = os.pathsep.join([os.environ.get("PATH", ""), client_tools])
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
