// A Node bot for the SDK's tests: node node_modes.js MODE.
//   count: random legal actions; reports at each match end how many events it was given
//   late_async: its second act() returns a promise that never settles (the SDK must answer in time)
//   undefined: its second act() returns undefined (the SDK must refuse to send it)
import { Bot, run } from "../../sdk/node/index.js";

const mode = process.argv[2];
if (!["count", "late_async", "undefined"].includes(mode)) {
  process.stderr.write("usage: node_modes.js {count,late_async,undefined}\n");
  process.exit(2);
}

class ModeBot extends Bot {
  name = `node-${mode}`;
  version = "1";

  onMatchStart(start) {
    this.seat = start.seat;
    this.events = 0;
    this.requests = 0;
  }

  onEvent(event) {
    this.events += 1;
  }

  act(request) {
    this.requests += 1;
    if (this.requests === 2 && mode === "late_async") {
      return new Promise(() => {});
    }
    if (this.requests === 2 && mode === "undefined") {
      return undefined;
    }
    return Math.floor(Math.random() * request.legal_actions.length);
  }

  onMatchEnd(end) {
    const faults = end.faults.map((fault) => fault.reason).join(",") || "none";
    process.stderr.write(
      `match ${end.match_id} seat ${this.seat} events ${this.events} faults ${faults}\n`,
    );
  }
}

// A wide slack, so that a loaded test machine cannot make the late answer late.
run(ModeBot, { slackMs: 200 });
