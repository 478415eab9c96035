"""Hosted bots: versions that authors upload, which the referee builds in the sandbox.

`referee.hosted.build` builds a version once, in the bot sandbox (referee.local.sandbox), within
its own limits and at the lowest CPU priority.

May import: `referee.ladder`, `referee.local` and the layers below them. Never the contest server
or the CLI, which use it.
"""

from __future__ import annotations
