// @ts-check
/**
 * croupier: the Node.js SDK for bots that play on a croupier referee.
 *
 *     import { Bot, run } from "croupier-sdk";
 *
 *     class MyBot extends Bot {
 *       name = "my-bot";
 *       act(request) {
 *         return 0; // the index of a legal action in request.legal_actions
 *       }
 *     }
 *
 *     run(MyBot);
 *
 * A thin client: @grpc/grpc-js for the stream and @grpc/proto-loader to read the repository's
 * .proto files at run time (no generated code, no copy). Messages are plain objects whose field
 * names are exactly the .proto's (snake_case): `request.legal_actions`,
 * `request.clock.deadline_ms`.
 * A oneof's case is named by its oneof field: `message.kind === "action_request"`,
 * `request.observation.game === "xix"`. Enums arrive as their names ("FAULT_REASON_TIMEOUT") and
 * 64-bit integers as numbers (exact below 2^53, far above any id or score the referee sends).
 * A proto3 `optional` field that is unset is absent (`undefined`), never a zero: "no value" in
 * every message is an unset `optional` (`request.clock.deadline_ms` without a time limit, a seat's
 * `bids[s].bid` before it bids); when set, the object also names it in `_<field>`.
 *
 * `decisionLog(path)` is a logger that tags each line with the decision it came during, for
 * `croupier replay --seat S --log FILE` to show beside it (decision_log.js).
 */

import { existsSync, readFileSync } from "node:fs";
import { isIP } from "node:net";
import { dirname, join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import * as tls from "node:tls";
import { fileURLToPath } from "node:url";

import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

import { Place, places } from "./decision_log.js";

export { MAX_LINE_CHARS, currentDecision, decisionLog } from "./decision_log.js";

/** Time kept back from each deadline for the network and the referee's own measurement (ms). */
export const DEFAULT_SLACK_MS = 50;

/** How long a bot keeps trying to reach the referee after losing its session (ms). */
export const DEFAULT_RECONNECT_MS = 30_000;

/** The repository's proto/ folder, found from this file (sdk/node/ -> ../../proto). */
export const PROTO_DIR =
  process.env.CROUPIER_PROTO_DIR ||
  resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "proto");

/** How proto-loader maps messages to objects; see the header comment. */
export const LOADER_OPTIONS = Object.freeze({
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  arrays: true,
  oneofs: true,
});

/** The session protocol this SDK speaks (Hello.protocol_version). */
const PROTOCOL_VERSION = 2;

/** Status codes after which reconnecting cannot help: the bot must be fixed or reconfigured. */
const FATAL_CODES = new Set([
  grpc.status.UNAUTHENTICATED,
  grpc.status.PERMISSION_DENIED,
  grpc.status.INVALID_ARGUMENT,
  grpc.status.FAILED_PRECONDITION,
  grpc.status.UNIMPLEMENTED,
  grpc.status.RESOURCE_EXHAUSTED,
]);

/** The bot was started without an address or a token, or with a bad setting. */
export class ConfigurationError extends Error {
  name = "ConfigurationError";
}

/**
 * A bot plays one seat per match. Only `act` is required; the hooks default to doing nothing.
 *
 * The same instance plays every match of its session, one after another, so keep per-match
 * state in `onMatchStart` and drop it in `onMatchEnd`. A plain object with an `act` method
 * works too.
 */
export class Bot {
  /** The name shown in standings and records (sent in Hello). */
  name = "bot";
  /** Your bot's version, recorded in each match's header. */
  version = "";
  /** Game ids this bot plays (sent in Hello); empty means any. */
  games = /** @type {string[]} */ ([]);
  /**
   * When the current decision must be answered, as `performance.now()` milliseconds with the
   * slack taken off; set by the SDK before each `act`. See `timeLeft`.
   */
  deadline = Infinity;

  /** Milliseconds until the current decision's deadline (Infinity without a time limit). */
  timeLeft() {
    return this.deadline - performance.now();
  }

  /**
   * Return the index of one of `request.legal_actions` (or a Promise of it).
   *
   * Answer before `request.clock.deadline_ms` has passed; the SDK leaves slack for the network.
   * @param {any} request an ActionRequest
   * @returns {number | Promise<number>}
   */
  act(request) {
    throw new Error(`${this.constructor.name}.act() is not implemented`);
  }

  /**
   * A match begins: your seat, the seat names, the options and the time control.
   * @param {any} start a MatchStart
   */
  onMatchStart(start) {}

