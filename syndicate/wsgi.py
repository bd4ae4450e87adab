"""WSGI entry point, for management tools; the app itself is served by daphne (ASGI)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "syndicate.settings")
application = get_wsgi_application()
