from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# Example counts are tuned so that `make test` stays well under ten minutes on two cores;
# CROUPIER_HYPOTHESIS=thorough runs ten times as many.
settings.register_profile(
    "default", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough", max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("CROUPIER_HYPOTHESIS", "default"))

# `croupier ladder verify` notes the records it replayed in the user's cache: tests keep their own.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="croupier-tests-cache-")
atexit.register(shutil.rmtree, os.environ["XDG_CACHE_HOME"], True)


#: Debian's chromium, which Playwright drives (it never downloads a browser here).
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
#: Chromium as root needs --no-sandbox; the rest keeps a headless run quiet and offline.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless chromium per test module, for every browser test (viewer, report, site)."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if CHROMIUM is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing: `make test` installs it (apt-get install chromium)")
        pytest.skip("chromium is not installed (`make chromium` installs it)")
    with sync_api.sync_playwright() as playwright:
        # Playwright gives the browser a fresh temporary profile (--user-data-dir) of its own.
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A page that fails its test on any script error. Playwright evaluates its wait conditions
    as strings, which the site's Content-Security-Policy forbids: this page bypasses it (a test
    of the policy itself opens a page of its own)."""
    opened = browser.new_page(viewport={"width": 1280, "height": 900}, bypass_csp=True)
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    opened.close()
    assert errors == []


#: Test modules that need what only `make test` installs (Debian's bubblewrap as the escape suites
#: use it, Node, the C++/Go/Java toolchains): `make check`, the quick inner loop, leaves them
#: out, with every test that opens a browser.
_SYSTEM_MODULES = {
    "test_cheats",
    "test_sandbox",
    "test_relay",
    "test_leftovers",
    "test_node_sdk",
    "test_doctor",
    "test_other_languages",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.stem in _SYSTEM_MODULES or "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.system)


@pytest.fixture(scope="module")
def bubblewrap() -> None:
    """Skip where bubblewrap is missing (never on CI, where it must be there); module-scoped, so
    that a module's own fixtures may start hosted bots."""
    from referee.local.sandbox import SandboxError, check_bwrap

    try:
        check_bwrap()
    except SandboxError as error:
        if os.environ.get("CI"):
            raise
        pytest.skip(str(error))


@pytest.fixture
def wide_console(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's console as a pipe gets it (referee.cli.consoles.PIPE_WIDTH), whatever COLUMNS
    the machine running the tests sets: tables whole, for tests that read a row."""
    from referee.cli import consoles

    monkeypatch.setattr(consoles.console, "width", consoles.PIPE_WIDTH)
