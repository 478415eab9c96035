"""What the contest's and the ladder's live sites share in their tests: a live match's event
stream, read raw, and the check that it carried only what the public may see."""

from __future__ import annotations

import json
import re
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any, Protocol

from referee.match.records import read_all
from referee.viewer.glyphs import readable


class LiveSite(Protocol):
    web: str


def new_live_match(web: str, seen: set[str], timeout: float = 60) -> str:
    """A match the site lists as live that is not in `seen`, the newest it lists."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"{web}/api/contest", timeout=10) as response:
            live = [str(m["match"]) for m in json.load(response)["live"]]
        fresh = [m for m in live if m not in seen]
        if fresh:
            return fresh[-1]
        time.sleep(0.02)
    raise AssertionError("no new live match")


def listen(site: LiveSite) -> tuple[str, list[dict[str, Any]], list[str]]:
    """A live match's event stream, raw and parsed, from its opening to its end; tried on
    matches seen starting until one is still live when its stream opens (it may end meanwhile)."""
    seen: set[str] = set()
    deadline = time.monotonic() + 120
    while True:
        match_id = new_live_match(site.web, seen)
        seen.add(match_id)
        received, raw = stream(site.web, match_id)
        if received[0]["kind"] != "gone":
            return match_id, received, raw
        assert time.monotonic() < deadline, "each new match was over before its stream opened"


def stream(
    web: str, match_id: str, received: list[dict[str, Any]] | None = None
) -> tuple[list[dict[str, Any]], list[str]]:
    """A live match's event stream until its end, parsed (into `received`, if given, as it
    comes) and raw."""
    received = [] if received is None else received
    raw: list[str] = []

    def read() -> None:
        with urllib.request.urlopen(f"{web}/events/live/{match_id}", timeout=60) as response:
            for line in response:
                text = line.decode()
                raw.append(text)
                if text.startswith("data: "):
                    received.append(json.loads(text[6:]))
                    if received[-1]["kind"] in {"end", "gone"}:
                        return

    listener = threading.Thread(target=read)
    listener.start()
    listener.join(timeout=90)
    assert not listener.is_alive()
    return received, raw


def check_only_public(received: list[dict[str, Any]], raw: list[str], record: Path) -> str:
    """The stream against the match's record: it opened, showed tables and ended; no private
    event (a hand dealt, a peek) and no card in any hand ever shows; the page got every public
    event, in order, with the seats' bots named, and nothing else. Returns the raw stream."""
    kinds = [message["kind"] for message in received]
    assert kinds[0] == "start" and kinds[-1] == "end" and "table" in kinds
    records = read_all(record, strict=True)[0]
    events = [r.event for r in records if r.WhichOneof("line") == "event"]
    private = [event.event.text for event in events if not event.public]
    public = [event.event.text for event in events if event.public]
    assert any(" is dealt " in text for text in private)
    blob = "".join(raw)
    for text in private:
        assert text not in blob
    shown = [
        # a seat's name may hold parentheses itself: "alice (random)"
        re.sub(r"(seat \d+) \((?:[^()]|\([^()]*\))*\)", r"\1", m["text"])
        for m in received
        if m["kind"] == "event"
    ]
    assert shown == [readable("xix", text) for text in public]
    hands = [seat["hand"] for m in received if m["kind"] == "table" for seat in m["seats"]]
    assert any(hands)
    for hand in hands:
        assert all(card["t"] == "" for card in hand)  # backs only
    return blob
