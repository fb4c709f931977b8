// Drives the openai npm package's Responses and embeddings clients against
// the gateway: changed only in base URL and key. Prints one JSON report.
import OpenAI from "openai";

const client = new OpenAI({ baseURL: process.env.SHLYUZ_BASE + "/api/v1", apiKey: process.env.SHLYUZ_KEY, maxRetries: 0 });
const models = JSON.parse(process.env.SHLYUZ_MODELS);
const tools = [{ type: "function", name: "get_weather", description: "The weather in a city.", strict: false,
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } }];

const report = { models: {} };
for (const model of models) {
  const r = {};
  const plain = await client.responses.create({ model, instructions: "Be brief.", input: "Hello!", max_output_tokens: 100 });
  r.text = plain.output_text;
  r.status = plain.status;
  r.output = plain.usage.output_tokens;

  const input = [{ role: "user", content: "Weather in Paris?" }];
  const first = await client.responses.create({ model, input, tools });
  const call = first.output.find((o) => o.type === "function_call");
  r.call = call ? { name: call.name, args: JSON.parse(call.arguments) } : null;
  input.push(call, { type: "function_call_output", call_id: call.call_id, output: "Sunny" });
  const stream = await client.responses.create({ model, input, tools, stream: true });
  const types = new Set();
  let seq = 0, ordered = true, final = null;
  for await (const ev of stream) {
    types.add(ev.type);
    ordered = ordered && ev.sequence_number === seq++;
    if (ev.type === "response.completed") final = ev.response;
  }
  r.types = [...types];
  r.ordered = ordered;
  r.second = final ? final.output.filter((o) => o.type === "message").flatMap((o) => o.content).map((c) => c.text).join("") : null;
  report.models[model] = r;
}

const emb = await client.embeddings.create({ model: "embed/model", input: ["one", "two three"], dimensions: 4 });
report.embeddings = { n: emb.data.length, dims: emb.data[0].embedding.length, first: emb.data[0].embedding, tokens: emb.usage.prompt_tokens };

try {
  await client.responses.create({ model: models[0], input: "x", previous_response_id: "resp_1" });
  report.stateful = { status: 200 };
} catch (e) {
  report.stateful = { status: e.status, param: e.param, cls: e.constructor.name };
}
console.log(JSON.stringify(report));
