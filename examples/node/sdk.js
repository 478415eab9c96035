// The croupier Node SDK for the examples: the checkout's (../../sdk/node) when they lie in one,
// else, uploaded alone as a hosted bot, the contest's runtime folder's sdk/node, which
// `croupier serve --runtime DIR` names in CROUPIER_RUNTIME (docs/bots.md, "The runtime folder").
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";

const checkout = new URL("../../sdk/node/index.js", import.meta.url);
const runtime = process.env.CROUPIER_RUNTIME;
const sdk =
  existsSync(checkout) || !runtime ? checkout : pathToFileURL(`${runtime}/sdk/node/index.js`);

export const { Bot, decisionLog, run } = await import(sdk);
