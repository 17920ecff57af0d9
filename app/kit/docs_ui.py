"""The browsable API documentation, served without a CDN: Swagger UI at ``/docs`` and ReDoc at
``/redoc``, their scripts and styles from the ``fastapi-offline`` package's files under
``/docs/assets``. FastAPI's own pages load them from jsdelivr and a favicon from its web site,
so they are blank on a machine without internet access.

The pages load nothing from elsewhere: no validator badge (Swagger UI would ask
validator.swagger.io), no Google fonts for ReDoc.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from starlette.routing import Route

ASSETS_URL = "/docs/assets"
ASSETS_DIR = Path(str(files("fastapi_offline") / "static"))
SWAGGER_JS = "swagger-ui-bundle.js"
SWAGGER_CSS = "swagger-ui.css"
REDOC_JS = "redoc.standalone.js"
FAVICON = "favicon.png"


def install(app: FastAPI) -> None:
    """Replace FastAPI's CDN pages (at the app's ``docs_url`` and ``redoc_url``) by offline ones."""
    docs_url = app.docs_url or "/docs"
    redoc_url = app.redoc_url or "/redoc"
    oauth2_url = app.swagger_ui_oauth2_redirect_url or f"{docs_url}/oauth2-redirect"
    ours = {docs_url, redoc_url, oauth2_url}
    app.router.routes[:] = [r for r in app.router.routes if not (isinstance(r, Route) and r.path in ours)]
    app.mount(ASSETS_URL, StaticFiles(directory=ASSETS_DIR), name="docs-assets")
    parameters = {**(app.swagger_ui_parameters or {}), "validatorUrl": None}

    def assets(request: Request) -> str:
        return request.scope.get("root_path", "") + ASSETS_URL

    @app.get(docs_url, include_in_schema=False)
    def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_swagger_ui_html(
            openapi_url=root + (app.openapi_url or "/openapi.json"),
            title=f"{app.title} - Swagger UI",
            oauth2_redirect_url=root + oauth2_url,
            swagger_js_url=f"{assets(request)}/{SWAGGER_JS}",
            swagger_css_url=f"{assets(request)}/{SWAGGER_CSS}",
            swagger_favicon_url=f"{assets(request)}/{FAVICON}",
            swagger_ui_parameters=parameters,
        )

    @app.get(oauth2_url, include_in_schema=False)
    def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    @app.get(redoc_url, include_in_schema=False)
    def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_redoc_html(
            openapi_url=root + (app.openapi_url or "/openapi.json"),
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{assets(request)}/{REDOC_JS}",
            redoc_favicon_url=f"{assets(request)}/{FAVICON}",
            with_google_fonts=False,
        )
