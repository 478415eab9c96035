"""The replay viewers on real matches of every game: the re-run timeline against what the engine
sent each seat, per-seat views that show nothing the seat could not see, the terminal rendering
and stepper (Textual's pilot), the HTML page's data, and `croupier replay`'s options."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from pathlib import Path

import pytest
import trio
from rich.console import Console
from textual.widgets import Static
from textual.widgets._footer import FooterKey
from typer.testing import CliRunner

from croupier.bots import RandomBot
from croupier.v1 import game_pb2, referee_pb2
from referee.cli import app
from referee.errors import CroupierError, RecordError
from referee.games import get_game
from referee.games.base import parse_options
from referee.games.textactoe import TexTacToeState
from referee.games.xactika import CARD_TEXT as XACTIKA_CARDS
from referee.games.xactika import XactikaState
from referee.games.xeri import XeriState
from referee.games.xix import XixState
from referee.match.runner import MatchConfig, run_match
from referee.match.seats import InProcessSeat
from referee.viewer import StepKind, Timeline, load, render_html, viewer_data
from referee.viewer.games import GenericView, view_for
from referee.viewer.plain import render
from referee.viewer.stepper import Stepper
from referee.viewer.terminal import table_renderable
from tests.viewer_helpers import MATCHES, PlayedMatch, cards_in, play, unseen_faces

GAMES = sorted(MATCHES)
runner = CliRunner()


@pytest.fixture(scope="module")
def matches(tmp_path_factory: pytest.TempPathFactory) -> dict[str, PlayedMatch]:
    folder = tmp_path_factory.mktemp("viewer-records")
    return {game: play(game, folder / f"{game}.jsonl") for game in GAMES}


@pytest.fixture(scope="module")
def timelines(matches: dict[str, PlayedMatch]) -> dict[str, Timeline]:
    return {game: load(match.path) for game, match in matches.items()}


def _hand_sizes(state: object) -> list[int]:
    """What the engine holds in each seat's hand (Tex-Tac-Toe: stash plus committed cards)."""
    if isinstance(state, TexTacToeState):
        if not state.scores:
            return [0] * state.players
        return [len(s) + len(c) for s, c in zip(state.stashes, state.committed, strict=True)]
    assert isinstance(state, XixState | XactikaState | XeriState)
    return [len(hand) for hand in state.hands] if state.hands else []


def _engine_hand(state: object, seat: int) -> list[str]:
    if isinstance(state, XixState):
        return [str(card) for card in state.hands[seat]]
    if isinstance(state, XactikaState):
        return [XACTIKA_CARDS[card] for card in state.hands[seat]] if state.hands else []
    return []


# --- the timeline ---------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_timeline_replays_the_whole_match(
    game: str, timelines: dict[str, Timeline], matches: dict[str, PlayedMatch]
) -> None:
    timeline = timelines[game]
    assert timeline.problems == []
    assert timeline.result is not None
    assert timeline.steps[-1].state.is_terminal()
    assert timeline.steps[0].kind is StepKind.START
    actions = [step for step in timeline.steps if step.kind is StepKind.ACTION]
    assert len(actions) == sum(len(seat.observations) for seat in matches[game].seats)


@pytest.mark.parametrize("game", GAMES)
def test_each_seat_observation_is_what_the_engine_sent_it(
    game: str, timelines: dict[str, Timeline], matches: dict[str, PlayedMatch]
) -> None:
    """Before each action of a seat, the timeline's observation for it equals the one the referee
    put in that seat's ActionRequest; and the events a seat's view lists, step by step, are
    exactly the events the referee sent that seat."""
    timeline = timelines[game]
    for seat, bot in enumerate(matches[game].seats):
        decisions = [
            step.index
            for step in timeline.steps
            if step.kind is StepKind.ACTION and step.seat == seat
        ]
        rebuilt = []
        for index in decisions:
            wrapper = game_pb2.Observation()
            getattr(wrapper, game).CopyFrom(timeline.observation(index - 1, seat))
            rebuilt.append(wrapper)
        assert rebuilt == bot.observations
        seen = [e.text for i in range(len(timeline.steps)) for e in timeline.events(i, seat)]
        assert seen == [event.text for event in bot.events]


