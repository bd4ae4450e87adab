"""Interactive API docs (Swagger UI) that work offline and under the project's CSP.

The Swagger UI files come from drf-spectacular-sidecar and are served here, same-origin, so the
page loads no third-party script; the init script is a same-origin file too (the split view).
"""

from __future__ import annotations

from importlib.resources import files

from django.http import FileResponse, HttpRequest, HttpResponseBase
from django.urls import reverse
from django.views.decorators.http import require_safe
from drf_spectacular.views import SpectacularSwaggerSplitView

from api.errors import not_found

SWAGGER_ASSETS = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui-standalone-preset.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "favicon-32x32.png": "image/png",
}


class SwaggerDocs(SpectacularSwaggerSplitView):
    template_name = "api/swagger_ui.html"
    url_name = "api:schema"
    title = "Syndicate Seven-card Poker API"

    @staticmethod
    def _swagger_ui_resource(filename: str) -> str:
        return reverse("api:swagger-asset", args=[filename])

    @staticmethod
    def _swagger_ui_favicon() -> str:
        return reverse("api:swagger-asset", args=["favicon-32x32.png"])


@require_safe
def swagger_asset(request: HttpRequest, name: str) -> HttpResponseBase:
    """One of the few Swagger UI files, from the installed sidecar package."""
    content_type = SWAGGER_ASSETS.get(name)
    if content_type is None:
        return not_found(request)
    dist = files("drf_spectacular_sidecar") / "static" / "drf_spectacular_sidecar"
    response = FileResponse((dist / "swagger-ui-dist" / name).open("rb"), content_type=content_type)
    response["Cache-Control"] = "public, max-age=86400"
    return response
