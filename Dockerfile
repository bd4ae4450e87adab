# The production image: one image for the daphne web processes, the Celery worker and Celery beat.
FROM python:3.13-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    UV_PYTHON_DOWNLOADS=never \
    SYNDICATE_PRODUCTION=1

WORKDIR /app
RUN pip install --no-cache-dir uv
COPY requirements.lock .
RUN uv pip install --system --compile-bytecode --no-cache -r requirements.lock

COPY . .
RUN DJANGO_SECRET_KEY=collectstatic-only DJANGO_ALLOWED_HOSTS=localhost REDIS_URL=redis://unused:6379/0 \
    python manage.py collectstatic --noinput \
 && useradd --system --home /app syndicate
USER syndicate

EXPOSE 8000
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "syndicate.asgi:application"]