# --- per-seat views: nothing a seat could not see ------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_seat_view_shows_only_cards_the_seat_could_see(
    game: str, timelines: dict[str, Timeline]
) -> None:
    """Every face shown in a seat's table is in that seat's observation or in an event it was sent
    at that step; its hand is exactly its observation's; the other hands are backs, as many as
    the engine really holds."""
    timeline = timelines[game]
    for index, step in enumerate(timeline.steps):
        sizes = _hand_sizes(step.state)
        for seat in range(timeline.seats):
            table = timeline.table(index, seat)
            observation = timeline.observation(index, seat)
            known = cards_in(observation, game)
            for event in timeline.events(index, seat):
                known |= cards_in(event.payload, game)
            shown = {card.text for card in table.cards() if card.text}
            assert shown <= known, (index, seat, shown - known)
            for box in table.seats:
                if box.seat == seat:
                    hand = [card.text for card in box.hand]
                    field = "stash" if game == "textactoe" else "hand"
                    assert hand == [str(c) for c in getattr(observation, field)]
                else:
                    assert all(not card.text for card in box.hand), (index, seat, box.seat)
                    committed = sum(len(pile.cards) for pile in box.piles)
                    if sizes:
                        assert len(box.hand) + committed == sizes[box.seat], (index, box.seat)


@pytest.mark.parametrize("game", GAMES)
def test_everything_view_shows_every_hand(game: str, timelines: dict[str, Timeline]) -> None:
    timeline = timelines[game]
    for index, step in enumerate(timeline.steps):
        table = timeline.table(index, None)
        for box in table.seats:
            assert all(card.text for card in box.hand)
            engine = _engine_hand(step.state, box.seat)
            if engine:
                assert [card.text for card in box.hand] == engine
        sizes = _hand_sizes(step.state)
        if sizes:
            shown = [len(box.hand) + sum(len(p.cards) for p in box.piles) for box in table.seats]
            assert shown == sizes


def test_xix_strike_row_shows_peeks_to_the_peeker_only(timelines: dict[str, Timeline]) -> None:
    timeline = timelines["xix"]
    peeked = False
    for index in range(len(timeline.steps)):
        for seat in (0, 1):
            row = next(p for p in timeline.table(index, seat).piles if p.label == "strike row")
            slots = timeline.observation(index, seat).strike_row  # type: ignore[attr-defined]
            for card, slot in zip(row.cards, slots, strict=False):
                assert card.text == (str(slot.known_value) if slot.known_value else "")
                peeked = peeked or bool(slot.known_value)
    assert peeked


