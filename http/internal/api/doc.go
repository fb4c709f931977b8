// Package api is what the client protocol packages under http share: the
// Server every handler hangs on (the gateway, the options, the streams in
// flight), reading and bounding request bodies, bearer-key authentication,
// the stream pump every protocol's server-sent events go through, and the
// mapping of every failure to its protocol's error body (OpenAI's
// {"error":{"message","type","code","param"}}, Anthropic's on its routes).
package api
