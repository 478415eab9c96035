// A random Node bot that logs through the SDK's decisionLog into the file named by its first
// argument (tests/test_node_decision_log.py): a line at each match start, at each decision two
// (one of them markup, which every viewer must show as text) and, after a pause of its async
// act, a third naming the decision and match it believes it is in; at its first decision of a
// match also every message of the JSON list named by its second argument (hostile text), and an
// Error; a line at each match's end. Lines logged outside a match must not be written.
//   node node_logging_bot.js LOG [MESSAGES.json]
import { readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

import { Bot, decisionLog, run } from "../../sdk/node/index.js";

const [path, messagesPath] = process.argv.slice(2);
const log = decisionLog(path);
const messages = messagesPath ? JSON.parse(readFileSync(messagesPath, "utf8")) : [];
log("before any match"); // dropped: no match yet

class LoggingBot extends Bot {
  name = "logging-node";
  version = "1";

  onMatchStart(start) {
    this.first = true;
    log("seated at %d", start.seat);
  }

  async act(request) {
    const index = Math.floor(Math.random() * request.legal_actions.length);
    const text = request.legal_actions[index].text;
    log("decision %d: %s\n<script>alert(1)</script>", request.decision, text);
    if (this.first) {
      this.first = false;
      for (const message of messages) {
        log("%s", message);
      }
      log("caught", new Error("boom"));
    }
    await sleep(Math.random() * 20); // other sessions' requests arrive meanwhile
    log("still %d in %s", request.decision, request.match_id);
    return index;
  }

  onMatchEnd(end) {
    log("over");
    setTimeout(() => log("after the match"), 0); // dropped: the match is over by then
  }
}

run(LoggingBot);
