"""A request's body is read as the request starts, before anything waits.

Under ASGI the server holds the body in a file that it may close when the client goes away, while
the view's thread still runs (syndicate.abandoned lets that thread finish). A JSON write that
waited for a database connection, and whose client gave up meanwhile, used to read a closed file
(`ValueError: I/O operation on closed file`, a traceback per request). Read at once, the body is
in memory: the request finishes as it would have, and a retry with its Idempotency-Key gets the
same answer. A body above `DATA_UPLOAD_MAX_MEMORY_SIZE` (or a file upload) is left to the view.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse

logger = logging.getLogger(__name__)


class ReadBodyFirst:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.META.get("CONTENT_LENGTH") not in (None, "", "0"):
            try:
                request.body  # noqa: B018 - read and kept by the request
            except RequestDataTooBig:
                pass  # the view answers it (the API: 413 `too_large`)
            except ValueError:
                # The client went away before its body was read: nobody hears the answer.
                logger.info("Client gone before %s %s was read.", request.method, request.path)
                response = HttpResponse("The request ended before it was read.", status=400)
                response._has_been_logged = True  # type: ignore[attr-defined]
                return response
        return self.get_response(request)
