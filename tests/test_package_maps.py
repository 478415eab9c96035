"""Each package's docstring is its map (issue 43.5): it names every module in it, so that a map
that drifted (`referee` leaving out `hosted`, `contest` listing half its modules) fails here
rather than misleading its next reader."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REFEREE = Path(__file__).resolve().parent.parent / "referee"
PACKAGES = sorted(p.parent for p in REFEREE.rglob("__init__.py"))


def _named(doc: str, package: str, module: str) -> bool:
    """Whether the map names `module`: `module`, package.module, or module.py."""
    words = (f"`{module}`", f"{package}.{module}", f"`{module}.py`")
    return any(word in doc for word in words) or re.search(rf"`{module}[.(`]", doc) is not None


@pytest.mark.parametrize("folder", PACKAGES, ids=lambda p: p.relative_to(REFEREE.parent).as_posix())
def test_each_package_s_docstring_names_each_of_its_modules(folder: Path) -> None:
    package = ".".join(folder.relative_to(REFEREE.parent).parts)
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text())) or ""
    modules = sorted(
        [p.stem for p in folder.glob("*.py") if p.stem not in {"__init__", "__main__"}]
        + [p.parent.name for p in folder.glob("*/__init__.py")]
    )
    unnamed = [module for module in modules if not _named(doc, package, module)]
    assert not unnamed, f"{package}'s docstring does not name {', '.join(unnamed)}"
