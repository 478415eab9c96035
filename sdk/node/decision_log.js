// @ts-check
/**
 * Your bot's own log, each line tagged with the decision it came during, as a hosted bot's is
 * (issue 46.4): the file the Python SDK's `croupier.DecisionLog` writes, byte for byte.
 *
 *     import { decisionLog } from "croupier-sdk";
 *
 *     const log = decisionLog("bot-log.jsonl");
 *     // in act(): log("searched %d nodes, best %s", nodes, best);
 *
 * `log` takes what `console.log` takes (util.format: `%d`, `%s`, objects, an Error's stack) and
 * appends JSON Lines `{"match": M, "decision": N, "line": "..."}`, one per line of the message,
 * so that `croupier replay RECORD --seat S --log bot-log.jsonl` shows each line beside its
 * decision. The SDK sets the current match and decision (ActionRequest.match_id and .decision)
 * when a request arrives, before `onEvent` and `act`, and they hold until the next request: a
 * line logged after a reply, or in `onMatchEnd`, belongs to the seat's latest decision. Before
 * the match's first request the decision is 0; outside any match nothing is written.
 */

import { AsyncLocalStorage } from "node:async_hooks";
import { closeSync, openSync, writeSync } from "node:fs";
import { format } from "node:util";

/**
 * The longest message line written, in characters (code points, as Python counts them); a
 * longer one is cut and says so, so that no line of the file is too long for the replay to read.
 */
export const MAX_LINE_CHARS = 65536;

/**
 * Where a session is: the match it plays (undefined between matches) and its latest decision
 * there (0 before its first request, or from a referee older than ActionRequest.decision).
 * The SDK changes it in place as messages arrive, so a timer or a promise of the bot's that
 * logs later tags its line with the decision the session is at then.
 */
export class Place {
  /** @type {string | undefined} */
  match = undefined;
  decision = 0;
}

/**
 * Each session's Place, for the code it runs (the bot's hooks, and whatever they start: timers,
 * promises, streams): several sessions at once each tag their own lines.
 * @type {AsyncLocalStorage<Place>}
 */
export const places = new AsyncLocalStorage();

/**
 * The match and decision of the code running now, for a logger of your own; undefined outside
 * any match (or in code started outside the SDK's sessions, before `run`).
 * @returns {{ match: string, decision: number } | undefined}
 */
export function currentDecision() {
  const place = places.getStore();
  if (place?.match === undefined) {
    return undefined;
  }
  return { match: place.match, decision: place.decision };
}

/**
 * A function taking `console.log`'s arguments that appends the message to `path` as JSON Lines
 * tagged with the current match and decision (see the module's doc); messages logged outside
 * any match are dropped. The file is opened now, for appending (a bad path throws here, at
 * start), and each message is one write, so that a bot killed mid-match leaves every line it
 * logged. Writing never throws into the bot: a failed write is said once on stderr.
 * `log.close()` closes the file; later messages are dropped.
 * @param {string} path
 * @returns {((...args: unknown[]) => void) & { close: () => void }}
 */
export function decisionLog(path) {
  /** @type {number | undefined} */
  let fd = openSync(path, "a");
  let failed = false;
  /** @param {unknown[]} args */
  const log = (...args) => {
    const where = currentDecision();
    if (where === undefined || fd === undefined) {
      return;
    }
    try {
      writeAll(fd, entries(where, format(...args)));
    } catch (error) {
      if (!failed) {
        failed = true;
        const why = error instanceof Error ? error.message : String(error);
        const shown = JSON.stringify(path);
        process.stderr.write(`croupier: cannot write the decision log ${shown}: ${why}\n`);
      }
    }
  };
  log.close = () => {
    if (fd !== undefined) {
      closeSync(fd);
      fd = undefined;
    }
  };
  return log;
}

/**
 * Line breaks as Python's str.splitlines sees them, so that both SDKs write the same entries.
 */
const LINE_BREAK = /\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/;

/**
 * The file's lines for one message, as Python's `json.dumps(entry, ensure_ascii=False)` writes
 * them. A lone surrogate (no character at all) becomes U+FFFD, so the file is always UTF-8.
 * @param {{ match: string, decision: number }} where
 * @param {string} text
 */
function entries(where, text) {
  const lines = text.toWellFormed().split(LINE_BREAK);
  if (lines.length > 1 && lines[lines.length - 1] === "") {
    lines.pop(); // a message ending in a line break has no empty last line (splitlines)
  }
  const head = `{"match": ${JSON.stringify(where.match)}, "decision": ${where.decision}, "line": `;
  return lines.map((line) => `${head}${JSON.stringify(cut(line))}}\n`).join("");
}

/**
 * `line` cut to MAX_LINE_CHARS code points, saying how many more it had.
 * @param {string} line
 */
function cut(line) {
  if (line.length <= MAX_LINE_CHARS) {
    return line; // UTF-16 units: never fewer than its code points
  }
  let end = 0;
  for (let kept = 0; kept < MAX_LINE_CHARS && end < line.length; kept++) {
    end += /** @type {number} */ (line.codePointAt(end)) > 0xffff ? 2 : 1;
  }
  let rest = 0;
  for (let at = end; at < line.length; rest++) {
    at += /** @type {number} */ (line.codePointAt(at)) > 0xffff ? 2 : 1;
  }
  return rest === 0 ? line : `${line.slice(0, end)}... [${rest} characters cut]`;
}

/**
 * @param {number} fd
 * @param {string} text
 */
function writeAll(fd, text) {
  const bytes = Buffer.from(text, "utf8");
  for (let done = 0; done < bytes.length; ) {
    done += writeSync(fd, bytes, done);
  }
}
