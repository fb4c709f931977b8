package actors

import "testing"

// The call registry's answers to a new activation: what it reports, which
// later grants are void, and which acknowledgements must be repeated at the
// newer activation.
func TestCallRegistry(t *testing.T) {
	for _, tc := range []struct {
		name      string
		run       func(r *callRegistry) bool
		wantCalls int
	}{
		{"a grant at the collecting epoch stands", func(r *callRegistry) bool {
			r.report("acc", 2)
			return r.grant("acc", heldCall{GenID: "g", Epoch: 2})
		}, 1},
		{"a grant older than a collection is void", func(r *callRegistry) bool {
			r.report("acc", 2)
			return !r.grant("acc", heldCall{GenID: "g", Epoch: 1})
		}, 0},
		{"a collection of another account voids nothing", func(r *callRegistry) bool {
			r.report("other", 5)
			return r.grant("acc", heldCall{GenID: "g", Epoch: 1})
		}, 1},
		{"a reported call is in the report with its requester", func(r *callRegistry) bool {
			r.grant("acc", heldCall{GenID: "g", KeyID: "k", Held: 40, Epoch: 1})
			got := r.report("acc", 2)
			return len(got) == 1 && got[0] == heldCall{GenID: "g", KeyID: "k", Held: 40, Epoch: 1, Requester: "me"}
		}, 1},
		{"an ack of the granting epoch ends an unreported call", func(r *callRegistry) bool {
			r.grant("acc", heldCall{GenID: "g", Epoch: 1})
			return r.acked("acc", "g", 1)
		}, 0},
		{"an ack older than the adopting activation must be repeated there", func(r *callRegistry) bool {
			r.grant("acc", heldCall{GenID: "g", Epoch: 1})
			r.report("acc", 2)
			return !r.acked("acc", "g", 1) && r.acked("acc", "g", 2)
		}, 0},
		{"done ends a call whatever its epoch", func(r *callRegistry) bool {
			r.grant("acc", heldCall{GenID: "g", Epoch: 1})
			r.report("acc", 3)
			r.done("acc", "g")
			return len(r.report("acc", 4)) == 0
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newCallRegistry("me")
			if !tc.run(r) {
				t.Fatal("unexpected answer")
			}
			if n := r.size(); n != tc.wantCalls {
				t.Fatalf("%d calls registered, want %d", n, tc.wantCalls)
			}
		})
	}
}
