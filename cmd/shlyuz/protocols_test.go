package main

import (
	"encoding/json"
	"testing"
)

// Every protocol through the gateway: plain and streamed, billed exactly.
func TestEveryProtocolThroughTheGateway(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	for _, model := range []string{"claude/model", "gemini/model", "yagpt/model", "giga/model"} {
		for _, stream := range []bool{false, true} {
			t.Run(model+map[bool]string{false: "/plain", true: "/stream"}[stream], func(t *testing.T) {
				before := balance(t, h.base, key).Data.TotalCredits
				resp := postChat(t, h.base, key, chatBody(model, stream, 0))
				defer resp.Body.Close()
				if resp.StatusCode != 200 {
					var e apiError
					_ = jsonDecode(resp.Body, &e)
					t.Fatalf("%d %+v", resp.StatusCode, e.Error)
				}
				var prompt, completion, credits int64
				if stream {
					ev := sseEvents(t, resp.Body)
					var last struct {
						Usage struct {
							PromptTokens     int64 `json:"prompt_tokens"`
							CompletionTokens int64 `json:"completion_tokens"`
							Credits          int64 `json:"credits"`
						} `json:"usage"`
					}
					if len(ev) < 3 || ev[len(ev)-1] != "[DONE]" || json.Unmarshal([]byte(ev[len(ev)-2]), &last) != nil {
						t.Fatalf("events %q", ev)
					}
					prompt, completion, credits = last.Usage.PromptTokens, last.Usage.CompletionTokens, last.Usage.Credits
				} else {
					var r chatReply
					if err := jsonDecode(resp.Body, &r); err != nil || r.Choices[0].Message.Content != "tok0 tok1 tok2 tok3 tok4 tok5 tok6 tok7" {
						t.Fatalf("%v %+v", err, r)
					}
					prompt, completion, credits = r.Usage.PromptTokens, r.Usage.CompletionTokens, r.Usage.Credits
				}
				if completion != 8 || prompt < 1 || credits != promptCredits*prompt+completionCredits*completion {
					t.Fatalf("usage %d/%d credits %d", prompt, completion, credits)
				}
				if after := balance(t, h.base, key).Data.TotalCredits; before-after != credits {
					t.Fatalf("debited %d, reported %d", before-after, credits)
				}
			})
		}
	}
}

// A request whose first upstream fails is served by the next, at the serving upstream's price.
func TestFallbackAcrossProtocolsBillsTheServingUpstream(t *testing.T) {
	_, key := account(t, h.base, 10_000_000, nil)
	before := balance(t, h.base, key).Data.TotalCredits
	resp := postChat(t, h.base, key, chatBody("mixed/model", false, 0))
	var r chatReply
	_ = jsonDecode(resp.Body, &r)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("%d", resp.StatusCode)
	}
	if want := 2 * (promptCredits*r.Usage.PromptTokens + completionCredits*r.Usage.CompletionTokens); r.Usage.Credits != want {
		t.Fatalf("credits %d, want %d (the pricey upstream's double price)", r.Usage.Credits, want)
	}
	if after := balance(t, h.base, key).Data.TotalCredits; before-after != r.Usage.Credits {
		t.Fatalf("debited %d, reported %d", before-after, r.Usage.Credits)
	}
	var g generationView
	call(t, h.base, "GET", "/api/v1/generation?id="+r.ID, key, nil, &g)
	if len(g.Data.Attempts) != 2 || g.Data.Attempts[0].Upstream != "anthropic-dead" || g.Data.Attempts[0].Status < 500 ||
		g.Data.Attempts[1].Upstream != "pricey" || g.Data.Upstream != "pricey" {
		t.Fatalf("attempts %+v", g.Data)
	}
}