  /**
   * Something you may see happened (a card played, a trick taken, a private peek...). Called
   * for each of a request's `events` just before `act`, and for the match's last events just
   * before `onMatchEnd`.
   * @param {any} event an Event
   */
  onEvent(event) {}

  /**
   * The match is over: its result and your faults.
   * @param {any} end a MatchEnd
   */
  onMatchEnd(end) {}
}

/** @type {Map<string, any>} */
const loaded = new Map();

/**
 * The croupier.v1 package loaded from the .proto files: `proto().Referee` is the service client
 * constructor; message types are reachable for reflection-minded code.
 * @param {string} [protoDir] the folder that holds croupier/v1/*.proto
 */
export function proto(protoDir = PROTO_DIR) {
  let found = loaded.get(protoDir);
  if (found === undefined) {
    const entry = join(protoDir, "croupier", "v1", "referee.proto");
    if (!existsSync(entry)) {
      throw new ConfigurationError(
        `cannot find ${entry}: run the bot from a croupier checkout or set CROUPIER_PROTO_DIR`,
      );
    }
    const definition = protoLoader.loadSync("croupier/v1/referee.proto", {
      ...LOADER_OPTIONS,
      includeDirs: [protoDir],
    });
    found = /** @type {any} */ (grpc.loadPackageDefinition(definition)).croupier.v1;
    loaded.set(protoDir, found);
  }
  return found;
}

/**
 * @param {string | undefined} value
 * @param {string} variable
 */
function setting(value, variable) {
  const found = value || process.env[variable];
  if (!found) {
    const what = variable.toLowerCase().replace("croupier_", "");
    throw new ConfigurationError(`no ${what} given: pass it or set ${variable}`);
  }
  return found;
}

/**
 * @typedef {object} RunOptions
 * @property {string} [address] host:port of the referee (default: CROUPIER_ADDRESS)
 * @property {string} [token] the bot's token (default: CROUPIER_TOKEN)
 * @property {number} [sessions] matches to play at once (default: CROUPIER_SESSIONS, else 1)
 * @property {string} [caFile] the referee's CA certificate (PEM) for TLS (default:
 *   CROUPIER_CA_FILE; CROUPIER_TLS=1 trusts the system's roots; else plaintext)
 * @property {number} [reconnectMs] how long to keep trying after a lost session (default 30 s)
 * @property {number} [slackMs] time kept back from each deadline for the network (default 50)
 * @property {string} [protoDir] where croupier/v1/*.proto live (default: the repository's)
 * @property {(line: string) => void} [log] where the SDK's notices go (default: stderr)
 */

/**
 * Play every match the referee offers; resolves when the referee ends every session.
 *
 * `bot` is a Bot (or any object with `act`), or a factory: a class or a function returning a
 * bot, required when playing several sessions at once so that each has its own instance.
 * A session that is lost without Goodbye (the network dropped, the referee restarted) is
 * reopened with the same token, for up to `reconnectMs`: a referee with a reconnect grace gives
 * the seat back mid-match (MatchStart again, then the pending request), and any referee seats
 * the bot in its next match. Rejects on a bad token or setting, or when the referee stays
 * unreachable. SIGTERM resolves it once the matches in hand are over (see `Leaving`).
 * @param {Bot | object | Function} bot
 * @param {RunOptions} [options]
 */
export async function runAsync(bot, options = {}) {
  const address = setting(options.address, "CROUPIER_ADDRESS");
  const token = setting(options.token, "CROUPIER_TOKEN");
  const sessions = options.sessions ?? Number(process.env.CROUPIER_SESSIONS || "1");
  if (!Number.isInteger(sessions) || sessions < 1) {
    const shown = JSON.stringify(sessions);
    throw new ConfigurationError(`bad session count ${shown}: expected 1 or more`);
  }
  const make = factory(bot, sessions);
  const log = options.log ?? ((line) => process.stderr.write(`croupier: ${line}\n`));
  const Referee = proto(options.protoDir).Referee;
  const secure = credentials(options.caFile);
  const client = new Referee(address, secure.credentials, {
    // Ping an idle connection so a vanished referee is noticed; the referee allows 1 s.
    "grpc.keepalive_time_ms": 20_000,
    "grpc.keepalive_timeout_ms": 10_000,
  });
  const leaving = new Leaving(log);
  const onTerm = () => leaving.request();
  if (process.listenerCount("SIGTERM") === 0) {
    process.once("SIGTERM", onTerm); // a program with a handler of its own keeps to it
  }
  try {
    await Promise.all(
      Array.from({ length: sessions }, () => {
        const place = new Place(); // what this session's code is doing, for decisionLog
        return places.run(place, () =>
          keepPlaying(client, make(), token, {
            leaving,
            reconnectMs: options.reconnectMs ?? DEFAULT_RECONNECT_MS,
            slackMs: options.slackMs ?? DEFAULT_SLACK_MS,
            log,
            address,
            tls: secure.tls,
            place,
          }),
        );
      }),
    );
  } finally {
    process.removeListener("SIGTERM", onTerm);
    client.close();
  }
}

