// Structured output through the gateway and the fake upstream, as clients
// ask for it: LangChain's withStructuredOutput (its default, JSON schema,
// and function calling) and the AI SDK's generateObject through
// @ai-sdk/openai-compatible with structured outputs on. Prints each object,
// and whether the schema accepted it, as JSON.
import { ChatOpenAI } from "@langchain/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateObject, streamObject } from "ai";
import { z } from "zod";

const base = process.env.SHLYUZ_BASE + "/api/v1";
const key = process.env.SHLYUZ_KEY;
const model = process.env.SHLYUZ_MODEL;
const Person = z.object({
  name: z.string(),
  age: z.number().int().min(1),
  tags: z.array(z.string()),
  kind: z.enum(["friend", "colleague"]),
});
const out = {};
const check = (obj) => ({ object: obj, valid: Person.safeParse(obj).success });

const chat = new ChatOpenAI({ model, apiKey: key, configuration: { baseURL: base }, maxRetries: 0 });
for (const method of ["default", "jsonSchema", "functionCalling"]) {
  const runnable = method === "default" ? chat.withStructuredOutput(Person) : chat.withStructuredOutput(Person, { method });
  out["langchain_" + method] = check(await runnable.invoke("Describe a person."));
}

const provider = createOpenAICompatible({ name: "shlyuz", baseURL: base, apiKey: key, supportsStructuredOutputs: true });
const g = await generateObject({ model: provider(model), schema: Person, prompt: "Describe a person.", maxRetries: 0 });
out.ai_generateObject = check(g.object);
const s = streamObject({ model: provider(model), schema: Person, prompt: "Describe a person.", maxRetries: 0, onError: ({ error }) => { throw error; } });
for await (const _ of s.partialObjectStream); // the stream runs as it is read
out.ai_streamObject = check(await s.object);

console.log(JSON.stringify(out));
