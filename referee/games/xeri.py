"""Xeri, 2 players or 4 in two teams, standard 52-card deck (RULES.md section 3, XERI-R1..R15).

A fishing game: each turn a seat plays one card onto the pile. A card of the top card's rank, or
any jack, captures the whole pile (XERI-R5). Capturing a lone card with a card of its rank is a
Xeri, worth a bonus (XERI-R6). Six-card hands are redealt until the stock is gone; that ends a
round, which is scored by cards, honours and Xeris (XERI-R8, XERI-R9). A game is `rounds` rounds
(XERI-R11) or, under Variation 5, a race to 151 (XERI-R14).

Cards are small ints `rank * 4 + suit` (ranks 2..A as 0..12, suits C D H S as 0..3), so sorting a
hand sorts it by rank then suit; every per-card fact is a precomputed table.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Final

from croupier.v1 import xeri_pb2 as pb
from referee.errors import InvalidActionError
from referee.games.base import Action, ChanceOutcome, Event, Pick, Result, Shuffle
from referee.games.catalog import XERI, GameInfo
from referee.games.frozen import evolver
from referee.games.options import Options, OptionSpec

RANKS: Final = "23456789TJQKA"
SUITS: Final = "CDHS"
CARD_TEXT: Final = tuple(rank + suit for rank in RANKS for suit in SUITS)
CARD_OF: Final = {text: card for card, text in enumerate(CARD_TEXT)}
DECK: Final = CARD_TEXT
RANK_OF: Final = tuple(card >> 2 for card in range(52))
JACK: Final = RANKS.index("J")
IS_JACK: Final = tuple(rank == JACK for rank in RANK_OF)
TEN_OF_DIAMONDS: Final = CARD_OF["TD"]
TWO_OF_CLUBS: Final = CARD_OF["2C"]
#: XERI-R9 card points: 1 per A, K, Q, J, T; 1 more for 2C; 1 more for TD (so TD is worth 2).
CARD_POINTS: Final = tuple(
    (RANK_OF[card] >= RANKS.index("T")) + (card == TWO_OF_CLUBS) + (card == TEN_OF_DIAMONDS)
    for card in range(52)
)
HAND_SIZE: Final = 6
PILE_SIZE: Final = 4
PLAYS_PER_ROUND: Final = 48
MOST_CARDS_BONUS: Final = 3
XERI_POINTS: Final = 10
JACK_XERI_POINTS: Final = 20
JACK_XERI_POINTS_V4: Final = 25
FIRST_TARGET: Final = 151
TARGET_STEP: Final = 100
#: Not in the rules: under Variation 5 the game ends after this many rounds whatever the scores,
#: so that every game is finite (see docs/games/xeri.md); random play never comes near it.
MAX_ROUNDS_CUMULATIVE: Final = 100


class Phase(Enum):
    DEALER = "dealer"  # chance: the first dealer (XERI-R2)
    SHUFFLE = "shuffle"  # chance: the round's deck order
    CUT = "cut"  # chance (V1): where a jack shown at the bottom goes (XERI-R12)
    RESHUFFLE = "reshuffle"  # chance: the stock after a rejected initial pile (XERI-R4)
    PLAY = "play"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class XeriConfig:
    """The options of one game, as plain values."""

    players: int = 2
    rounds: int = 4
    cut_reveal: bool = False  # V1, XERI-R12
    lenient_pile: bool = False  # V2, XERI-R13
    no_last_xeri: bool = False  # V3
    jack_xeri_25: bool = False  # V4
    cumulative_151: bool = False  # V5, XERI-R14

    @classmethod
    def from_options(cls, options: Options) -> XeriConfig:
        return cls(
            players=options.integer("players"),
            rounds=options.integer("rounds"),
            cut_reveal=bool(options["var_cut_reveal"]),
            lenient_pile=bool(options["var_lenient_pile"]),
            no_last_xeri=bool(options["var_no_last_xeri"]),
            jack_xeri_25=bool(options["var_jack_xeri_25"]),
            cumulative_151=bool(options["var_cumulative_151"]),
        )

    @property
    def jack_xeri_points(self) -> int:
        return JACK_XERI_POINTS_V4 if self.jack_xeri_25 else JACK_XERI_POINTS


@dataclass(frozen=True, slots=True)
class XeriAction:
    """play CARD: the only action (XERI-R5: a capture happens by itself)."""

    card: int

    @property
    def text(self) -> str:
        return f"play {CARD_TEXT[self.card]}"

    def to_proto(self) -> pb.XeriAction:
        return pb.XeriAction(play=CARD_TEXT[self.card])


ACTIONS: Final = tuple(XeriAction(card) for card in range(52))
_DEAL: Final = Shuffle(DECK, "deal")
_ACTION_RE: Final = re.compile(r"play ([2-9TJQKA][CDHS])")


def cards_text(cards: Sequence[int]) -> list[str]:
    return [CARD_TEXT[card] for card in cards]


#: Who sees a seat's private events: the seat itself.
_SEATS: Final = tuple(frozenset({seat}) for seat in range(4))


def side_seats(players: int, side: int) -> tuple[int, ...]:
    return tuple(range(side, players, 2))


def side_name(players: int, side: int) -> str:
    if players == 2:
        return f"seat {side}"
    return f"team {side} (seats {'+'.join(map(str, side_seats(players, side)))})"


def deal_hands(cards: Sequence[int], players: int, dealer: int) -> tuple[tuple[int, ...], ...]:
    """XERI-R3: one card at a time, from the seat left of the dealer round to the dealer."""
    hands: list[tuple[int, ...]] = [()] * players
    for offset in range(players):
        seat = (dealer + 1 + offset) % players
        hands[seat] = tuple(sorted(cards[offset : HAND_SIZE * players : players]))
    return tuple(hands)


def pile_fault(pile: Sequence[int]) -> str:
    """Why an initial pile must be redealt (XERI-R4), or "" if it stands."""
    ranks = [RANK_OF[card] for card in pile]
    pair = len(set(ranks)) < len(ranks)
    jack = ranks[-1] == JACK
    if pair and jack:
        return "pair and jack"
    return "pair" if pair else ("jack" if jack else "")


@dataclass(frozen=True, slots=True)
class SideScore:
    """One side's round score (XERI-R9)."""

    cards: int
    most_cards: bool
    card_points: int
    xeris: int
    jack_xeris: int
    xeri_points: int

    @property
    def total(self) -> int:
        return MOST_CARDS_BONUS * self.most_cards + self.card_points + self.xeri_points


