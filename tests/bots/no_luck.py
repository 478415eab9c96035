"""A bot that cannot play: it says why and exits with code 3 (the cluster tests' failing bot)."""

print("no luck today", flush=True)
raise SystemExit(3)
