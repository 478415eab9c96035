"""The end of a command's --help: examples to copy and the exit codes."""

from __future__ import annotations


def epilog(examples: list[str], exits: dict[int, str]) -> str:
    """The end of a command's --help: examples to copy, then its exit codes. (`\\b` keeps click
    from rewrapping a paragraph.)"""
    lines = ["\b", "Examples:", *(f"  {example}" for example in examples)]
    codes = ["\b", "Exit codes:", *(f"  {code}  {meaning}" for code, meaning in exits.items())]
    return "\n".join(lines) + "\n\n" + "\n".join(codes)


#: The exit codes most commands share.
DONE = {0: "done", 2: "bad input (a path, port, option or file that cannot be used)"}
