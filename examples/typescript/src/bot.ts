// A croupier bot in TypeScript that speaks gRPC itself, without the SDK: it loads the .proto
// files at run time with @grpc/proto-loader, opens the Play stream with its token, says Hello
// and answers each ActionRequest with a random legal action, until Goodbye. Built to dist/ by
// `tsc` (npm run build); run as `node dist/bot.js` with CROUPIER_ADDRESS and CROUPIER_TOKEN set.
// Hosted, its folder is uploaded with its node_modules (docs/bots.md, "Node and TypeScript
// bots"), and the protos come from the contest's runtime folder ($CROUPIER_RUNTIME/proto).
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";

/** What this bot reads of an ActionRequest (the .proto's own field names). */
interface ActionRequest {
  match_id: string;
  request_id: number;
  legal_actions: unknown[];
}

/** A RefereeMessage: its `kind` names the one field of the oneof that is set. */
interface RefereeMessage {
  kind: "welcome" | "match_start" | "action_request" | "match_end" | "goodbye" | string;
  action_request?: ActionRequest;
  goodbye?: { reason: string };
}

/** The folder holding croupier/v1/*.proto: the checkout's, else the contest's runtime's. */
function protoDir(): string {
  const candidates = [
    process.env.CROUPIER_PROTO_DIR,
    resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "proto"),
    process.env.CROUPIER_RUNTIME && join(process.env.CROUPIER_RUNTIME, "proto"),
  ];
  for (const dir of candidates) {
    if (dir && existsSync(join(dir, "croupier", "v1", "referee.proto"))) {
      return dir;
    }
  }
  throw new Error("no croupier protos: set CROUPIER_PROTO_DIR (or CROUPIER_RUNTIME)");
}

function setting(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set`);
  }
  return value;
}

function credentials(): grpc.ChannelCredentials {
  const caFile = process.env.CROUPIER_CA_FILE;
  if (caFile) {
    return grpc.credentials.createSsl(readFileSync(caFile));
  }
  return process.env.CROUPIER_TLS && process.env.CROUPIER_TLS !== "0"
    ? grpc.credentials.createSsl()
    : grpc.credentials.createInsecure();
}

/** How long the bot keeps trying to open a session again after losing one (ms). */
const RECONNECT_MS = 30_000;

/**
 * One session: Hello, then a random legal action for each request. Resolves "goodbye" when the
 * referee said Goodbye, else rejects with the stream's error (a lost connection).
 */
function session(client: any, token: string, welcomed: () => void): Promise<"goodbye"> {
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  const call: grpc.ClientDuplexStream<object, RefereeMessage> = client.Play(metadata);
  call.write({ hello: { name: "random-ts", version: "1", games: [], protocol_version: 2 } });
  let farewell = false;
  call.on("data", (message: RefereeMessage) => {
    if (message.kind === "welcome") {
      welcomed();
    } else if (message.kind === "action_request" && message.action_request) {
      const request = message.action_request;
      const index = Math.floor(Math.random() * request.legal_actions.length);
      call.write({
        action_reply: {
          match_id: request.match_id,
          request_id: request.request_id,
          action_index: index,
        },
      });
    } else if (message.kind === "goodbye") {
      farewell = true;
      call.end(); // the referee then ends the stream
    }
  });
  return new Promise((done, failed) => {
    call.on("error", (error: grpc.ServiceError) => (farewell ? done("goodbye") : failed(error)));
    call.on("end", () => (farewell ? done("goodbye") : failed(new Error("stream ended"))));
  });
}

/** Sessions one after another until Goodbye: a lost one is opened again (the referee gives
 * the seat back within its reconnect grace), for up to RECONNECT_MS. */
async function play(client: any, token: string): Promise<void> {
  let lostAt = -1;
  for (;;) {
    let welcomed = false;
    try {
      await session(client, token, () => (welcomed = true));
      return;
    } catch (error) {
      const what = (error as grpc.ServiceError).details ?? String(error);
      if (welcomed || lostAt < 0) {
        lostAt = Date.now(); // 30 s from the last session the referee took
      }
      if (Date.now() - lostAt > RECONNECT_MS) {
        throw new Error(`the referee stays unreachable: ${what}`);
      }
      process.stderr.write(`random-ts: session lost (${what}); trying again\n`);
      await new Promise((wait) => setTimeout(wait, 100));
    }
  }
}

async function main(): Promise<void> {
  const definition = protoLoader.loadSync("croupier/v1/referee.proto", {
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    arrays: true,
    oneofs: true,
    includeDirs: [protoDir()],
  });
  const v1 = (grpc.loadPackageDefinition(definition) as any).croupier.v1;
  const client = new v1.Referee(setting("CROUPIER_ADDRESS"), credentials());
  const token = setting("CROUPIER_TOKEN");
  const sessions = Number(process.env.CROUPIER_SESSIONS || "1");
  await Promise.all(Array.from({ length: sessions }, () => play(client, token)));
  client.close();
}

main().catch((error: Error) => {
  process.stderr.write(`random-ts: ${error.message}\n`);
  process.exitCode = 1;
});
