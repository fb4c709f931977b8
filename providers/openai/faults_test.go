package openai

import (
	"time"

	"github.com/shlyuz/shlyuz/providers/internal/adaptertest"
)

// BeforeFirstByte is how the adapter maps the fake's failures before the
// first byte, on the net/http path (Chat and ChatStream) and the fasthttp one
// alike.
var BeforeFirstByte = []adaptertest.Fault{
	{Fault: "500", Status: 502, Code: "upstream_error", Upstream: true, Msg: "HTTP 500"},
	{Fault: "502", Status: 502, Code: "upstream_error", Upstream: true},
	{Fault: "503", Status: 502, Code: "upstream_error", Upstream: true},
	{Fault: "429", Status: 429, Code: "rate_limited", Upstream: true, RetryAfter: 2 * time.Second},
	{Fault: "quota", Status: 502, Code: "upstream_error", Upstream: true, Msg: "quota"},
	{Fault: "402", Status: 502, Code: "upstream_error", Upstream: true, Msg: "out of credits"},
	{Fault: "408", Status: 504, Code: "upstream_timeout", Upstream: true},
	{Fault: "400", Status: 400, Code: "invalid_value", Upstream: false, Msg: "maximum context length"},
	{Fault: "404", Status: 502, Code: "upstream_error", Upstream: true},
	{Fault: "413", Status: 400, Code: "invalid_value", Upstream: false},
	{Fault: "422", Status: 400, Code: "invalid_value", Upstream: false},
	{Fault: "401", Status: 502, Code: "upstream_error", Upstream: true, Msg: "credentials"},
	{Fault: "403", Status: 502, Code: "upstream_error", Upstream: true, Msg: "unsupported_country_region_territory"},
}
