"""The entry point of the worker and beat processes:

    celery -A worker.celery_app:celery_app worker
    celery -A worker.celery_app:celery_app beat

Settings come from the environment, as for the web process (``DATABASE_URL``, ``REDIS_URL``,
``MAIL_*``, ``SECRET_KEY``, ``BASE_URL``).
"""

from typing import Any

from celery import Celery

from service import create_app

flask_app = create_app()
celery_app: Celery[Any] = flask_app.extensions["celery"]
