// Drives @anthropic-ai/sdk against the gateway: changed only in base URL and
// key. Prints one JSON report for anthropic_node_test.go to judge.
import Anthropic from "@anthropic-ai/sdk";

const base = process.env.SHLYUZ_BASE + "/api";
const client = new Anthropic({ baseURL: base, apiKey: process.env.SHLYUZ_KEY, maxRetries: 0 });
const models = JSON.parse(process.env.SHLYUZ_MODELS);
const tools = [{
  name: "get_weather", description: "The weather in a city.",
  input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
}];

const report = { models: {}, errors: {} };
for (const model of models) {
  const r = {};
  const { data: msg, response } = await client.messages.create({
    model, max_tokens: 100, system: "Be brief.", messages: [{ role: "user", content: "Hello!" }],
  }).withResponse();
  r.text = msg.content.map((b) => b.text).join("");
  r.id = msg.id;
  r.generation = response.headers.get("x-generation-id");
  r.output = msg.usage.output_tokens;

  const messages = [{ role: "user", content: "Weather in Paris?" }];
  const first = await client.messages.stream({ model, max_tokens: 200, messages, tools }).finalMessage();
  const use = first.content.find((b) => b.type === "tool_use");
  r.first = { stop: first.stop_reason, tool: use?.name, input: use?.input };
  messages.push({ role: "assistant", content: first.content });
  messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "Sunny" }] });
  const events = [];
  const stream = client.messages.stream({ model, max_tokens: 200, messages, tools });
  stream.on("streamEvent", (e) => events.push(e.type));
  const second = await stream.finalMessage();
  r.second = { stop: second.stop_reason, text: second.content.map((b) => b.text).join(""), output: second.usage.output_tokens };
  r.events = [...new Set(events)];

  const count = await client.messages.countTokens({ model, messages: [{ role: "user", content: "word ".repeat(400) }] });
  r.count = count.input_tokens;
  report.models[model] = r;
}

for (const [name, key, model] of [["bad key", "sk-shz-v1-" + "0".repeat(64), "claude/model"], ["unknown model", process.env.SHLYUZ_KEY, "nope/nope"]]) {
  try {
    await new Anthropic({ baseURL: base, apiKey: key, maxRetries: 0 }).messages.create({
      model, max_tokens: 10, messages: [{ role: "user", content: "x" }],
    });
    report.errors[name] = { status: 200 };
  } catch (e) {
    report.errors[name] = { status: e.status, type: e.error?.error?.type, cls: e.constructor.name };
  }
}
console.log(JSON.stringify(report));
