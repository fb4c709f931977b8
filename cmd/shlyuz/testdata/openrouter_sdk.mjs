// Drives @openrouter/sdk (pinned by TestOpenRouterSDK) against the gateway,
// changed only in its server URL and key. The SDK validates every reply
// against OpenRouter's schemas: a reply out of shape throws. Prints what the
// Go test checks against the ledger, as JSON.
import { OpenRouter } from "@openrouter/sdk";

const base = process.env.SHLYUZ_BASE + "/api/v1";
const key = process.env.SHLYUZ_KEY;
// No retries: a failure shows at once, not after the SDK's back-off.
const or = new OpenRouter({ apiKey: key, serverURL: base, retryConfig: { strategy: "none" } });
const out = {};

async function all(pages) {
  const items = [];
  for await (const page of pages) items.push(...page.result.data);
  return items;
}

// Models: the list (paged by the SDK), one model, the count, the user's, the endpoints, the providers.
const models = await all(await or.models.list());
out.models = models.length;
const m = models.find((x) => x.id === "test/model");
out.listed = m ? { prompt: m.pricing.prompt, completion: m.pricing.completion, details: m.links.details } : null;
const one = await or.models.get({ author: "test", slug: "model" });
out.get = { id: one.data.id, prompt: one.data.pricing.prompt, modality: one.data.architecture.modality };
const claude = (await or.models.get({ author: "claude", slug: "sonnet-4.5" })).data.pricing;
out.claude = { prompt: claude.prompt, completion: claude.completion, cacheRead: claude.inputCacheRead, cacheWrite: claude.inputCacheWrite,
  cacheWrite1h: claude.inputCacheWrite1h, reasoning: claude.internalReasoning, request: claude.request };
out.count = (await or.models.count()).data.count;
out.user = (await all(await or.models.listForUser({ bearer: key }))).length;
const eps = await or.endpoints.list({ author: "mixed", slug: "model" });
out.endpoints = eps.data.endpoints.map((e) => ({ provider: e.providerName, prompt: e.pricing.prompt, completion: e.pricing.completion }));
out.providers = (await or.providers.list()).data.map((p) => p.slug);

// Account: credits before, chat plain and streamed, each generation, the key, credits after.
out.creditsBefore = (await or.credits.getCredits()).data;
const messages = [{ role: "user", content: "Hello!" }];
const plain = await or.chat.send({ chatRequest: { model: "test/model", messages } });
out.chats = [{ id: plain.id, cost: plain.usage.cost, prompt: plain.usage.promptTokens, completion: plain.usage.completionTokens }];
const stream = await or.chat.send({ chatRequest: { model: "test/model", messages, stream: true } });
let streamed = { text: "" };
for await (const chunk of stream) {
  streamed.id = chunk.id;
  streamed.text += chunk.choices[0]?.delta?.content ?? "";
  if (chunk.usage) {
    Object.assign(streamed, { cost: chunk.usage.cost, prompt: chunk.usage.promptTokens, completion: chunk.usage.completionTokens });
  }
}
out.chats.push(streamed);
out.generations = [];
for (const c of out.chats) {
  const g = (await or.generations.getGeneration({ id: c.id })).data;
  out.generations.push({ id: g.id, totalCost: g.totalCost, usage: g.usage, prompt: g.tokensPrompt, completion: g.tokensCompletion,
    streamed: g.streamed, cancelled: g.cancelled, provider: g.providerName, finish: g.finishReason });
}
const k = (await or.apiKeys.getCurrentKeyMetadata()).data;
out.key = { label: k.label, usage: k.usage, daily: k.usageDaily, weekly: k.usageWeekly, monthly: k.usageMonthly, limit: k.limit,
  remaining: k.limitRemaining, reset: k.limitReset, free: k.isFreeTier };

// Keys by a management key: create, list, get, update, use, delete; activity.
const mgmt = new OpenRouter({ apiKey: process.env.SHLYUZ_MGMT_KEY, serverURL: base, retryConfig: { strategy: "none" } });
out.mgmtIsManagement = (await mgmt.apiKeys.getCurrentKeyMetadata()).data.isManagementKey;
try {
  await mgmt.chat.send({ chatRequest: { model: "test/model", messages } });
  out.mgmtChat = 200;
} catch (e) {
  out.mgmtChat = e.statusCode ?? String(e);
}
const made = await mgmt.apiKeys.create({ requestBody: { name: "made-by-sdk", limit: 100000, limitReset: "monthly" } });
const hash = made.data.hash;
out.made = { name: made.data.name, limit: made.data.limit, reset: made.data.limitReset, disabled: made.data.disabled, plain: made.key.slice(0, 10) };
out.keyListed = (await mgmt.apiKeys.list()).data.map((x) => x.hash).includes(hash);
const updated = (await mgmt.apiKeys.update({ hash, requestBody: { limit: 200000 } })).data;
out.updated = { limit: updated.limit, remaining: updated.limitRemaining };
const made2 = new OpenRouter({ apiKey: made.key, serverURL: base, retryConfig: { strategy: "none" } });
const third = await made2.chat.send({ chatRequest: { model: "test/model", messages } });
out.chats.push({ id: third.id, cost: third.usage.cost, prompt: third.usage.promptTokens, completion: third.usage.completionTokens });
const got = (await mgmt.apiKeys.get({ hash })).data;
out.got = { usage: got.usage, remaining: got.limitRemaining, monthly: got.usageMonthly };
await mgmt.apiKeys.update({ hash, requestBody: { disabled: true } });
out.listedDisabled = (await mgmt.apiKeys.list({ includeDisabled: true })).data.find((x) => x.hash === hash)?.disabled;
out.listedWhileDisabled = (await mgmt.apiKeys.list()).data.map((x) => x.hash).includes(hash);
try {
  await made2.chat.send({ chatRequest: { model: "test/model", messages } });
  out.disabledChat = 200;
} catch (e) {
  out.disabledChat = e.statusCode ?? String(e);
}
const enabled = (await mgmt.apiKeys.update({ hash, requestBody: { disabled: false, name: "renamed-by-sdk", limitReset: "daily" } })).data;
out.enabled = { disabled: enabled.disabled, name: enabled.name, reset: enabled.limitReset, remaining: enabled.limitRemaining };
out.deleted = (await mgmt.apiKeys.delete({ hash })).deleted;
out.listedAfterDelete = (await mgmt.apiKeys.list({ includeDisabled: true })).data.map((x) => x.hash).includes(hash);
out.activity = (await mgmt.analytics.getUserActivity()).data.map((a) => ({ model: a.model, usage: a.usage, requests: a.requests,
  prompt: a.promptTokens, completion: a.completionTokens, provider: a.providerName }));
out.creditsAfter = (await or.credits.getCredits()).data;

console.log(JSON.stringify(out));
