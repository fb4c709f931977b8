package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// openRouterSDK is OpenRouter's own TypeScript SDK, pinned so that a new
// release cannot change what the test checks.
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
	Claude    map[string]string `json:"claude"`
	Count     int               `json:"count"`
	User      int               `json:"user"`
	Endpoints []endpointSeen    `json:"endpoints"`
	Providers []string          `json:"providers"`

	CreditsBefore, CreditsAfter struct {
		TotalCredits int64 `json:"totalCredits"`
		TotalUsage   int64 `json:"totalUsage"`
	}
	Chats []struct {
		ID                       string
		Cost, Prompt, Completion int64
		Text                     string
	}
	Generations []struct {
		ID, Provider, Finish string
		TotalCost, Usage     int64
		Prompt, Completion   int64
		Streamed, Cancelled  bool
	}
	MgmtIsManagement bool `json:"mgmtIsManagement"`
	MgmtChat         any  `json:"mgmtChat"`
	Made             struct {
		Name, Reset, Plain string
		Limit              int64
		Disabled           bool
	}
	KeyListed, ListedAfterDelete, Deleted, ListedDisabled, ListedWhileDisabled bool
	DisabledChat                                                               any
	Enabled                                                                    struct {
		Disabled    bool
		Name, Reset string
		Remaining   int64
	}
	Updated  struct{ Limit, Remaining int64 }
	Got      struct{ Usage, Remaining, Monthly int64 }
	Activity []struct {
		Model, Provider                     string
		Usage, Requests, Prompt, Completion int64
	}
	Key struct {
		Label                         string
		Usage, Daily, Weekly, Monthly int64
		Limit, Remaining              *int64
		Reset                         *string
		Free                          bool
	}
}

