"""The API's docs, ``/docs`` (Swagger UI) and ``/redoc``, served whole by this server: no CDN, so they work offline.

FastAPI's own pages load their scripts from a CDN, so with no network they are blank. The
scripts and styles here are the copies the ``fastapi-offline`` package ships, served at
:data:`ASSETS` (ReDoc's with its sidebar logo pointed at this server, not its maker's CDN). The
pages also carry a Content-Security-Policy that lets them load nothing from another host.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import fastapi_offline
from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

ASSETS = "/static-docs"
"""Where the docs' scripts and styles are served."""
ASSET_DIR = Path(fastapi_offline.__file__).with_name("static")
FAVICON = "/static/favicon.svg"
SAME_HOST_ONLY = ("default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
                  "img-src 'self' data: blob:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'")
"""The docs pages' Content-Security-Policy: this server only (the inline parts are FastAPI's own page)."""


REDOC_LOGO_CDN = "https://cdn.redoc.ly/redoc/logo-mini.svg"
"""The one address ReDoc's script loads from the network (the sidebar's "API docs by Redocly" logo)."""


@lru_cache(maxsize=1)
def redoc_without_cdn() -> bytes:
    """ReDoc's script as ``fastapi-offline`` ships it, its logo taken from this server (the page's favicon) instead
    of Redocly's CDN: nothing of /redoc comes from the network (issue 28)."""
    script = (ASSET_DIR / "redoc.standalone.js").read_bytes()
    return script.replace(REDOC_LOGO_CDN.encode(), FAVICON.encode())


def _same_host_only(page: HTMLResponse) -> HTMLResponse:
    page.headers["Content-Security-Policy"] = SAME_HOST_ONLY
    return page


def add_docs(app: FastAPI) -> None:
    """Add ``/docs``, its OAuth2 redirect and ``/redoc`` to ``app`` (made with ``docs_url=None, redoc_url=None``)."""
    title = app.title

    @app.get(f"{ASSETS}/redoc.standalone.js", include_in_schema=False)
    def redoc_script() -> Response:  # before the mount, which would serve the file as shipped
        return Response(redoc_without_cdn(), media_type="text/javascript; charset=utf-8")

    app.mount(ASSETS, StaticFiles(directory=ASSET_DIR), name="docs-assets")

    @app.api_route("/docs", methods=["GET", "HEAD"], include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        return _same_host_only(get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json", title=f"{title} - Swagger UI",
            oauth2_redirect_url="/docs/oauth2-redirect", swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS}/swagger-ui.css", swagger_favicon_url=FAVICON,
            swagger_ui_parameters={"validatorUrl": None}))  # no badge from the online validator

    @app.get("/docs/oauth2-redirect", include_in_schema=False)
    def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.api_route("/redoc", methods=["GET", "HEAD"], include_in_schema=False)
    def redoc() -> HTMLResponse:
        return _same_host_only(get_redoc_html(
            openapi_url=app.openapi_url or "/openapi.json", title=f"{title} - ReDoc",
            redoc_js_url=f"{ASSETS}/redoc.standalone.js", redoc_favicon_url=FAVICON, with_google_fonts=False))
