"""The house's import graph (issue 43.5): no module of `referee` reaches itself through its
imports. import-linter's layers (pyproject.toml) order the packages; a circle inside one, such
as transport's play → server → submissions → play, is what they cannot see. Imports made for
type checking alone count: they name a dependency as surely as any other."""

from __future__ import annotations

import grimp


def _circles(graph: grimp.ImportGraph, package: str) -> list[list[str]]:
    """The strongly connected sets of two or more modules (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def imported(module: str) -> list[str]:
        return sorted(
            m for m in graph.find_modules_directly_imported_by(module) if m.startswith(package)
        )

    for root in sorted(graph.modules):
        if root in index or not root.startswith(package):
            continue
        work = [(root, iter(imported(root)))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[module])
                if low[module] == index[module]:
                    members = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        members.append(member)
                        if member == module:
                            break
                    if len(members) > 1:
                        found.append(sorted(members))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(imported(child))))
            elif child in on_stack:
                low[module] = min(low[module], index[child])
    return found


def test_no_module_of_the_referee_imports_itself_around_a_circle() -> None:
    graph = grimp.build_graph("referee")
    assert _circles(graph, "referee") == []


def test_the_circle_finder_finds_a_circle() -> None:
    """The check above can fail: a graph with a circle has it found."""
    graph = grimp.ImportGraph()
    for module in ("pkg", "pkg.a", "pkg.b", "pkg.c"):
        graph.add_module(module)
    graph.add_import(importer="pkg.a", imported="pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg.a")
    graph.add_import(importer="pkg.c", imported="pkg.a")
    assert _circles(graph, "pkg") == [["pkg.a", "pkg.b"]]
