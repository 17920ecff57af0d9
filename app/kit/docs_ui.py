"""The browsable API documentation, served without a CDN: Swagger UI at ``/docs`` and ReDoc at
``/redoc``, their scripts and styles from the ``fastapi-offline`` package's files under
``/docs/assets``. FastAPI's own pages load them from jsdelivr and a favicon from its web site,
so they are blank on a machine without internet access.

The pages load nothing from elsewhere: no validator badge (Swagger UI would ask
validator.swagger.io), no Google fonts for ReDoc, and ReDoc's script is served with its one
address elsewhere (the Redocly logo of its menu's footer, from cdn.redoc.ly) replaced by an
empty image written in the page.

Swagger UI offers no "Try it out" on an event stream (an operation marked ``x-event-stream``
by app/kit/openapi.py): it would wait for the end of an answer that never ends. The
operation's description says how to read the stream instead.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.routing import Route

ASSETS_URL = "/docs/assets"
ASSETS_DIR = Path(str(files("fastapi_offline") / "static"))
SWAGGER_JS = "swagger-ui-bundle.js"
SWAGGER_CSS = "swagger-ui.css"
REDOC_JS = "redoc.standalone.js"
FAVICON = "favicon.png"
# ReDoc's script with nothing fetched from elsewhere, served beside (not under) the assets.
REDOC_OFFLINE_URL = "/docs/redoc.standalone.js"
REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
_BLANK_GIF = "data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"
# A Swagger UI plugin: an operation marked as an event stream gets no "Try it out" button.
_STREAMS_PLUGIN = """
    <script>
    function EventStreamsWithoutTryItOut() {
      return {wrapComponents: {operation: (Original, system) => (props) => {
        const stream = props.operation && props.operation.getIn(["op", "x-event-stream"]);
        const operation = stream ? props.operation.set("allowTryItOut", false) : props.operation;
        return system.React.createElement(Original, Object.assign({}, props, {operation}));
      }}};
    }
    </script>
"""


def redoc_script() -> bytes:
    """ReDoc's standalone script with its CDN logo replaced by an empty image (no request)."""
    script = (ASSETS_DIR / REDOC_JS).read_bytes()
    return script.replace(REDOC_LOGO.encode(), _BLANK_GIF.encode())


def with_stream_plugin(html: str) -> str:
    """FastAPI's Swagger UI page with the plugin above installed."""
    html = html.replace(
        "    <script>\n    const ui = SwaggerUIBundle(",
        _STREAMS_PLUGIN + "    <script>\n    const ui = SwaggerUIBundle(",
        1,
    )
    return html.replace("presets: [", "plugins: [EventStreamsWithoutTryItOut],\n    presets: [", 1)


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
        root: str = request.scope.get("root_path", "")
        return root + ASSETS_URL

    @app.get(docs_url, include_in_schema=False)
    def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        page = get_swagger_ui_html(
            openapi_url=root + (app.openapi_url or "/openapi.json"),
            title=f"{app.title} - Swagger UI",
            oauth2_redirect_url=root + oauth2_url,
            swagger_js_url=f"{assets(request)}/{SWAGGER_JS}",
            swagger_css_url=f"{assets(request)}/{SWAGGER_CSS}",
            swagger_favicon_url=f"{assets(request)}/{FAVICON}",
            swagger_ui_parameters=parameters,
        )
        return HTMLResponse(with_stream_plugin(bytes(page.body).decode()))

    @app.get(oauth2_url, include_in_schema=False)
    def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()

    script: list[bytes] = []  # read once, on the first request

    @app.get(REDOC_OFFLINE_URL, include_in_schema=False)
    def redoc_js() -> Response:
        if not script:
            script.append(redoc_script())
        return Response(
            script[0], media_type="text/javascript", headers={"Cache-Control": "public, max-age=86400"}
        )

    @app.get(redoc_url, include_in_schema=False)
    def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_redoc_html(
            openapi_url=root + (app.openapi_url or "/openapi.json"),
            title=f"{app.title} - ReDoc",
            redoc_js_url=root + REDOC_OFFLINE_URL,
            redoc_favicon_url=f"{assets(request)}/{FAVICON}",
            with_google_fonts=False,
        )
