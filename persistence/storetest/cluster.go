package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
)

func member(id, mode string, until time.Time) shlyuz.Member {
	return shlyuz.Member{ID: id, Address: id + ":7100", Mode: mode, LeaseUntil: until, StartedAt: t0}
}

// testMembership: leases are listed while live; a single member is alone;
// members of one mode join each other; a renewal of a removed member says so.
func testMembership(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	if _, err := s.JoinMember(ctx, member("n1", "sql", at(2*time.Second)), t0); err != nil {
		t.Fatalf("JoinMember(n1): %v", err)
	}
	others, err := s.JoinMember(ctx, member("n2", "sql", at(2*time.Second)), t0)
	if err != nil || len(others) != 1 || others[0].ID != "n1" {
		t.Fatalf("JoinMember(n2) = %+v, %v; want n1 beside it", others, err)
	}
	for _, mode := range []string{"single", "sql"} { // single never joins; sql never joins a single
		if _, err := s.JoinMember(ctx, member("s1", "single", at(2*time.Second)), t0); !errors.Is(err, shlyuz.ErrMemberConflict) {
			t.Fatalf("JoinMember(single beside %s members) = %v; want ErrMemberConflict", mode, err)
		}
	}
	live, err := s.Members(ctx, at(time.Second))
	if err != nil || len(live) != 2 || live[0].Address != "n1:7100" || !live[0].LeaseUntil.Equal(norm(at(2*time.Second))) {
		t.Fatalf("Members = %+v, %v", live, err)
	}
	if ok, err := s.RenewMember(ctx, "n1", at(10*time.Second), at(time.Second)); !ok || err != nil {
		t.Fatalf("RenewMember(n1) = %v, %v", ok, err)
	}
	if live, _ := s.Members(ctx, at(5*time.Second)); len(live) != 1 || live[0].ID != "n1" {
		t.Fatalf("Members after n2's lease ran out = %+v", live)
	}
	if ok, err := s.RenewMember(ctx, "n2", at(20*time.Second), at(5*time.Second)); ok || err != nil {
		t.Fatalf("RenewMember of a lapsed lease = %v, %v; want false (it must fence itself)", ok, err)
	}
	// n2's lease expired: a single member may start now only once n1 is gone too.
	if err := s.LeaveMember(ctx, "n1"); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.RenewMember(ctx, "n1", at(20*time.Second), at(5*time.Second)); ok || err != nil {
		t.Fatalf("RenewMember after leaving = %v, %v; want false", ok, err)
	}
	if _, err := s.JoinMember(ctx, member("s1", "single", at(20*time.Second)), at(5*time.Second)); err != nil {
		t.Fatalf("JoinMember(single, alone) = %v", err)
	}
	if _, err := s.JoinMember(ctx, member("n3", "sql", at(20*time.Second)), at(5*time.Second)); !errors.Is(err, shlyuz.ErrMemberConflict) {
		t.Fatalf("JoinMember(sql beside a single) = %v; want ErrMemberConflict", err)
	}
}

// testLeaseGatedClaim: a claim is refused while another member's lease is
// live, allowed after it expires or the owner releases, and fences the old epoch.
func testLeaseGatedClaim(t *testing.T, s shlyuz.Store) {
	ctx := t.Context()
	mustAccount(t, s, "acct-1")
	for _, m := range []string{"n1", "n2"} {
		if _, err := s.JoinMember(ctx, member(m, "sql", at(2*time.Second)), t0); err != nil {
			t.Fatal(err)
		}
	}
	b, err := s.ClaimBalanceAs(ctx, "acct-1", "n1", t0)
	if err != nil || b.Epoch != 1 {
		t.Fatalf("ClaimBalanceAs(n1) = %+v, %v", b, err)
	}
	if b, err = s.ClaimBalanceAs(ctx, "acct-1", "n1", t0); err != nil || b.Epoch != 2 {
		t.Fatalf("ClaimBalanceAs(n1 again) = %+v, %v; want epoch 2", b, err)
	}
	if _, err := s.ClaimBalanceAs(ctx, "acct-1", "n2", at(time.Second)); !errors.Is(err, shlyuz.ErrOwnedElsewhere) {
		t.Fatalf("ClaimBalanceAs(n2) under n1's live lease = %v; want ErrOwnedElsewhere", err)
	}
	if _, err := s.ClaimBalanceAs(ctx, "nobody", "n2", t0); !errors.Is(err, shlyuz.ErrNoRows) {
		t.Fatalf("ClaimBalanceAs(unknown account) = %v; want ErrNoRows", err)
	}
	if b, err = s.ClaimBalanceAs(ctx, "acct-1", "n2", at(3*time.Second)); err != nil || b.Epoch != 3 {
		t.Fatalf("ClaimBalanceAs(n2) after n1's lease expired = %+v, %v", b, err)
	}
	if owner, err := s.Owner(ctx, "acct-1"); owner != "n2" || err != nil {
		t.Fatalf("Owner = %q, %v", owner, err)
	}
	res, err := s.Commit(ctx, shlyuz.Batch{Entries: []shlyuz.LedgerEntry{topUp("late", "acct-1", 5, 2)}})
	if err != nil || len(res.Fenced) != 1 {
		t.Fatalf("commit at n1's old epoch = %+v, %v; want fenced", res, err)
	}
	if err := s.ReleaseBalance(ctx, "acct-1", "n2", 2); err != nil { // an older epoch: no effect
		t.Fatal(err)
	}
	if owner, _ := s.Owner(ctx, "acct-1"); owner != "n2" {
		t.Fatalf("a release at an old epoch cleared the owner")
	}
	if err := s.ReleaseBalance(ctx, "acct-1", "n2", 3); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RenewMember(ctx, "n2", at(time.Hour), at(4*time.Second)); err != nil {
		t.Fatal(err)
	}
	if b, err = s.ClaimBalanceAs(ctx, "acct-1", "n1", at(4*time.Second)); err != nil || b.Epoch != 4 {
		t.Fatalf("ClaimBalanceAs(n1) after n2 released = %+v, %v", b, err)
	}
	if err := s.LeaveMember(ctx, "n1"); err != nil {
		t.Fatal(err)
	}
	if owner, _ := s.Owner(ctx, "acct-1"); owner != "" {
		t.Fatalf("Owner after the owner left = %q", owner)
	}
}
