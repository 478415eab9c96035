"""Many bots in one process, one account each: python many_bots.py TOKENS_FILE.

Each line of TOKENS_FILE is a token; every token gets its own random bot and session, all
connected at once to CROUPIER_ADDRESS. Exits when the referee has ended every session.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import croupier
from croupier.bots import RandomBot


async def main(tokens: list[str]) -> None:
    await asyncio.gather(
        *(croupier.run_async(RandomBot(seed), token=token) for seed, token in enumerate(tokens))
    )


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]).read_text().split()))
