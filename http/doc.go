// Package http is the gateway's HTTP face on Fiber: routes, bearer-key
// authentication, request parsing and validation, server-sent event streams
// and the mapping of every failure to the one error body
// {"error":{"message","type","code","param"}}. Each client protocol is a thin
// handler over the same gateway call: OpenAI chat completions, Anthropic
// Messages (anthropic_*.go, messages.go; Anthropic's error shape there), the
// OpenAI Responses API (responses*.go), embeddings and media; stream.go is
// the one stream machinery they share. It holds no business state:
// everything it knows it asks of actors.Gateway.
package http
