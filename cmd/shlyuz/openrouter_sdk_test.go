package main

import (
	"encoding/json"
	"reflect"
	"testing"
)

// openRouterSDK is OpenRouter's own TypeScript SDK at the version issue 23 names.
const openRouterSDK = "@openrouter/sdk@1.3.19"

type endpointSeen struct {
	Provider   string `json:"provider"`
	Prompt     string `json:"prompt"`
	Completion string `json:"completion"`
}

// sdkReport is what testdata/openrouter_sdk.mjs prints.
type sdkReport struct {
	Models int `json:"models"`
	Listed *struct {
		Prompt, Completion, Details string
	} `json:"listed"`
	Get struct {
		ID, Prompt, Modality string
	} `json:"get"`
	Count     int            `json:"count"`
	User      int            `json:"user"`
	Endpoints []endpointSeen `json:"endpoints"`
	Providers []string       `json:"providers"`
}

// TestOpenRouterSDK drives @openrouter/sdk, changed only in its server URL
// and key, through the catalog and account endpoints: the SDK validates every
// reply against OpenRouter's schemas, and each money figure (in credits) must
// agree with the ledger and the test prices.
func TestOpenRouterSDK(t *testing.T) {
	modules := npmInstall(t, openRouterSDK)
	_, key := account(t, h.base, 1_000_000, nil)
	raw := runNode(t, modules, "openrouter_sdk.mjs", "SHLYUZ_BASE="+h.base, "SHLYUZ_KEY="+key)
	var r sdkReport
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}

	// test/model costs 1 USD per Mtok in, 2 out, at rate 100 and K 1: 10 and 20 credits a token.
	if r.Listed == nil || r.Listed.Prompt != "10" || r.Listed.Completion != "20" || r.Listed.Details != "/api/v1/models/test/model/endpoints" {
		t.Fatalf("test/model listed as %+v", r.Listed)
	}
	if r.Get.ID != "test/model" || r.Get.Prompt != "10" || r.Get.Modality != "text+image->text" {
		t.Fatalf("models.get: %+v", r.Get)
	}
	if r.Models < 300 || r.Count != r.Models || r.User != r.Models {
		t.Fatalf("%d models listed, count %d, user %d", r.Models, r.Count, r.User)
	}
	// mixed/ is served by anthropic-dead at the catalog price, then pricey at twice it.
	want := []endpointSeen{{"anthropic-dead", "10", "20"}, {"pricey", "20", "40"}}
	if !reflect.DeepEqual(r.Endpoints, want) {
		t.Fatalf("endpoints %+v, want %+v", r.Endpoints, want)
	}
	if len(r.Providers) < 10 || r.Providers[0] > r.Providers[1] {
		t.Fatalf("providers %v", r.Providers)
	}
}
