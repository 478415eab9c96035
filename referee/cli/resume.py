"""The command line that runs a command again as it was given: what an interrupted run prints
so that it can be resumed (`croupier ladder run ...`)."""

from __future__ import annotations

import shlex
from enum import Enum
from typing import Any

import typer


def given_again(ctx: typer.Context) -> str:
    """`croupier SUBCOMMAND ...` with every argument and option given on the command line (not
    the defaults): arguments and valued options in the command's order, then the switches."""
    path: list[str] = []
    at: Any = ctx  # typer's own copy of click's Context (typer._click)
    while at is not None and at.parent is not None:
        path.insert(0, at.info_name or "")
        at = at.parent
    words, switches = ["croupier", *path], list[str]()
    for param in ctx.command.params:
        source = ctx.get_parameter_source(param.name or "")
        if param.name is None or source is None or source.name != "COMMANDLINE":
            continue
        value = ctx.params[param.name]
        option = param.param_type_name == "option"
        if option and getattr(param, "is_flag", False):
            flags = param.opts if value else param.secondary_opts
            switches += flags[:1]
        elif option:
            items = value if param.multiple else [value]
            for item in items:
                words += [param.opts[0], *_texts(item)]
        else:
            words += _texts(value)
    return shlex.join(words + switches)


def _texts(value: object) -> list[str]:
    """A parameter's value as the words that give it."""
    if isinstance(value, tuple):
        return [word for item in value for word in _texts(item)]
    if isinstance(value, Enum):
        return [str(value.value)]
    if isinstance(value, float):
        return [f"{value:g}"]
    return [str(value)]
