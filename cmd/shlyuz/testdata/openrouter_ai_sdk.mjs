// Drives the Vercel AI SDK through @openrouter/ai-sdk-provider (pinned by
// TestOpenRouterAISDK) against the gateway, changed only in base URL and key:
// generateText and streamText, their usage and OpenRouter's cost. Prints what
// the Go test checks against the ledger, as JSON.
import { createOpenRouter } from "@openrouter/ai-sdk-provider";
import { generateText, streamText } from "ai";

const openrouter = createOpenRouter({ apiKey: process.env.SHLYUZ_KEY, baseURL: process.env.SHLYUZ_BASE + "/api/v1" });
const model = openrouter.chat("test/model");
const out = {};

const g = await generateText({ model, prompt: "Hello!", maxRetries: 0 });
out.generate = { id: g.response.id, text: g.text, input: g.usage.inputTokens, output: g.usage.outputTokens,
  cost: g.providerMetadata?.openrouter?.usage?.cost };

const s = streamText({ model, prompt: "Hello!", maxRetries: 0, onError: ({ error }) => { throw error; } });
let text = "";
for await (const t of s.textStream) text += t;
const usage = await s.usage;
const meta = await s.providerMetadata;
const response = await s.response;
out.stream = { id: response.id, text, input: usage.inputTokens, output: usage.outputTokens, cost: meta?.openrouter?.usage?.cost };

console.log(JSON.stringify(out));