# --- terminal -------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_terminal_renders_every_view_of_every_step(
    game: str, timelines: dict[str, Timeline]
) -> None:
    timeline = timelines[game]
    console = Console(width=100, record=True, color_system="truecolor", force_terminal=True)
    steps = len(timeline.steps)
    for index in sorted({*range(0, steps, max(1, steps // 12)), steps - 1}):
        for viewer in timeline.views():
            table = timeline.table(index, viewer)
            with console.capture() as capture:
                console.print(table_renderable(table))
            text = capture.get()
            assert table.status.split(" · ")[0] in text
            for box in table.seats:
                assert box.name in text


def test_terminal_hides_other_hands_in_a_seat_view(timelines: dict[str, Timeline]) -> None:
    timeline = timelines["xeri"]
    index = next(i for i, s in enumerate(timeline.steps) if s.kind is StepKind.ACTION)
    console = Console(width=120, color_system=None)
    with console.capture() as capture:
        console.print(table_renderable(timeline.table(index, 0)))
    text = capture.get()
    state = timeline.steps[index].state
    assert isinstance(state, XeriState)
    from referee.games.xeri import CARD_TEXT

    for card in state.hands[1]:
        face = CARD_TEXT[card][0] + {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}[CARD_TEXT[card][1]]
        if face not in {c.text for c in timeline.table(index, 0).cards()}:
            assert face not in text


def _text(app: Stepper, widget: str) -> str:
    return str(app.query_one(widget, Static).content)


@pytest.mark.parametrize("game", GAMES)
def test_stepper_draws_every_game(game: str, timelines: dict[str, Timeline]) -> None:
    """A Textual session per game, driven by its pilot: a step, a trick, a seat's view."""
    timeline = timelines[game]

    async def run() -> None:
        app = Stepper(timeline)
        async with app.run_test(size=(120, 45)) as pilot:
            index = timeline.next_segment(0, major=True, forward=True)
            await pilot.press("pagedown", "right", "right_square_bracket")
            index = timeline.next_segment(index + 1, major=False, forward=True)
            assert app.index == index
            assert _text(app, "#caption") == "\n".join(timeline.caption(index, None))
            await pilot.press("2" if timeline.seats > 2 else "1")
            seat = 2 if timeline.seats > 2 else 1
            assert f"view: seat {seat}" in _text(app, "#status")
            assert _text(app, "#caption") == "\n".join(
                timeline.caption(index, seat) or ["(nothing this view could see)"]
            )

    asyncio.run(run())


@pytest.mark.parametrize("width", [80, 120])
def test_the_stepper_footer_fits_and_names_the_games_segments(
    width: int, timelines: dict[str, Timeline]
) -> None:
    """Issue 24.10: the footer was cut at 120 columns and said "next round" in XIX, which has
    exchanges."""

    async def run(timeline: Timeline) -> list[tuple[str, int]]:
        app = Stepper(timeline)
        async with app.run_test(size=(width, 30)) as pilot:
            await pilot.pause()
            return [(key.description, key.region.right) for key in app.query(FooterKey)]

    for game in GAMES:
        timeline = timelines[game]
        shown = asyncio.run(run(timeline))
        assert all(right <= width for _, right in shown), (game, shown)
        names = [description for description, _ in shown]
        assert {"next", "back", timeline.view.minor, timeline.view.major, "keys", "quit"} <= set(
            names
        ), (game, names)
    assert "round" not in names  # XIX's names, checked last


def test_captions_tell_each_action_once_with_cards_as_people_read_them(
    timelines: dict[str, Timeline],
) -> None:
    """Issue 24.10: an action and the event telling it made two lines, and Xactika's cards
    showed as codes (`1313`)."""
    for game in ("xactika", "xix", "xeri"):
        timeline = timelines[game]
        for index, step in enumerate(timeline.steps):
            if step.kind is not StepKind.ACTION or step.text.split()[0] not in {"bid", "play"}:
                continue
            for viewer in (None, step.seat):
                lines = timeline.caption(index, viewer)
                told = [line for line in lines if line.startswith(f"seat {step.seat} ")]
                assert len([line for line in told if " bid" in line or " play" in line]) == 1, lines
    for index in range(len(timelines["xactika"].steps)):
        for line in timelines["xactika"].caption(index, None):
            assert not re.search(r"\b[123]{4}\b", line), line


def test_stepper_steps_jumps_and_switches_views(timelines: dict[str, Timeline]) -> None:
    """Every key of the stepper, pressed as a person would."""
    timeline = timelines["xeri"]
    last = len(timeline.steps) - 1

    async def run() -> None:
        app = Stepper(timeline)
        async with app.run_test(size=(120, 45)) as pilot:
            await pilot.press("right", "right", "right", "left")
            assert app.index == 2
            assert "view: everything" in _text(app, "#status")
            assert _text(app, "#caption") == "\n".join(timeline.caption(2, None))
            await pilot.press("home", "right_square_bracket", "right_square_bracket")
            trick = timeline.next_segment(timeline.next_segment(0, False, True), False, True)
            assert app.index == trick
            await pilot.press("left_square_bracket")
            assert app.index == timeline.next_segment(trick, False, False)
            await pilot.press("home", "pagedown")
            assert app.index == timeline.next_segment(0, True, True)
            await pilot.press("end", "1")
            assert (app.index, app.viewer) == (last, 1)
            assert "view: seat 1" in _text(app, "#status")
            assert _text(app, "#caption").endswith(f"result: {timeline.result.text}")  # type: ignore[union-attr]
            await pilot.press("v", "v")
            views = timeline.views()
            assert app.viewer == views[(views.index(1) + 2) % len(views)]
            await pilot.press("V")
            assert app.viewer == views[(views.index(1) + 1) % len(views)]
            await pilot.press("o")
            assert app.viewer is None
            await pilot.press("question_mark")
            await pilot.press("g", "2", "enter")
            assert app.index == timeline.find(2)
            await pilot.press("g", "#", "5", "enter", "right")
            assert app.index == 6
            await pilot.press("g", "9", "9", "9", "enter", "escape")
            assert app.index == 6  # no round 999: the stepper stays put
            await pilot.press("space")
            assert app.player is not None
            await pilot.press("space")
            assert app.player is None
            await pilot.press("q")

    asyncio.run(run())


def test_stepper_draws_what_the_view_sees(timelines: dict[str, Timeline]) -> None:
    timeline = timelines["xix"]

    async def run() -> None:
        app = Stepper(timeline, 0)
        async with app.run_test(size=(120, 45)) as pilot:
            await pilot.press("right", "right")  # the first leader is drawn
            assert "chance" not in _text(app, "#caption")
            await pilot.press("o")
            assert _text(app, "#caption").startswith("chance: first leader")

    asyncio.run(run())


def test_stepper_refuses_a_seat_that_does_not_exist(timelines: dict[str, Timeline]) -> None:
    with pytest.raises(CroupierError, match="seat 7 does not exist"):
        Stepper(timelines["xix"], 7)


# --- HTML data ------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_html_holds_every_view_of_every_step(game: str, timelines: dict[str, Timeline]) -> None:
    timeline = timelines[game]
    data = json.loads(json.dumps(viewer_data(timeline)))  # as the page reads it
    parts = data["parts"]
    assert len(data["steps"]) == len(timeline.steps)
    assert data["views"][0] == "everything" and len(data["views"]) == timeline.seats + 1
    for index in range(0, len(timeline.steps), 5):
        step = data["steps"][index]
        for number, viewer in enumerate(timeline.views()):
            status, seats, piles = parts[step["table"][number]]
            expected = timeline.table(index, viewer).to_json()
            assert parts[status] == expected["status"]
            assert [parts[i] for i in seats] == expected["seats"]
            assert [parts[i] for i in piles] == expected["piles"]
            assert parts[step["caption"][number]] == timeline.caption(index, viewer)


@pytest.mark.parametrize("game", GAMES)
def test_a_seat_replay_holds_that_seat_s_view_alone(
    game: str, timelines: dict[str, Timeline]
) -> None:
    """Issue 46.4: a seat replay's data is its seat's tables, captions and moves and nothing
    else: no face the seat could not see at that step, no chance outcome, no other seat's
    action but as the events it was sent."""
    timeline = timelines[game]
    everything = json.loads(json.dumps(viewer_data(timeline)))
    for seat in range(timeline.seats):
        assert unseen_faces(everything, timeline, seat)  # the check sees a leak
        data = json.loads(json.dumps(viewer_data(timeline, only=seat)))
        assert data["views"] == [timeline.view_name(seat)]
        assert {move[1] for move in data["moves"]} == {seat}
        assert unseen_faces(data, timeline, seat) == []
        for index, step in enumerate(data["steps"]):
            assert len(step["table"]) == len(step["caption"]) == 1
            caption = data["parts"][step["caption"][0]]
            assert caption == timeline.caption(index, seat)
            assert not any(line.startswith("chance") for line in caption)


def test_a_seat_replay_of_a_tampered_record_does_not_repeat_its_action(tmp_path: Path) -> None:
    """The replay's problem names the recorded action, which may be another seat's."""
    played = play("xix", tmp_path / "m.jsonl")
    first_play = re.search(r'"text":"play (\d+)"', played.path.read_text())
    assert first_play is not None
    played.path.write_text(played.path.read_text().replace(first_play.group(0), '"text":"play 99"'))
    timeline = load(played.path)
    assert "play 99" in timeline.problems[0]
    page = render_html(timeline, 0, seat_only=True)
    assert "play 99" not in page and "could not be replayed to its end" in page
    with pytest.raises(CroupierError, match="one seat's"):
        render_html(timeline, seat_only=True)


def test_html_page_is_self_contained(timelines: dict[str, Timeline]) -> None:
    page = render_html(timelines["textactoe"], viewer=2)
    assert re.search(r"(src|href)\s*=", page) is None  # no external script, style, or link
    assert "http://" not in page and "https://" not in page
    assert "@import" not in page and "url(" not in page
    payload = page.split('type="application/json">', 1)[1].split("</script>", 1)[0]
    data = json.loads(payload)
    assert data["start_view"] == 3
    assert data["game"] == "textactoe"


def test_html_escapes_a_name_that_would_close_the_script(tmp_path: Path) -> None:
    played = play("xix", tmp_path / "m.jsonl")
    text = played.path.read_text().replace('"name":"random"', '"name":"</script><b>x"')
    played.path.write_text(text)
    page = render_html(load(played.path))
    assert page.count("</script>") == 2  # the data's and the code's own
    assert "<\\/script><b>x" in page


# --- bad records ----------------------------------------------------------------------------------


def test_truncated_record_keeps_its_steps_and_says_so(
    tmp_path: Path, matches: dict[str, PlayedMatch]
) -> None:
    lines = matches["xeri"].path.read_text().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[: len(lines) // 2]) + lines[len(lines) // 2][:20])
    timeline = load(cut)
    assert len(timeline.steps) > 10
    assert timeline.result is None
    assert any("truncated" in problem for problem in timeline.problems)
    assert viewer_data(timeline)["problems"] == timeline.problems


def test_tampered_record_stops_where_it_differs(
    tmp_path: Path, matches: dict[str, PlayedMatch]
) -> None:
    text = matches["xix"].path.read_text()
    bad = tmp_path / "bad.jsonl"
    first_play = re.search(r'"text":"play (\d+)"', text)
    assert first_play is not None
    bad.write_text(text.replace(first_play.group(0), '"text":"play 99"', 1))
    timeline = load(bad)
    assert timeline.problems and "recorded as 'play 99'" in timeline.problems[0]


def test_a_file_that_is_not_a_record_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "junk.jsonl"
    path.write_text("hello\n")
    with pytest.raises(RecordError):
        load(path)


# --- the command line -----------------------------------------------------------------------------


def test_replay_off_a_terminal_prints_todays_text(matches: dict[str, PlayedMatch]) -> None:
    path = matches["xix"].path
    expected = "\n".join(render(path, 1)) + "\n"
    for args in (
        ["replay", str(path), "--seat", "1"],
        ["replay", str(path), "--seat", "1", "--plain"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        assert result.output == expected


def test_replay_html_writes_the_viewer(tmp_path: Path, matches: dict[str, PlayedMatch]) -> None:
    out = tmp_path / "site" / "xix.html"
    result = runner.invoke(app, ["replay", str(matches["xix"].path), "--html", str(out)])
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.output
    page = out.read_text()
    assert "<title>XIX · viewer-xix-11 · croupier replay</title>" in page


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--seat", "4"], "seat 4 does not exist"),
        (["--seat", "-1"], "seat -1 does not exist"),
    ],
)
def test_replay_html_bad_input_exits_2(
    tmp_path: Path, matches: dict[str, PlayedMatch], extra: list[str], message: str
) -> None:
    out = tmp_path / "x.html"
    result = runner.invoke(app, ["replay", str(matches["xix"].path), "--html", str(out), *extra])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert not out.exists()


def test_replay_html_of_junk_exits_2(tmp_path: Path) -> None:
    junk = tmp_path / "junk.jsonl"
    junk.write_text('{"nope": 1}\n')
    result = runner.invoke(app, ["replay", str(junk), "--html", str(tmp_path / "x.html")])
    assert result.exit_code == 2
    assert "error:" in result.output
    assert "Traceback" not in result.output


def test_faults_show_to_the_referee_and_the_faulty_seat_only(tmp_path: Path) -> None:
    class Clumsy(RandomBot):
        name = "clumsy"

        def __init__(self) -> None:
            super().__init__(1)
            self.decisions = 0

        def act(self, request: referee_pb2.ActionRequest) -> int:
            self.decisions += 1
            if self.decisions == 2:
                raise RuntimeError("oops")
            return super().act(request)

    game = get_game("xix")
    config = MatchConfig(game, parse_options(game, {}), seed=3, match_id="clumsy")
    path = tmp_path / "clumsy.jsonl"
    trio.run(run_match, config, [InProcessSeat(RandomBot(0)), InProcessSeat(Clumsy())], path)
    timeline = load(path)
    index = next(i for i, step in enumerate(timeline.steps) if step.faults)
    assert timeline.steps[index].defaulted
    assert any("fault of seat 1: crashed" in line for line in timeline.caption(index, None))
    assert any("(played by the referee)" in line for line in timeline.caption(index, 1))
    assert not any("fault" in line for line in timeline.caption(index, 0))
    for viewer, shown in ((None, True), (1, True), (0, False)):
        box = timeline.table(index, viewer).seats[1]
        assert ("faults 1" in box.facts) is shown, viewer


def test_a_game_without_a_view_of_its_own_still_shows(timelines: dict[str, Timeline]) -> None:
    """A game that lands before its view does gets the generic one: seats and the observation."""
    timeline = dataclasses.replace(timelines["xix"], view=view_for("a-new-game"))
    assert isinstance(timeline.view, GenericView)
    table = timeline.table(5, 1)
    assert [box.name for box in table.seats] == list(timeline.names)
    assert "seat: 1" in table.status
    assert viewer_data(timeline)["steps"]
