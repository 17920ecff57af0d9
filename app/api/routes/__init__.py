"""Routers, one module per resource; app.api.app includes them all."""
