// Package http is the gateway's HTTP face on Fiber: it builds the app (the
// listener's connection cap, slow-client bounds, CORS, health, metrics) and
// mounts one package per client protocol over the same gateway call:
// http/openai (chat completions, embeddings), http/anthropic (Messages),
// http/responses (OpenAI's Responses), http/media (images, audio, videos),
// http/openrouter (the account surface), http/admin (the operator API), and
// the web area (http/web). What those share lives in http/internal/api. It
// holds no business state: everything it knows it asks of actors.Gateway.
package http
