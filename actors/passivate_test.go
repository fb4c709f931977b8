package actors_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// Idle account actors (with their keys) are passivated and their memory let
// go; one that holds a reservation stays until it is settled; a passivated
// account comes back with its keys' spend and its balance exactly as they were.
func TestIdleActorsArePassivated(t *testing.T) {
	tg := mediaGateway()
	waitActivations(t, tg, 0)
	var hashes []string
	for i := range 20 {
		hash := tg.account(fmt.Sprintf("acc-idle-%d", i), 1000, 1000)
		if _, err := tg.CheckKey(hash); err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, hash)
	}
	m, err := tg.StartMedia(context.Background(), mediaCall(hashes[0], "gen-idle-hold", 100), accepted)
	if err != nil {
		t.Fatal(err)
	}
	waitActivations(t, tg, 1) // all but the account that holds the reservation (its key inside)
	r := m.Settle(40, shlyuz.Usage{}, shlyuz.GenerationCompleted, "stop")
	waitActivations(t, tg, 0)
	assertSpent(t, tg, hashes[0], "acc-idle-0", r.Credits, 1000-r.Credits)
	assertSpent(t, tg, hashes[1], "acc-idle-1", 0, 1000)
}

// waitActivations waits until the gateway has n live account activations.
func waitActivations(t *testing.T, tg *testGateway, n int64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for tg.Activations() != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d activations, want %d", tg.Activations(), n)
		}
		time.Sleep(10 * time.Millisecond) // polling a gauge, not waiting for a guess
	}
}

// BenchmarkIdleKeysMemory activates 100,000 distinct keys, then lets them go
// idle: it reports the heap a key costs while active and what is left per
// key once all were passivated. A key lives inside its account's activation,
// so by default every key has an account of its own (a key is then one
// activation, the worst case); SHLYUZ_BENCH_KEYS_PER_ACCOUNT groups them.
// Run it once: -bench IdleKeysMemory -benchtime 1x.
func BenchmarkIdleKeysMemory(b *testing.B) {
	keys, perAccount := benchKeys(), benchKeysPerAccount()
	accounts := (keys + perAccount - 1) / perAccount
	// Every key's first use reads the store and every activation claims its
	// account there (about a millisecond a key here): the idle time outlasts
	// a whole wave, so that all of it is live when measured, and one sweep
	// passivates it all.
	idle := 20*time.Second + time.Duration(keys)*1500*time.Microsecond
	tg := startIdleGateway(b, idle, int64(accounts), testUpstream{name: "instant", provider: instant{}})
	ctx := context.Background()
	// two waves of different keys (and accounts): the second shows whether
	// what the first left behind grows or is reused
	hashes := make([]string, 2*keys)
	for i := range hashes {
		acc := fmt.Sprintf("acc-mem-%d", i/perAccount)
		if i%perAccount == 0 {
			if err := tg.store.CreateAccount(ctx, shlyuz.Account{ID: acc, Email: acc + "@example.com", CreatedAt: time.Now()}); err != nil {
				b.Fatal(err)
			}
		}
		plain, hash := shlyuz.NewKeySecret()
		if err := tg.store.CreateKey(ctx, shlyuz.Key{ID: fmt.Sprintf("key-mem-%d", i), AccountID: acc, Hash: hash,
			Label: shlyuz.MaskKey(plain), LimitReset: shlyuz.ResetMonth, CreatedAt: time.Now()}, 0); err != nil {
			b.Fatal(err)
		}
		hashes[i] = hash
	}
	var retries atomic.Int64
	wave := func(hashes []string) (active, idle int64, live int64) {
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < len(hashes); i += 8 {
					// an activation queued behind the placement actor's
					// forgetting of the last batch may time out: again
					for try := 0; ; try++ {
						_, err := tg.CheckKey(hashes[i])
						if err == nil {
							break
						}
						if try == 10 {
							b.Error(err)
							return
						}
						retries.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		active, live = heapInUse(), tg.Activations()
		for tg.Activations() != 0 {
			time.Sleep(50 * time.Millisecond) // polling a gauge
		}
		return active, settledHeap(), live
	}
	for b.Loop() {
		before := heapInUse()
		active, idle, live := wave(hashes[:keys])
		_, idle2, _ := wave(hashes[keys:])
		if live != int64(accounts) {
			b.Errorf("%d activations live at the end of the wave, want %d: a wave outlasted the idle time", live, accounts)
		}
		b.ReportMetric(float64(active-before)/float64(keys), "B/active-key")
		b.ReportMetric(float64(idle-before)/float64(keys), "B/key-after-idle")
		b.ReportMetric(float64(idle2-idle)/float64(keys), "B/key-second-wave")
		b.ReportMetric(float64(live), "activations")
		b.ReportMetric(float64(retries.Load()), "timed-out-activations")
	}
}

// settledHeap is the live heap once it stopped shrinking (three readings a
// second apart within 1% of each other), or after three minutes: protoactor's
// placement actor forgets each stopped activation in time linear in the
// number it holds, so 100,000 passivations take it tens of seconds.
func settledHeap() int64 {
	prev, stable := heapInUse(), 0
	for deadline := time.Now().Add(3 * time.Minute); stable < 3 && time.Now().Before(deadline); {
		time.Sleep(time.Second) // polling the heap
		now := heapInUse()
		if now > prev-prev/100 {
			stable++
		} else {
			stable = 0
		}
		prev = now
	}
	return prev
}

// heapInUse is the live heap after a full collection.
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// benchKeysPerAccount is how many of BenchmarkIdleKeysMemory's keys share an
// account: 1, or SHLYUZ_BENCH_KEYS_PER_ACCOUNT.
func benchKeysPerAccount() int {
	if n, err := strconv.Atoi(os.Getenv("SHLYUZ_BENCH_KEYS_PER_ACCOUNT")); err == nil && n > 0 {
		return n
	}
	return 1
}

// benchKeys is BenchmarkIdleKeysMemory's number of keys: 100,000, or
// SHLYUZ_BENCH_KEYS.
func benchKeys() int {
	if n, err := strconv.Atoi(os.Getenv("SHLYUZ_BENCH_KEYS")); err == nil && n > 0 {
		return n
	}
	return 100_000
}
