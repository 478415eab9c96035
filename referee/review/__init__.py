"""Where a match was lost: a seat's decisions valued from its view alone (issue 48).

- `view`: a seat's view of a match (what it was sent at each decision), from a record or a
  bot's requests; the only module here that reads a record;
- `determinize`: a full history sampled to fit a view, through the engine; `cards`: where two
  messages differ only in cards, and the relabelling that mends a sample;
- `search`: determinized Monte Carlo, each legal action's mean final margin (the one valuation
  of the reference bots and the review alike, by the game's own playouts); `budgets`: the
  playouts a decision may spend; `rollout`: the playouts' default policy and redeal, found
  per game by its catalogue entry; `xeri_rollout`, `xactika_rollout`, `textactoe_rollout`:
  each game's (Xactika's and Tex-Tac-Toe's with a history sampled from the view, issue 48.1);
- `review`: every decision of a seat reviewed, on a process pool; `grades`: inaccuracy,
  mistake, blunder by points lost, per game; `marks`: a review as marks on the seat's replay
  page (value bars, the margin chart);
- `positions`: decisions as a positions file, read back and checked against the engine;
  `position_game`: a position as a one-decision match; `position_runs`: a bot run on each.
"""