// TestOpenRouterSDK drives @openrouter/sdk, changed only in its server URL
// and key, through the catalog and account endpoints: the SDK validates every
// reply against OpenRouter's schemas, and each money figure (in credits) must
// agree with the ledger and the test prices.
func TestOpenRouterSDK(t *testing.T) {
	modules := npmInstall(t, openRouterSDK)
	acct, key := account(t, h.base, 1_000_000, map[string]any{"name": "sdk", "limit": 500_000, "limit_reset": "month"})
	var mgmt struct{ Key string }
	if st := call(t, h.base, "POST", "/api/admin/accounts/"+acct+"/keys", adminToken, map[string]any{"name": "keys", "management": true}, &mgmt); st != 201 {
		t.Fatalf("management key: %d", st)
	}
	raw := runNode(t, modules, "openrouter_sdk.mjs", "SHLYUZ_BASE="+h.base, "SHLYUZ_KEY="+key, "SHLYUZ_MGMT_KEY="+mgmt.Key)
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
	// Anthropic's list per Mtok: $3 in, $15 out, $0.30 a cached read, $3.75 a 5-minute write, $6 an hour's.
	wantClaude := map[string]string{"prompt": "30", "completion": "150", "cacheRead": "3", "cacheWrite": "37.5",
		"cacheWrite1h": "60", "reasoning": "150", "request": "0"}
	if !reflect.DeepEqual(r.Claude, wantClaude) {
		t.Fatalf("claude/sonnet-4.5 pricing %v, want %v", r.Claude, wantClaude)
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

	// Account: every OpenRouter-named money figure is in credits and agrees with the ledger.
	if r.CreditsBefore.TotalCredits != 1_000_000 || r.CreditsBefore.TotalUsage != 0 {
		t.Fatalf("credits before: %+v", r.CreditsBefore)
	}
	if len(r.Chats) != 3 || len(r.Generations) != 2 {
		t.Fatalf("chats %+v, generations %+v", r.Chats, r.Generations)
	}
	var spent int64
	for i, c := range r.Chats {
		e, err := h.in.store.Entry(t.Context(), "chg-"+c.ID)
		if err != nil {
			t.Fatalf("ledger entry of %s: %v", c.ID, err)
		}
		spent += c.Cost
		if i == 2 { // the key the management key made
			continue
		}
		g := r.Generations[i]
		if c.Cost != promptCredits*c.Prompt+completionCredits*c.Completion || c.Cost != -e.Amount() || c.Completion != 8 {
			t.Fatalf("chat %d: %+v; ledger %d", i, c, -e.Amount())
		}
		if g.ID != c.ID || g.TotalCost != c.Cost || g.Usage != c.Cost || g.Prompt != c.Prompt || g.Completion != c.Completion ||
			g.Streamed != (i == 1) || g.Cancelled || g.Provider != "fake" || g.Finish != "stop" {
			t.Fatalf("generation %d: %+v, chat %+v", i, g, c)
		}
	}
	third := r.Chats[2].Cost
	if third != promptCredits*r.Chats[2].Prompt+completionCredits*r.Chats[2].Completion {
		t.Fatalf("the made key's chat: %+v", r.Chats[2])
	}

	// Keys: the management key manages keys and calls no model.
	if !r.MgmtIsManagement || r.MgmtChat != float64(403) {
		t.Fatalf("management key: is_management_key %v, its chat %v", r.MgmtIsManagement, r.MgmtChat)
	}
	if r.Made.Name != "made-by-sdk" || r.Made.Limit != 100_000 || r.Made.Reset != "monthly" || r.Made.Disabled || r.Made.Plain != "sk-shz-v1-" ||
		!r.KeyListed || r.Updated.Limit != 200_000 || r.Updated.Remaining != 200_000 {
		t.Fatalf("made %+v, listed %v, updated %+v", r.Made, r.KeyListed, r.Updated)
	}
	if r.Got.Usage != third || r.Got.Monthly != third || r.Got.Remaining != 200_000-third {
		t.Fatalf("the made key after its chat: %+v, chat cost %d", r.Got, third)
	}
	// PATCH as OpenRouter's: disabled, it is listed only with include_disabled and refused (401);
	// enabled again, renamed and its period changed; deleted, it is gone.
	if !r.ListedDisabled || r.ListedWhileDisabled || r.DisabledChat != float64(401) {
		t.Fatalf("disabled: listed with include_disabled %v, listed %v, its chat %v", r.ListedDisabled, r.ListedWhileDisabled, r.DisabledChat)
	}
	if r.Enabled.Disabled || r.Enabled.Name != "renamed-by-sdk" || r.Enabled.Reset != "daily" || r.Enabled.Remaining != 200_000-third {
		t.Fatalf("enabled again: %+v", r.Enabled)
	}
	if !r.Deleted || r.ListedAfterDelete {
		t.Fatalf("deleted %v, listed after %v", r.Deleted, r.ListedAfterDelete)
	}
	if len(r.Activity) != 1 || r.Activity[0].Model != "test/model" || r.Activity[0].Provider != "fake" || r.Activity[0].Requests != 3 ||
		r.Activity[0].Usage != spent || r.Activity[0].Completion != 24 {
		t.Fatalf("activity %+v, spent %d", r.Activity, spent)
	}
	k := r.Key
	mine := spent - third // the SDK's key spent the first two chats
	if k.Usage != mine || k.Daily != mine || k.Weekly != mine || k.Monthly != mine || k.Limit == nil || *k.Limit != 500_000 ||
		k.Remaining == nil || *k.Remaining != 500_000-mine || k.Reset == nil || *k.Reset != "monthly" || k.Free || !strings.HasPrefix(k.Label, "sk-shz-v1-") {
		t.Fatalf("key %+v, spent %d", k, spent)
	}
	after := r.CreditsAfter
	if after.TotalCredits != 1_000_000 || after.TotalUsage != spent || after.TotalCredits-after.TotalUsage != balance(t, h.base, key).Data.TotalCredits {
		t.Fatalf("credits after %+v, spent %d", after, spent)
	}
}

// The Vercel AI SDK with OpenRouter's provider, at versions that run on Node 20.
var openRouterAISDK = []string{"@openrouter/ai-sdk-provider@2.9.1", "ai@6.0.325", "zod@4.6.7"}

// TestOpenRouterAISDK drives generateText and streamText through
// @openrouter/ai-sdk-provider, changed only in base URL and key: the text
// arrives, the usage is read, and OpenRouter's cost (in credits) is what the
// ledger debited.
func TestOpenRouterAISDK(t *testing.T) {
	modules := npmInstall(t, openRouterAISDK...)
	_, key := account(t, h.base, 1_000_000, nil)
	raw := runNode(t, modules, "openrouter_ai_sdk.mjs", "SHLYUZ_BASE="+h.base, "SHLYUZ_KEY="+key)
	var r map[string]struct {
		ID, Text            string
		Input, Output, Cost int64
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	after := balance(t, h.base, key).Data.TotalCredits // /credits commits this node's journal: the entries are in the store
	var spent int64
	for _, call := range []string{"generate", "stream"} {
		c := r[call]
		e, err := h.in.store.Entry(t.Context(), "chg-"+c.ID)
		if err != nil {
			t.Fatalf("%s: ledger entry of %q: %v", call, c.ID, err)
		}
		// The fake counts a quarter of "Hello!" (1 token) and answers 8 words: 1*10 + 8*20 = 170 credits.
		if c.Text != "tok0 tok1 tok2 tok3 tok4 tok5 tok6 tok7" || c.Input != 1 || c.Output != 8 || c.Cost != 170 || c.Cost != -e.Amount() {
			t.Fatalf("%s: %+v, ledger %d", call, c, -e.Amount())
		}
		spent += c.Cost
	}
	if after != 1_000_000-spent {
		t.Fatalf("balance %d, spent %d", after, spent)
	}
}
