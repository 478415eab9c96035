// The smallest croupier bot in Node.js: a uniformly random legal action, for every game
// (xix, xactika, xeri, textactoe). It needs nothing game-specific: the referee sends the legal
// actions with each request, and the bot answers with an index into that list.
//
//   (cd sdk/node && npm ci)
//   CROUPIER_ADDRESS=127.0.0.1:50051 CROUPIER_TOKEN=secret node examples/node/random_bot.js
//   croupier match xeri --bot "node examples/node/random_bot.js" \
//       --bot "python examples/python/random_bot.py"
import { Bot, run } from "./sdk.js";

class RandomBot extends Bot {
  name = "random-node";
  version = "1";

  act(request) {
    return Math.floor(Math.random() * request.legal_actions.length);
  }
}

run(RandomBot);