/**
 * SIGTERM asks the bot to leave: each session finishes the match in hand, then closes its side
 * of the stream (a session between matches closes at once), and `runAsync` resolves. The
 * handler is installed once, so a second SIGTERM (or SIGINT) ends the program at once.
 */
class Leaving {
  /** @param {(line: string) => void} log */
  constructor(log) {
    this.log = log;
    this.requested = false;
    /** @type {Set<any>} the calls of sessions between matches, which leave at once */
    this.idle = new Set();
    /** @type {Set<any>} */
    this.closed = new Set();
  }

  request() {
    this.requested = true;
    this.log("SIGTERM: leaving after the match in hand (SIGTERM again: at once)");
    for (const call of this.idle) {
      this.close(call);
    }
  }

  /** Close our side of `call` once; the referee then ends the stream. @param {any} call */
  close(call) {
    if (!this.closed.has(call)) {
      this.closed.add(call);
      this.idle.delete(call);
      call.end();
    }
  }
}

/**
 * TLS with the given CA (or the system's roots with CROUPIER_TLS=1), else plaintext, as the
 * Python SDK does; `tls` says which.
 * @param {string | undefined} caFile
 */
function credentials(caFile) {
  const file = caFile || process.env.CROUPIER_CA_FILE;
  if (file) {
    let pem;
    try {
      pem = readFileSync(file);
    } catch (error) {
      throw new ConfigurationError(`cannot read the CA file ${JSON.stringify(file)}: ${error}`);
    }
    return { credentials: grpc.credentials.createSsl(pem), tls: true };
  }
  if (!["", "0"].includes(process.env.CROUPIER_TLS ?? "")) {
    return { credentials: grpc.credentials.createSsl(), tls: true };
  }
  return { credentials: grpc.credentials.createInsecure(), tls: false };
}

/** How a bot gives the referee's CA certificate (see tlsMismatch). */
const GIVE_CA =
  "set CROUPIER_CA_FILE to its CA certificate, PEM (or pass caFile; CROUPIER_TLS=1 trusts " +
  "the system's roots)";

/**
 * Whether the server at `address` (HOST:PORT) completes a TLS handshake (any certificate);
 * undefined when it cannot be told (no connection, no answer), as the Python SDK's
 * croupier.tls_check.speaks_tls.
 * @param {string} address
 * @param {number} [timeoutMs]
 * @returns {Promise<boolean | undefined>}
 */
export function speaksTls(address, timeoutMs = 3_000) {
  const colon = address.lastIndexOf(":");
  const host = address.slice(0, colon).replace(/^\[|\]$/g, "") || "localhost";
  const port = Number(address.slice(colon + 1));
  if (colon < 0 || !Number.isInteger(port)) {
    return Promise.resolve(undefined);
  }
  return new Promise((resolve) => {
    let connected = false;
    const socket = tls.connect({
      host,
      port,
      rejectUnauthorized: false,
      servername: isIP(host) ? undefined : host,
    });
    /** @param {boolean | undefined} answer */
    const done = (answer) => {
      socket.destroy();
      resolve(answer);
    };
    socket.once("connect", () => (connected = true));
    socket.once("secureConnect", () => done(true));
    socket.once("error", () => done(connected ? false : undefined));
    socket.setTimeout(timeoutMs, () => done(undefined));
  });
}

/**
 * One line naming the fix when a connection failed (UNAVAILABLE) because the bot spoke TLS to a
 * plaintext referee, plaintext to a TLS one, or TLS with a CA that did not vouch for the
 * referee's certificate; else undefined. gRPC itself says only "Socket closed" or "No
 * connection established".
 * @param {string} address
 * @param {boolean} secure whether the bot spoke TLS
 * @param {string} details the status's details
 */
