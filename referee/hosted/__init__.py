"""Hosted bots: versions that authors upload, which the referee stores, builds and qualifies.

- `archive`: an upload (tar, tar.gz, tar.xz, zip or folder) unpacked without trusting it;
- `store`: versions, content-addressed, with who submitted them and their status.

May import: `referee.ladder` and the layers below it, and the shared modules. Never the contest
server, the doctor or the CLI.
"""
