// Drives @openrouter/sdk (pinned by TestOpenRouterSDK) against the gateway,
// changed only in its server URL and key. The SDK validates every reply
// against OpenRouter's schemas: a reply out of shape throws. Prints what the
// Go test checks against the ledger, as JSON.
import { OpenRouter } from "@openrouter/sdk";

const base = process.env.SHLYUZ_BASE + "/api/v1";
const key = process.env.SHLYUZ_KEY;
const or = new OpenRouter({ apiKey: key, serverURL: base });
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
out.count = (await or.models.count()).data.count;
out.user = (await all(await or.models.listForUser({ bearer: key }))).length;
const eps = await or.endpoints.list({ author: "mixed", slug: "model" });
out.endpoints = eps.data.endpoints.map((e) => ({ provider: e.providerName, prompt: e.pricing.prompt, completion: e.pricing.completion }));
out.providers = (await or.providers.list()).data.map((p) => p.slug);

console.log(JSON.stringify(out));
