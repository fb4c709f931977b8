// Package http is the gateway's HTTP face on Fiber: routes, bearer-key
// authentication, request parsing and validation, server-sent event streams
// and the mapping of every failure to the one error body
// {"error":{"message","type","code","param"}}. It holds no business state:
// everything it knows it asks of actors.Gateway.
package http