async function tlsMismatch(address, secure, details) {
  const server = await speaksTls(address);
  if (server === undefined) {
    return undefined;
  }
  if (server && !secure) {
    return `the server at ${address} speaks TLS: ${GIVE_CA}`;
  }
  if (secure && !server) {
    return `the server at ${address} speaks plaintext, not TLS: unset CROUPIER_CA_FILE and CROUPIER_TLS`;
  }
  if (secure && /certificate|CERT_/i.test(details)) {
    return `the server at ${address} speaks TLS, but its certificate is not signed by the CA given: ${GIVE_CA}`;
  }
  return undefined;
}

/**
 * `runAsync` for a bot's main program: a lost referee or a bad setting ends the process with
 * exit code 1 and one line on stderr, as the Python SDK does.
 * @param {Bot | object | Function} bot
 * @param {RunOptions} [options]
 */
export async function run(bot, options = {}) {
  try {
    await runAsync(bot, options);
  } catch (error) {
    const known = error instanceof ConfigurationError || isGrpcError(error);
    if (!known) {
      throw error; // a bug in the bot: let Node print the stack trace
    }
    const text = isGrpcError(error)
      ? `${statusName(error.code)}: ${error.details}`
      : /** @type {Error} */ (error).message;
    process.stderr.write(`croupier: ${text}\n`);
    process.exitCode = 1;
  }
}

/**
 * @param {any} bot
 * @param {number} sessions
 * @returns {() => any}
 */
