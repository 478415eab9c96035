"""Challenges (issue 45): an author tests one of their hosted versions against an opponent, on
duplicate deals with the seats rotated, until a GSPRT decides or a budget of deals runs out.

- `terms`: the organiser's rules (limits, share of the hosted slots, default bounds).
- `book`: a challenge's state in the contest's own SQLite database, so that a referee killed
  mid-challenge resumes it with nothing counted twice.
- `desk`: what an author asks for, checked (grpc-free, called by referee.transport.challenges).
- `decision`: the GSPRT on the paired deal results (referee.ladder's, not a second one).
- `runner`: plays the challenges beside the contest's referee, on its hosted slots.
- `verify`: their records checked as `croupier ladder verify` checks the contest's.
"""