def score_round(
    captured: tuple[tuple[int, ...], tuple[int, ...]],
    xeris: tuple[tuple[int, ...], tuple[int, ...]],
    jack_xeri_points: int,
) -> tuple[SideScore, SideScore]:
    """Both sides' scores from their score piles and the cards of their Xeris."""
    scores = []
    for side in (0, 1):
        jacks = sum(IS_JACK[card] for card in xeris[side])
        plain = len(xeris[side]) - jacks
        scores.append(
            SideScore(
                cards=len(captured[side]),
                most_cards=len(captured[side]) > len(captured[1 - side]),  # a tie scores nobody 3
                card_points=sum(CARD_POINTS[card] for card in captured[side]),
                xeris=plain,
                jack_xeris=jacks,
                xeri_points=plain * XERI_POINTS + jacks * jack_xeri_points,  # XERI-R9: on top
            )
        )
    return scores[0], scores[1]


def _pair_with(pair: tuple[int, int], side: int, value: int) -> tuple[int, int]:
    return (value, pair[1]) if side == 0 else (pair[0], value)


def _cards_with(
    pair: tuple[tuple[int, ...], tuple[int, ...]], side: int, cards: tuple[int, ...]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return ((*pair[0], *cards), pair[1]) if side == 0 else (pair[0], (*pair[1], *cards))


def _dealt_events(hands: tuple[tuple[int, ...], ...], deal: int, stock: int) -> list[Event]:
    events = []
    for seat, hand in enumerate(hands):
        texts = cards_text(hand)
        payload = pb.XeriEvent()
        payload.dealt.hand.extend(texts)  # in place, as a capture's (see XeriState.apply)
        events.append(Event(f"seat {seat} is dealt {' '.join(texts)}", payload, _SEATS[seat]))
    events.append(
        Event(
            f"deal {deal}: {HAND_SIZE} cards each, {stock} left in the stock",
            pb.XeriEvent(hands_dealt=pb.XeriHandsDealt(deal=deal, stock_size=stock)),
        )
    )
    return events


def _pile_event(pile: tuple[int, ...]) -> Event:
    texts = cards_text(pile)
    return Event(
        f"the pile is {' '.join(texts)}", pb.XeriEvent(initial_pile=pb.XeriInitialPile(cards=texts))
    )


# Python 3.11 looks a member up on an Enum class (`Phase.OVER`) about ten times slower than a
# module global, and the states' methods run at every decision: they use these aliases.
_PHASE_CUT: Final = Phase.CUT
_PHASE_DEALER: Final = Phase.DEALER
_PHASE_OVER: Final = Phase.OVER
_PHASE_PLAY: Final = Phase.PLAY
_PHASE_RESHUFFLE: Final = Phase.RESHUFFLE
_PHASE_SHUFFLE: Final = Phase.SHUFFLE


@dataclass(frozen=True, slots=True, kw_only=True)
class XeriState:
    """A Xeri position. `pile` is bottom first; `stock` is top first (during the cut, the whole
    deck). `captured` and `xeris` are per side and keep the last round's values until the next
    shuffle; `xeris` holds the lone card each Xeri captured."""

    config: XeriConfig = XeriConfig()
    phase: Phase = Phase.DEALER
    dealer: int = 0
    round: int = 0
    deal: int = 0
    hands: tuple[tuple[int, ...], ...] = ()
    pile: tuple[int, ...] = ()
    stock: tuple[int, ...] = ()
    bottom: int = -1
    captured: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    xeris: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    unclaimed: tuple[int, ...] = ()
    last_capturer: int = -1
    to_move_seat: int = -1
    plays: int = 0
    points: tuple[int, int] = (0, 0)
    round_wins: tuple[int, int] = (0, 0)
    target: int = 0
    winner: int = -1
    events: tuple[Event, ...] = ()

    @property
    def to_move(self) -> int | None:
        return self.to_move_seat if self.to_move_seat >= 0 else None

    def chance(self) -> Shuffle | Pick | None:
        phase = self.phase
        if phase is _PHASE_SHUFFLE:
            return _DEAL
        if phase is _PHASE_DEALER:
            return Pick(self.config.players, "dealer")  # XERI-R2
        if phase is _PHASE_CUT:
            return Pick(_cut_positions(self.stock), "cut")  # XERI-R12
        if phase is _PHASE_RESHUFFLE:
            return Shuffle(tuple(cards_text(sorted(self._reshuffled()))), "reshuffle")  # XERI-R4
        return None

    def is_terminal(self) -> bool:
        return self.phase is _PHASE_OVER

    def legal_actions(self) -> Sequence[XeriAction]:
        if self.phase is not _PHASE_PLAY:
            return []
        return [ACTIONS[card] for card in self.hands[self.to_move_seat]]

    # Chance.

    def apply_chance(self, outcome: ChanceOutcome) -> XeriState:
        phase = self.phase
        if phase is _PHASE_DEALER:
            assert isinstance(outcome, int)
            event = Event(
                f"seat {outcome} deals first",
                pb.XeriEvent(dealer_chosen=pb.XeriDealerChosen(seat=outcome)),
            )
            return self._next_round(outcome, 1, (event,))
        if phase is _PHASE_CUT:
            assert isinstance(outcome, int)
            deck = self.stock
            # XERI-R12: the jack goes to the chosen place above the bottom non-jack card.
            moved = (*deck[:outcome], deck[-1], *deck[outcome:-1])
            return self._reveal(moved, [])
        assert isinstance(outcome, tuple)
        order = tuple(map(CARD_OF.__getitem__, outcome))
        if phase is _PHASE_SHUFFLE:
            return self._shuffled(order)
        if self.config.cut_reveal:
            order = (*order, self.bottom)  # XERI-R12: the shown card stays at the bottom.
        return _evolve(self, pile=order[:PILE_SIZE], stock=order[PILE_SIZE:])._lay_pile([])

    def _reshuffled(self) -> tuple[int, ...]:
        """The cards a pile redeal shuffles: the stock, less the shown bottom card (V1)."""
        return self.stock[:-1] if self.config.cut_reveal else self.stock

    def _next_round(self, dealer: int, number: int, events: tuple[Event, ...]) -> XeriState:
        return _evolve(
            self,
            phase=_PHASE_SHUFFLE,
            dealer=dealer,
            round=number,
            to_move_seat=-1,
            target=self.target or (FIRST_TARGET if self.config.cumulative_151 else 0),
            events=events,
        )

    def _shuffled(self, deck: tuple[int, ...]) -> XeriState:
        started = Event(
            f"round {self.round}: seat {self.dealer} deals",
            pb.XeriEvent(round_started=pb.XeriRoundStarted(round=self.round, dealer=self.dealer)),
        )
        fresh = _evolve(
            self,
            deal=0,
            hands=((),) * self.config.players,
            pile=(),
            stock=deck,
            bottom=-1,
            captured=((), ()),
            xeris=((), ()),
            unclaimed=(),
            last_capturer=-1,
            plays=0,
        )
        if self.config.cut_reveal:
            return fresh._reveal(deck, [started])
        return fresh._deal_round(deck, [started])

    def _reveal(self, deck: tuple[int, ...], events: list[Event]) -> XeriState:
        """V1: show the bottom card; a jack goes up at random (another chance node)."""
        bottom = deck[-1]
        moved = IS_JACK[bottom]
        text = "is moved up" if moved else "stays"
        events.append(
            Event(
                f"the bottom card {CARD_TEXT[bottom]} is shown and {text}",
                pb.XeriEvent(bottom_card=pb.XeriBottomCard(card=CARD_TEXT[bottom], moved=moved)),
            )
        )
        if moved:
            return _evolve(self, phase=_PHASE_CUT, stock=deck, events=tuple(events))
        return _evolve(self, bottom=bottom)._deal_round(deck, events)

    def _deal_round(self, deck: tuple[int, ...], events: list[Event]) -> XeriState:
        players = self.config.players
        dealt = HAND_SIZE * players
        hands = deal_hands(deck, players, self.dealer)
        stock = deck[dealt + PILE_SIZE :]
        events.extend(_dealt_events(hands, 1, len(stock)))
        state = _evolve(
            self, deal=1, hands=hands, pile=deck[dealt : dealt + PILE_SIZE], stock=stock
        )
        return state._lay_pile(events)

    def _lay_pile(self, events: list[Event]) -> XeriState:
        """Show the initial pile; redeal it (XERI-R4) unless it stands or V2 is on (XERI-R13)."""
        pile = self.pile
        events.append(_pile_event(pile))
        fault = "" if self.config.lenient_pile else pile_fault(pile)
        if not fault:
            first = (self.dealer + 1) % self.config.players
            return _evolve(self, phase=_PHASE_PLAY, to_move_seat=first, events=tuple(events))
        events.append(
            Event(
                f"the pile {' '.join(cards_text(pile))} is rejected ({fault}): "
                "it goes back into the stock, which is reshuffled",
                pb.XeriEvent(
                    pile_rejected=pb.XeriPileRejected(cards=cards_text(pile), reason=fault)
                ),
            )
        )
        stock = self.stock
        # The shown bottom card (V1) stays last; the rest is shuffled anyway.
        pending = (*stock[:-1], *pile, stock[-1])
        return _evolve(self, phase=_PHASE_RESHUFFLE, pile=(), stock=pending, events=tuple(events))

    # Play.

    def apply(self, action: Action) -> XeriState:
        assert isinstance(action, XeriAction)
        config = self.config
        card = action.card
        seat = self.to_move_seat
        players = config.players
        hand = self.hands[seat]
        i = hand.index(card)
        hands = (*self.hands[:seat], hand[:i] + hand[i + 1 :], *self.hands[seat + 1 :])
        pile = self.pile
        plays = self.plays + 1
        played = _played_events(seat, card)
        captured = self.captured
        xeris = self.xeris
        last_capturer = self.last_capturer
        events: list[Event] | None = None  # None: only the play's own event (the common case)
        rank = RANK_OF[card]
        # XERI-R5: a card of the top card's rank, or any jack, takes a non-empty pile.
        if pile and (rank == RANK_OF[pile[-1]] or rank == JACK):
            side = seat & 1
            taken = (*pile, card)
            captured = _cards_with(captured, side, taken)
            last_capturer = seat
            texts = cards_text(taken)
            # Filled in place: half the cost of building the nested messages and copying them.
            payload = pb.XeriEvent()
            capture = payload.captured
            capture.seat = seat
            capture.team = side
            capture.cards.extend(texts)
            events = [*played, Event(f"seat {seat} captures {' '.join(texts)}", payload)]
            # XERI-R6: a lone card taken by its own rank (jack on jack too); not by V3's last card.
            if (
                len(pile) == 1
                and RANK_OF[pile[0]] == rank
                and not (config.no_last_xeri and plays == PLAYS_PER_ROUND)
            ):
                lone = pile[0]
                jack = rank == JACK
                points = config.jack_xeri_points if jack else XERI_POINTS
                xeris = _cards_with(xeris, side, (lone,))
                kind = "Jack Xeri" if jack else "Xeri"
                events.append(
                    Event(
                        f"seat {seat} makes a {kind} on {CARD_TEXT[lone]} ({points} points)",
                        pb.XeriEvent(
                            xeri=pb.XeriXeri(
                                seat=seat, team=side, card=CARD_TEXT[lone], jack=jack, points=points
                            )
                        ),
                    )
                )
            pile = ()
        else:
            pile = (*pile, card)
        stock = self.stock
        deal = self.deal
        if not any(hands):
            if events is None:
                events = list(played)
            if not stock:
                return self._end_round(
                    hands=hands,
                    pile=pile,
                    captured=captured,
                    xeris=xeris,
                    last_capturer=last_capturer,
                    plays=plays,
                    events=events,
                )
            # XERI-R3: a new deal in the same order; play goes on unbroken (left of the dealer).
            hands = deal_hands(stock, players, self.dealer)
            stock = stock[HAND_SIZE * players :]
            deal += 1
            events.extend(_dealt_events(hands, deal, len(stock)))
        # A play is legal in the play phase only, where nothing is unclaimed and nobody has won.
        return _evolve(
            self,
            deal=deal,
            hands=hands,
            pile=pile,
            stock=stock,
            captured=captured,
            xeris=xeris,
            last_capturer=last_capturer,
            to_move_seat=(seat + 1) % players,
            plays=plays,
            events=played if events is None else tuple(events),
        )

    def _end_round(
        self,
        *,
        hands: tuple[tuple[int, ...], ...],
        pile: tuple[int, ...],
        captured: tuple[tuple[int, ...], tuple[int, ...]],
        xeris: tuple[tuple[int, ...], tuple[int, ...]],
        last_capturer: int,
        plays: int,
        events: list[Event],
    ) -> XeriState:
        config = self.config
        players = config.players
        unclaimed: tuple[int, ...] = ()
        if pile:
            # XERI-R8: the last capturer's side takes what is left (not a Xeri); else nobody.
            if last_capturer >= 0:
                side = last_capturer & 1
                captured = _cards_with(captured, side, pile)
                who = side_name(players, side)
                last = pb.XeriLastCards(team=side, cards=cards_text(pile))
            else:
                unclaimed = pile
                who = "nobody"
                last = pb.XeriLastCards(cards=cards_text(pile))
            events.append(
                Event(
                    f"{who} takes the last cards {' '.join(cards_text(pile))}",
                    pb.XeriEvent(last_cards=last),
                )
            )
        scores = score_round(captured, xeris, config.jack_xeri_points)
        totals = (scores[0].total, scores[1].total)
        points = (self.points[0] + totals[0], self.points[1] + totals[1])
        round_winner = -1 if totals[0] == totals[1] else (0 if totals[0] > totals[1] else 1)
        round_wins = self.round_wins
        if round_winner >= 0:  # XERI-R10: equal points, no round win
            round_wins = _pair_with(round_wins, round_winner, round_wins[round_winner] + 1)
        summary = ", ".join(f"{side_name(players, s)} {totals[s]}" for s in (0, 1))
        outcome = (
            f"{side_name(players, round_winner)} wins it" if round_winner >= 0 else "it is drawn"
        )
        scored = pb.XeriRoundScored(
            round=self.round,
            sides=[
                pb.XeriSideScore(
                    cards=score.cards,
                    most_cards=score.most_cards,
                    card_points=score.card_points,
                    xeris=score.xeris,
                    jack_xeris=score.jack_xeris,
                    xeri_points=score.xeri_points,
                    total=score.total,
                    points=points[s],
                    round_wins=round_wins[s],
                )
                for s, score in enumerate(scores)
            ],
        )
        if round_winner >= 0:
            scored.winner = round_winner
        events.append(
            Event(
                f"round {self.round} scores {summary}: {outcome} "
                f"(points {points[0]}-{points[1]}, round wins {round_wins[0]}-{round_wins[1]})",
                pb.XeriEvent(round_scored=scored),
            )
        )
        ended = _evolve(
            self,
            hands=hands,
            pile=(),
            captured=captured,
            xeris=xeris,
            unclaimed=unclaimed,
            last_capturer=last_capturer,
            plays=plays,
            points=points,
            round_wins=round_wins,
            to_move_seat=-1,
        )
        winner, over, target = self._game_winner(points, round_wins, events)
        if not over:
            dealer = (self.dealer + 1) % players  # XERI-R2: the deal passes clockwise
            return _evolve(ended, target=target)._next_round(dealer, self.round + 1, tuple(events))
        game_over = pb.XeriGameOver(points=points, round_wins=round_wins)
        if winner >= 0:
            game_over.winner = winner
        events.append(
            Event(
                _result_text(config, winner, points=points, round_wins=round_wins, target=target),
                pb.XeriEvent(game_over=game_over),
            )
        )
        return _evolve(ended, phase=_PHASE_OVER, winner=winner, target=target, events=tuple(events))

    def _game_winner(
        self, points: tuple[int, int], round_wins: tuple[int, int], events: list[Event]
    ) -> tuple[int, bool, int]:
        """(winning side or -1, whether the game is over, the target) after a round."""
        config = self.config
        if config.cumulative_151:
            target = self.target
            # XERI-R14: both sides at the target in the same round raise it by 100, repeatedly.
            while points[0] >= target and points[1] >= target:
                target += TARGET_STEP
                events.append(
                    Event(
                        f"the target rises to {target}",
                        pb.XeriEvent(target_raised=pb.XeriTargetRaised(target=target)),
                    )
                )
            reached = [side for side in (0, 1) if points[side] >= target]
            if reached:
                return reached[0], True, target
            if self.round < MAX_ROUNDS_CUMULATIVE:
                return -1, False, target
            return _better(points), True, target
        if self.round < config.rounds:
            return -1, False, 0
        # XERI-R11: most round wins, then most points, else a draw.
        winner = _better(round_wins)
        return (winner if winner >= 0 else _better(points)), True, 0

    # Views.

    def observation(self, seat: int) -> pb.XeriObservation:
        config = self.config
        players = config.players
        pile = self.pile
        observation = pb.XeriObservation(
            seat=seat,
            players=players,
            team=seat & 1,
            hand=cards_text(self.hands[seat]) if self.hands else (),
            hand_sizes=[len(hand) for hand in self.hands] if self.hands else [0] * players,
            pile_cards=cards_text(pile),
            top_card=CARD_TEXT[pile[-1]] if pile else None,
            pile_size=len(pile),
            stock_size=len(self.stock) if self.phase is _PHASE_PLAY else 0,
            dealer=self.dealer,
            to_move=max(self.to_move_seat, 0),
            round=self.round,
            rounds=None if config.cumulative_151 else config.rounds,
            plays=self.plays,
            deal=self.deal,
            bottom_card=CARD_TEXT[self.bottom] if self.bottom >= 0 else None,
            # Under var_cumulative_151 the target is FIRST_TARGET until the first round sets it.
            target=(self.target or FIRST_TARGET) if config.cumulative_151 else None,
        )
        if self.last_capturer >= 0:
            observation.last_capturer = self.last_capturer
        captured, xeris, points, wins = self.captured, self.xeris, self.points, self.round_wins
        observation.MergeFromString(
            _side_entry(players, 0, len(captured[0]), xeris[0], points[0], wins[0])
            + _side_entry(players, 1, len(captured[1]), xeris[1], points[1], wins[1])
        )
        return observation

    def result(self) -> Result:
        config = self.config
        players = config.players
        winner = self.winner
        side_ranks = (1, 1) if winner < 0 else ((1, 2) if winner == 0 else (2, 1))
        return Result(
            scores=tuple(self.points[seat & 1] for seat in range(players)),
            ranks=tuple(side_ranks[seat & 1] for seat in range(players)),
            text=_result_text(
                config,
                winner,
                points=self.points,
                round_wins=self.round_wins,
                target=self.target,
            ),
            teams=tuple(seat & 1 for seat in range(players)) if players == 4 else None,
        )


@cache
def _played_events(seat: int, card: int) -> tuple[Event]:
    """A play's event depends only on the seat and the card, so each is built once and shared by
    every state that has it (events are immutable values; never mutate a payload)."""
    text = CARD_TEXT[card]
    payload = pb.XeriEvent(played=pb.XeriPlayed(seat=seat, card=text))
    return (Event(f"seat {seat} plays {text}", payload),)


# Transitions copy a state with their changes, fast (see referee/games/frozen.py).
if TYPE_CHECKING:
    from dataclasses import replace as _evolve
else:
    _evolve = evolver(XeriState)


@lru_cache(maxsize=4096)
def _side_entry(
    players: int, side: int, captured: int, xeris: tuple[int, ...], points: int, round_wins: int
) -> bytes:
    """The encoding of one side's XeriSide in an observation, built once per value: an
    observation merges its two sides' encodings with one parse (protobuf parses concatenated
    encodings as the merge of the messages), which costs less than building the messages."""
    entry = pb.XeriSide(
        seats=side_seats(players, side),
        captured=captured,
        xeris=cards_text(xeris),
        points=points,
        round_wins=round_wins,
    )
    return pb.XeriObservation(sides=[entry]).SerializeToString()


def _cut_positions(deck: tuple[int, ...]) -> int:
    """XERI-R12: the bottom jack may go anywhere above the lowest non-jack card of the deck, so
    a run of jacks at the bottom is cleared in as many steps as it has jacks."""
    lowest = max(i for i, card in enumerate(deck) if not IS_JACK[card])
    return lowest + 1


def _better(pair: tuple[int, int]) -> int:
    if pair[0] == pair[1]:
        return -1
    return 0 if pair[0] > pair[1] else 1


def _result_text(
    config: XeriConfig,
    winner: int,
    *,
    points: tuple[int, int],
    round_wins: tuple[int, int],
    target: int,
) -> str:
    players = config.players
    if config.cumulative_151:
        detail = f"points {points[0]}-{points[1]}, target {target}"
    else:
        detail = f"round wins {round_wins[0]}-{round_wins[1]}, points {points[0]}-{points[1]}"
    if winner < 0:
        return f"draw between {side_name(players, 0)} and {side_name(players, 1)} ({detail})"
    return f"{side_name(players, winner)} beats {side_name(players, 1 - winner)} ({detail})"


@dataclass(frozen=True, slots=True)
class Xeri:
    """The Xeri game: `players` 2 or 4, `rounds`, and the five variations (all off)."""

    id: str = XERI.id
    info: GameInfo = XERI
    title: str = XERI.title
    rules_version: str = XERI.rules_version
    option_specs: tuple[OptionSpec, ...] = XERI.option_specs

    def seat_count(self, options: Options) -> int:
        return options.integer("players")

    def new_game(self, options: Options) -> XeriState:
        return XeriState(config=XeriConfig.from_options(options))

    def parse_action(self, text: str) -> XeriAction:
        match = _ACTION_RE.fullmatch(text.strip())
        if match is None:
            raise InvalidActionError(
                f"malformed Xeri action {text!r}: expected 'play CARD' with a card like 'TD' "
                "(rank 2-9 T J Q K A, then suit C D H S)"
            )
        return ACTIONS[CARD_OF[match.group(1)]]
