package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
)

// testVideoJobs: create, idempotency keys per account, update, the cursor
// listing, the unsettled jobs and their holds by account and key, expiry.
func testVideoJobs(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	job := func(n int, account, key, idem string) shlyuz.VideoJob {
		return shlyuz.VideoJob{ID: fmt.Sprintf("video_%03d", n), AccountID: account, KeyID: key, IdempotencyKey: idem,
			Model: "m", Upstream: "u", State: shlyuz.VideoSubmitting, Hold: shlyuz.Credits(100 * n), CreatedAt: at(0).UTC(),
			Request: shlyuz.VideoRequest{JobID: fmt.Sprintf("video_%03d", n), Prompt: "p", Seconds: 4, InputReference: []byte{1, 2}}}
	}
	for i, j := range []shlyuz.VideoJob{job(1, "a", "k1", "x"), job(2, "a", "k2", ""), job(3, "a", "k1", ""), job(4, "b", "k3", "x")} {
		if err := s.CreateVideoJob(ctx, j); err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
	}
	if err := s.CreateVideoJob(ctx, job(5, "a", "k1", "x")); !errors.Is(err, shlyuz.ErrDuplicate) {
		t.Fatalf("a reused idempotency key: %v", err)
	}
	got, err := s.VideoJobByIdempotencyKey(ctx, "k3", "x")
	if err != nil || got.ID != "video_004" {
		t.Fatalf("by key: %+v %v", got, err)
	}
	if _, err := s.VideoJobByIdempotencyKey(ctx, "k2", "x"); !errors.Is(err, shlyuz.ErrNoRows) {
		t.Fatalf("another API key's idempotency key: %v; want ErrNoRows", err)
	}
	if err := s.CreateVideoJob(ctx, job(6, "a", "k2", "x")); err != nil { // the same value, another API key: its own job
		t.Fatalf("another API key reusing an idempotency key: %v", err)
	}
	if got, err := s.VideoJobByIdempotencyKey(ctx, "k2", "x"); err != nil || got.ID != "video_006" {
		t.Fatalf("by key k2: %+v %v", got, err)
	}
	if mine, err := s.VideoJobs(ctx, "a", "k2", "", 10); err != nil || len(mine) != 2 || mine[0].ID != "video_006" || mine[1].ID != "video_002" {
		t.Fatalf("jobs of key k2: %+v %v", mine, err)
	}
	if err := s.UpdateVideoJob(ctx, func() shlyuz.VideoJob {
		j := job(6, "a", "k2", "x")
		j.Settled = true
		j.State = shlyuz.VideoCancelled
		return j
	}()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.VideoJob(ctx, "video_999"); !errors.Is(err, shlyuz.ErrNoRows) {
		t.Fatalf("missing job: %v", err)
	}
	j := job(2, "a", "k2", "")
	j.State, j.UpstreamID, j.Settled = shlyuz.VideoFailed, "up-2", true
	if err := s.UpdateVideoJob(ctx, j); err != nil {
		t.Fatal(err)
	}
	if got, err := s.VideoJob(ctx, "video_002"); err != nil || !reflect.DeepEqual(got, j) {
		t.Fatalf("after update: %+v %v", got, err)
	}
	if err := s.UpdateVideoJob(ctx, job(9, "a", "k", "")); !errors.Is(err, shlyuz.ErrNoRows) {
		t.Fatalf("update of a missing job: %v", err)
	}
	page, err := s.VideoJobs(ctx, "a", "", "video_006", 2)
	if err != nil || len(page) != 2 || page[0].ID != "video_003" || page[1].ID != "video_002" {
		t.Fatalf("first page: %+v %v", page, err)
	}
	if page, err = s.VideoJobs(ctx, "a", "", "video_002", 2); err != nil || len(page) != 1 || page[0].ID != "video_001" {
		t.Fatalf("second page: %+v %v", page, err)
	}
	holds, err := s.VideoHolds(ctx, "a")
	if err != nil || !reflect.DeepEqual(holds, map[string]shlyuz.Credits{"video_001": 100, "video_003": 300}) {
		t.Fatalf("account holds: %v %v", holds, err)
	}
	if holds, err = s.VideoKeyHolds(ctx, "k1"); err != nil || len(holds) != 2 {
		t.Fatalf("key holds: %v %v", holds, err)
	}
	unsettled, err := s.UnsettledVideoJobs(ctx)
	if err != nil || len(unsettled) != 3 {
		t.Fatalf("unsettled: %d %v", len(unsettled), err)
	}
	done := job(3, "a", "k1", "")
	exp := at(time4)
	done.State, done.Settled, done.ExpiresAt = shlyuz.VideoCompleted, true, &exp
	if err := s.UpdateVideoJob(ctx, done); err != nil {
		t.Fatal(err)
	}
	if old, err := s.ExpiredVideoFiles(ctx, at(time4+time.Second), 10); err != nil || len(old) != 1 || old[0].ID != "video_003" {
		t.Fatalf("expired: %+v %v", old, err)
	}
	if old, err := s.ExpiredVideoFiles(ctx, at(time4), 10); err != nil || len(old) != 0 {
		t.Fatalf("not yet expired: %+v %v", old, err)
	}
}

const time4 = 4 * time.Hour