function factory(bot, sessions) {
  if (typeof bot === "function") {
    const isClass = /^class[\s{]/.test(Function.prototype.toString.call(bot));
    return isClass ? () => checkedBot(new bot()) : () => checkedBot(bot());
  }
  if (sessions > 1) {
    throw new ConfigurationError(
      "several sessions need a bot factory (e.g. the class), not one bot",
    );
  }
  const single = checkedBot(bot);
  return () => single;
}

/** @param {any} bot */
function checkedBot(bot) {
  if (bot === null || typeof bot !== "object" || typeof bot.act !== "function") {
    throw new ConfigurationError("a bot needs an act(request) method");
  }
  return bot;
}

/**
 * @typedef {object} SessionSettings
 * @property {number} reconnectMs
 * @property {number} slackMs
 * @property {(line: string) => void} log
 * @property {Leaving} leaving set by SIGTERM
 * @property {string} address the referee, for telling a TLS mismatch
 * @property {boolean} tls whether the bot speaks TLS
 * @property {Place} place the session's match and decision, set as messages arrive
 */

/**
 * One session after another for one bot, until Goodbye.
 * @param {any} client
 * @param {any} bot
 * @param {string} token
 * @param {SessionSettings} settings
 */
async function keepPlaying(client, bot, token, settings) {
  const { reconnectMs, log } = settings;
  let lostAt = -1;
  let pause = 100;
  let everWelcomed = false;
  for (;;) {
    /** @type {any} */
    let failure = null;
    let welcomed = false;
    try {
      const ending = await playSession(client, bot, token, settings, () => {
        welcomed = true;
        everWelcomed = true;
      });
      if (ending === "goodbye" || settings.leaving.requested) {
        return;
      }
    } catch (error) {
      if (!isGrpcError(error) || FATAL_CODES.has(error.code)) {
        throw error;
      }
      failure = error;
      if (!everWelcomed && error.code === grpc.status.UNAVAILABLE) {
        // Trying again cannot mend a TLS mismatch: say what it is, once.
        const mismatch = await tlsMismatch(settings.address, settings.tls, error.details);
        if (mismatch !== undefined) {
          throw new ConfigurationError(mismatch);
        }
      }
    }
    if (settings.leaving.requested) {
      return; // SIGTERM: no session is opened again
    }
    const now = performance.now();
    if (welcomed || lostAt < 0) {
      lostAt = now;
      pause = 100;
    }
    if (now - lostAt > reconnectMs) {
      throw failure ?? new Error("the referee keeps closing the session without Goodbye");
    }
    const why = failure ? `${statusName(failure.code)}: ${failure.details}` : "the stream ended";
    const what = everWelcomed ? "session lost" : "cannot reach the referee";
    log(`${what} (${why}); trying again in ${pause} ms`);
    await sleep(pause);
    pause = Math.min(pause * 2, 2_000);
  }
}

/**
 * One session: Hello, then matches until Goodbye ("goodbye") or the stream ends ("ended"). A
 * Goodbye followed by an error status (a session limit, a revoked token) rejects with it.
 * @param {any} client
 * @param {any} bot
 * @param {string} token
 * @param {SessionSettings} settings
 * @param {() => void} onWelcome
 * @returns {Promise<"goodbye" | "ended">}
 */
async function playSession(client, bot, token, settings, onWelcome) {
  const { slackMs, leaving, place } = settings;
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  const call = client.Play(metadata);
  const hello = {
    name: String(bot.name ?? "bot"),
    version: String(bot.version ?? ""),
    games: bot.games ?? [],
    protocol_version: PROTOCOL_VERSION,
  };
  call.write({ hello });
  if (leaving.requested) {
    leaving.close(call);
  } else {
    leaving.idle.add(call);
  }
  let farewell = false;
  try {
    for await (const message of call) {
      switch (message.kind) {
        case "welcome":
          onWelcome();
          break;
        case "match_start":
          leaving.idle.delete(call);
          place.match = message.match_start.match_id;
          place.decision = 0;
          await bot.onMatchStart?.(message.match_start);
          break;
        case "action_request": {
          if (leaving.closed.has(call)) {
            break; // seated as it left: it can no longer answer
          }
          const request = message.action_request;
          place.match = request.match_id;
          place.decision = request.decision;
          for (const event of request.events) {
            await bot.onEvent?.(event);
          }
          const index = await decide(bot, request, slackMs);
          call.write({
            action_reply: {
              match_id: request.match_id,
              request_id: request.request_id,
              action_index: index,
            },
          });
          break;
        }
        case "match_end":
          for (const event of message.match_end.events) {
            await bot.onEvent?.(event);
          }
          await bot.onMatchEnd?.(message.match_end);
          place.match = undefined; // between matches: decisionLog writes nothing
          if (leaving.requested) {
            leaving.close(call);
          } else {
            leaving.idle.add(call);
          }
          break;
        case "goodbye":
          // Keep reading: the status that follows says whether a limit ended the session.
          farewell = true;
          call.end();
          break;
        default:
          break; // a message kind newer than this SDK: ignore it
      }
    }
  } catch (error) {
    if (!farewell || !isGrpcError(error) || FATAL_CODES.has(error.code)) {
      throw error;
    }
  } finally {
    leaving.idle.delete(call);
    call.end();
  }
  return farewell ? "goodbye" : "ended";
}

/**
 * Ask the bot. An answer that is no index at all (undefined, "2", 1.5) is the bot's bug, so it
 * throws, as the Python SDK does, rather than quietly sending index 0.
 * @param {any} bot
 * @param {any} request
 * @param {number} slackMs
 */
async function decide(bot, request, slackMs) {
  const limit = request.clock.deadline_ms; // unset (undefined) when the match has no time limit
  const unlimited = limit === undefined;
  const budget = unlimited ? Infinity : Math.max(limit - slackMs, 1);
  bot.deadline = unlimited ? Infinity : performance.now() + budget;
  let answer = bot.act(request);
  if (answer instanceof Promise || (answer && typeof answer.then === "function")) {
    answer = unlimited ? await answer : await withDeadline(answer, budget);
  }
  if (!Number.isInteger(answer) || answer < 0) {
    throw new TypeError(
      `act() returned ${JSON.stringify(answer)}, not an index into request.legal_actions`,
    );
  }
  return answer; // out of range is the referee's call: an illegal-action fault
}

/**
 * An async act gets until its deadline less the slack; then the first legal action goes.
 * @param {Promise<number>} answer
 * @param {number} budget
 */
async function withDeadline(answer, budget) {
  const late = new AbortController();
  const timer = sleep(budget, "late", { signal: late.signal }).catch(() => "late");
  const first = await Promise.race([answer, timer]);
  late.abort();
  if (first === "late") {
    const warning = "act() ran past the deadline; answering the first legal action";
    process.stderr.write(`croupier: ${warning}\n`);
    return 0;
  }
  return /** @type {number} */ (first);
}

/**
 * @param {unknown} error
 * @returns {error is grpc.ServiceError}
 */
function isGrpcError(error) {
  return (
    error instanceof Error &&
    typeof (/** @type {any} */ (error).code) === "number" &&
    "details" in error
  );
}

/** @param {number} code */
function statusName(code) {
  return grpc.status[code] ?? `status ${code}`;
}
