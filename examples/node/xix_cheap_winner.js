// A XIX bot that reads the typed observation: when following, it plays the cheapest card that
// takes the trick (XIX-R4: the higher card takes it, unless the two add up to 19, when the
// lower one does), else its lowest card; everything else (leads, strikes, drafts, trades) it
// picks at random. The shapes are the .proto's: request.observation.xix is an XixObservation,
// each legal action's `xix` an XixAction whose `kind` names the oneof case that is set.
// Given a file, it logs why it played each card there, tagged by decision (the SDK's
// decisionLog), for `croupier replay RECORD --seat S --log FILE` to show beside each.
//
//   croupier match xix --bot "node examples/node/xix_cheap_winner.js cheap.jsonl" \
//       --bot "python examples/python/random_bot.py" --records records
//   croupier replay records/*.jsonl --seat 0 --log cheap.jsonl
import { Bot, decisionLog, run } from "./sdk.js";

const [logFile] = process.argv.slice(2);
const log = logFile ? decisionLog(logFile) : () => {};

const TARGET = 19;

function takes(lead, follow) {
  return lead + follow === TARGET ? follow < lead : follow > lead;
}

class XixCheapWinner extends Bot {
  name = "xix-cheap-winner";
  version = "1";
  games = ["xix"];

  act(request) {
    const obs = request.observation.xix;
    const actions = request.legal_actions.map((action) => action.xix);
    if (actions[0].kind === "play" && obs.trick.length === 1) {
      const lead = obs.trick[0];
      const cards = actions.map((action) => action.play);
      const winners = cards.filter((card) => takes(lead, card));
      const card = Math.min(...(winners.length > 0 ? winners : cards));
      const why = winners.length > 0 ? "the cheapest that takes it" : "none takes it: my lowest";
      log("following %d: %s, %d", lead, why, card);
      return cards.indexOf(card);
    }
    return Math.floor(Math.random() * actions.length);
  }
}

run(XixCheapWinner);
