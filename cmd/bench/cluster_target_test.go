package main

import (
	"context"
	"testing"
)

// A target listing a cluster's nodes sends to each in turn.
func TestTargetTakesTheNodesInTurn(t *testing.T) {
	tg := newTarget("http://127.0.0.1:1/v1,http://127.0.0.1:2/v1/,http://127.0.0.1:3/v1", "k", "m", false, 8)
	var got []string
	for i := 0; i < 4; i++ {
		req, err := tg.newRequest(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, req.URL.Host)
	}
	want := []string{"127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3", "127.0.0.1:1"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("hosts %v, want %v", got, want)
		}
	}
	if firstBase("http://a/v1,http://b/v1") != "http://a/v1" {
		t.Fatal("firstBase")
	}
}
