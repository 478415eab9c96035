"""Fast copies of the engines' states: `evolver(cls)` generates `evolve(state, /, *, field=...)`,
`dataclasses.replace` for the frozen, slotted dataclass `cls` with keyword-only changes, several
times faster.

A frozen dataclass's `__init__` stores each field through `object.__setattr__`, and
`dataclasses.replace` first reads every field into keyword arguments for it: several microseconds
for a state of twenty fields, at every decision. The generated function is straight-line code, as
dataclasses and attrs generate an `__init__`: it fills an instance of a mutable twin of `cls` (the
same slots, so the same memory layout) with plain attribute stores, the fastest Python has, then
makes it a `cls` by assigning `__class__`, which CPython allows between classes of one layout.
Nothing checks types; the value is the one `dataclasses.replace` gives (tests/test_frozen.py).

Only changed fields are passed: binding keyword arguments costs about 40 ns a name, so a transition
that names its four changes costs less than one that spells out all twenty fields. A new state
from nothing (a game's start) uses the class's own keyword-only `__init__`.

mypy's dataclasses plugin checks each change's name and type in a call of `dataclasses.replace`,
so an engine declares its evolve as that for mypy, and as the generated one at run time:

    if TYPE_CHECKING:
        from dataclasses import replace as _evolve
    else:
        _evolve = evolver(XixState)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, fields
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T", bound="DataclassInstance")


class Evolve(Protocol[T]):
    def __call__(self, state: T, /, **changes: Any) -> T: ...


#: The default of a keyword the caller did not pass: keep the old state's value.
_KEEP: Any = object()


def evolver(cls: type[T]) -> Evolve[T]:
    """The fast `dataclasses.replace` for the frozen, slotted dataclass `cls` (see the module).

    As with `dataclasses.replace`, a field that `__init__` does not take (`init=False`) gets its
    default again rather than the old state's value, and an unknown field is a TypeError.
    """
    slots = getattr(cls, "__slots__", None)
    names = [field.name for field in fields(cls)]
    assert slots is not None and list(slots) == names, f"{cls.__name__} is not a slotted dataclass"
    assert not {"state_", "copy_", "unknown_"} & set(names), "a field shadows a generated name"
    twin = type(f"_Mutable{cls.__name__}", (), {"__slots__": tuple(slots)})
    scope: dict[str, Any] = {"_KEEP": _KEEP, "_new": object.__new__, "_twin": twin, "_cls": cls}
    params = []
    stores = []
    for field in fields(cls):
        name = field.name
        if field.init:
            params.append(f"{name}=_KEEP")
            stores.append(f"    copy_.{name} = state_.{name} if {name} is _KEEP else {name}")
        else:
            assert field.default is not MISSING, f"{cls.__name__}.{name} needs a default"
            scope[f"_default_{name}"] = field.default
            stores.append(f"    copy_.{name} = _default_{name}")
    scope["_reject"] = _rejecter(cls)
    source = "\n".join(
        [
            f"def evolve(state_, /, *, {', '.join(params)}, **unknown_):",
            "    if unknown_:",
            "        _reject(unknown_)",
            "    copy_ = _new(_twin)",
            *stores,
            "    copy_.__class__ = _cls",
            "    return copy_",
        ]
    )
    exec(compile(source, f"<evolve {cls.__qualname__}>", "exec"), scope)
    evolve: Evolve[T] = scope["evolve"]
    return evolve


def _rejecter(cls: type) -> Callable[[dict[str, Any]], None]:
    def reject(unknown: dict[str, Any]) -> None:
        raise TypeError(f"{cls.__name__} has no field {', '.join(sorted(unknown))}")

    return reject


def slot_store(cls: type[DataclassInstance], name: str) -> Callable[[Any, Any], None]:
    """The store of the slot `name` of the slotted dataclass `cls`: `store(state, value)` sets it
    even on a frozen instance. Only for a cache that is no part of the value (`compare=False`)."""
    store: Callable[[Any, Any], None] = getattr(cls, name).__set__
    return store
