# The production image: one image for the daphne web processes, the Celery worker, Celery beat and
# the one-shot migration (docker-compose.yml; docs/deploy.md).
FROM python:3.13-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    UV_PYTHON_DOWNLOADS=never \
    UV_NO_CACHE=1 \
    SYNDICATE_PRODUCTION=1

WORKDIR /app

# Dependencies first (cached until requirements.lock changes), every file checked against the
# lock's hashes.
# gettext's msgfmt compiles the translations (locale/) below.
RUN apt-get update \
 && apt-get install -y --no-install-recommends gettext \
 && rm -rf /var/lib/apt/lists/*
RUN pip install --no-cache-dir uv
COPY requirements.lock .
RUN uv pip install --system --compile-bytecode --require-hashes -r requirements.lock

COPY . .

# The translations' .mo files (build output, not in git).
RUN PYTHON_BIN=python ./scripts/compile-messages

# Static files are collected into the image (whitenoise serves them, hashed and compressed).
# Production settings refuse to load without these variables: throwaway values for this step only,
# never kept in the image. The real ones come from .env at run time.
RUN DJANGO_SECRET_KEY=collectstatic-only-not-a-secret \
    DJANGO_ALLOWED_HOSTS=localhost \
    REDIS_URL=redis://collectstatic-only:6379/0 \
    VAPID_PUBLIC_KEY=collectstatic-only \
    VAPID_PRIVATE_KEY=collectstatic-only \
    python manage.py collectstatic --noinput \
 && python -m compileall -q -j 0 . \
 && useradd --system --user-group --uid 10001 --home-dir /app --no-create-home syndicate

# The code and static files stay root-owned and read-only to the app.
USER syndicate

EXPOSE 8000
CMD ["daphne", "--bind=0.0.0.0", "--port=8000", "--proxy-headers", "syndicate.asgi:application"]
