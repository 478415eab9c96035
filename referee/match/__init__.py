"""One match, from a seat's decision to its record line: the layer every way of playing shares.

- `runner`: drives a match (chance from its seed, a request per decision, the checked apply,
  events to each seat, the record); `seats`: the Seat interface and in-process seats;
  `session`: a bot's session (what the gRPC stream feeds); `remote_seat`: the seat that plays
  through one; `seating`: the one way to seat sessions and play a match; `launched`: what a seat
  sees of a launched bot's process (a protocol); `lobby`: sessions waiting to be seated; `clock`:
  time control, a seat's clock and a decision's (every timing rule: what a bot is charged, when
  its time is up); `protocol`: engine values to protobuf messages; `spectators`: live matches
  for Watch, through `public` (what a spectator may see); `records`: the JSON Lines record
  writer and reader (`protojson`: its fast JSON mapping); `replay`: re-running a record through
  the engine and checking it; `seeds`: match seeds; `bounds`: the largest settings that still
  mean something; `logrates`: log lines a bot can provoke, rate-limited per bot; `luck`: luck
corrections from each game's value function (`luck_history`: earlier releases' digests that
give the same corrections); `computer`: the machine a record names;
`live_relay`: live matches played in another process, watched in this one; `requests`: a
match driven one request at a time from outside (the training environments); `wire`: action
requests assembled from pieces encoded once.

May import: `referee.games`, `referee.errors`, `referee.version`, the generated `croupier.v1`
messages, trio. Never grpc (that is `referee.transport`), never a ladder, contest or the CLI.
"""
