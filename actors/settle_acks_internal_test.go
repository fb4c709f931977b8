package actors

import (
	"fmt"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// A commit's acknowledgements to one node travel as one message, to that
// node's call registry, which hands each to the request waiting for it; a
// node's only acknowledgement goes straight to its request.
func TestACommitsAcknowledgementsToANodeGoInOneMessage(t *testing.T) {
	for _, tc := range []struct {
		name     string
		requests int
		messages int64 // sent by the outbox
		bundled  bool  // through the call registry
	}{
		{"one settlement", 1, 1, false},
		{"five settlements", 5, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sys := actor.NewActorSystem()
			root := sys.Root
			bundles := make(chan *settleAcks, 4)
			// The call registry, seen on its way: counts the bundles, then delivers them as it does.
			calls := actor.PropsFromFunc(func(ctx actor.Context) {
				if m, ok := ctx.Message().(*settleAcks); ok {
					bundles <- m
					(&callsActor{}).Receive(ctx)
				}
			})
			if _, err := root.SpawnNamed(calls, callsActorName); err != nil {
				t.Fatal(err)
			}
			got := make(chan [2]int64, tc.requests) // request, epoch
			var out ackOutbox
			for i := range tc.requests {
				name := fmt.Sprintf("reply-%d", i)
				pid, err := root.SpawnNamed(actor.PropsFromFunc(func(ctx actor.Context) {
					if a, ok := ctx.Message().(*settleAck); ok {
						got <- [2]int64{int64(i), a.Epoch}
					}
				}), name)
				if err != nil {
					t.Fatal(err)
				}
				out.add(root, pid, &settleAck{Epoch: int64(100 + i)})
			}
			out.flush()
			seen := map[int64]int64{}
			for range tc.requests {
				select {
				case g := <-got:
					seen[g[0]] = g[1]
				case <-time.After(10 * time.Second):
					t.Fatalf("%d of %d acknowledgements arrived", len(seen), tc.requests)
				}
			}
			for i := range tc.requests {
				if seen[int64(i)] != int64(100+i) {
					t.Fatalf("request %d got epoch %d, want %d", i, seen[int64(i)], 100+i)
				}
			}
			if s := out.sent.Load(); s != tc.messages || out.acks.Load() != int64(tc.requests) {
				t.Fatalf("%d messages carried %d acknowledgements, want %d carrying %d", s, out.acks.Load(), tc.messages, tc.requests)
			}
			if b := len(bundles); (b == 1) != tc.bundled {
				t.Fatalf("%d bundles reached the call registry, bundled: %v", b, tc.bundled)
			}
			out.flush() // nothing queued: nothing sent
			if out.sent.Load() != tc.messages {
				t.Fatalf("an empty flush sent a message")
			}
		})
	}
}
