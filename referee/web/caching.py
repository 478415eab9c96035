"""How the site's answers are cached by browsers and API clients: an ETag on everything that
can be cached, so an unchanged answer costs a 304 with no body."""

from __future__ import annotations

import hashlib

from starlette.requests import Request
from starlette.responses import Response

#: A static file asked for by its fingerprint (`?v=`, what the pages name) never changes: the
#: browser keeps it a year without asking. Everything else that is cacheable carries an ETag
#: and `no-cache`: the browser asks each time and gets 304, no body, while it is unchanged.
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"


def tagged(body: bytes) -> str:
    """A weak ETag (the body may travel gzipped, byte for byte another entity)."""
    return f'W/"{hashlib.sha256(body).hexdigest()[:20]}"'


def cached(
    request: Request, body: bytes, media_type: str, tag: str | None = None, forever: bool = False
) -> Response:
    """`body` with its ETag (`tag`, else one made from the body), or 304 with no body when the
    request holds that tag already (If-None-Match)."""
    tag = tag or tagged(body)
    headers = {"etag": tag, "cache-control": IMMUTABLE if forever else REVALIDATE}
    held = request.headers.get("if-none-match", "")
    if held.strip() == "*" or tag in (t.strip() for t in held.split(",")):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type=media_type, headers=headers)
