"""Visual routes (sheet.svg, the /shared/{token} HTML page, events): owned by the views work.
create_app includes this router; it is empty until then."""

from fastapi import APIRouter

router = APIRouter()
