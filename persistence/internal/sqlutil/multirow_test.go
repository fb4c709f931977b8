package sqlutil

import (
	"slices"
	"strings"
	"testing"

	"github.com/shlyuz/shlyuz"
)

func TestPieces(t *testing.T) {
	if MostRows != 64 {
		t.Fatalf("MostRows = %d; the cases below are for 64", MostRows)
	}
	tests := []struct {
		n    int
		want []int
	}{
		{0, nil},
		{1, []int{1}},
		{63, []int{32, 16, 8, 4, 2, 1}},
		{64, []int{64}},
		{200, []int{64, 64, 64, 8}},
		{131, []int{64, 64, 2, 1}},
	}
	for _, tc := range tests {
		if got := Pieces(tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("Pieces(%d) = %v; want %v", tc.n, got, tc.want)
		}
	}
	sizes := Sizes()
	if want := []int{64, 32, 16, 8, 4, 2, 1}; !slices.Equal(sizes, want) {
		t.Errorf("Sizes() = %v; want %v", sizes, want)
	}
	for n := range 1000 {
		sum := 0
		for _, p := range Pieces(n) {
			if !slices.Contains(sizes, p) {
				t.Fatalf("Pieces(%d) holds %d, not among the sizes %v", n, p, sizes)
			}
			sum += p
		}
		if sum != n {
			t.Fatalf("Pieces(%d) add up to %d", n, sum)
		}
	}
}

func TestValues(t *testing.T) {
	if got, want := Values(3, 2), "($1, $2), ($3, $4), ($5, $6)"; got != want {
		t.Errorf("Values(3, 2) = %q; want %q", got, want)
	}
}

// TestArity holds the arities to the column lists and the argument lists.
func TestArity(t *testing.T) {
	columns := func(list string) int { return len(strings.Split(list, ",")) }
	if n := columns(EntryColumns); n != EntryArity {
		t.Errorf("EntryColumns has %d columns; EntryArity is %d", n, EntryArity)
	}
	if n := columns(GenerationColumns); n != GenerationArity {
		t.Errorf("GenerationColumns has %d columns; GenerationArity is %d", n, GenerationArity)
	}
	if n := len(AppendEntryArgs(nil, &shlyuz.LedgerEntry{})); n != EntryArity {
		t.Errorf("AppendEntryArgs appends %d values; EntryArity is %d", n, EntryArity)
	}
	if n := len(AppendGenerationArgs(nil, &shlyuz.Generation{})); n != GenerationArity {
		t.Errorf("AppendGenerationArgs appends %d values; GenerationArity is %d", n, GenerationArity)
	}
}

func TestToInsert(t *testing.T) {
	// Judged in order, an entry whose id an earlier entry inserts or finds
	// in the ledger is a duplicate, fenced or not; a fenced entry leaves no
	// row for a later one of its id to find.
	entries := []shlyuz.LedgerEntry{{ID: "a"}, {ID: "b"}, {ID: "a"}, {ID: "c"}, {ID: "c"}, {ID: "d"}, {ID: "b"}, {ID: "d"}, {ID: "c"}, {ID: "e"}, {ID: "e"}}
	outcomes := []Outcome{Insert, Fenced, Insert, Duplicate, Insert, Insert, Insert, Fenced, Fenced, Fenced, Fenced}
	queued := ToInsert(entries, outcomes)
	if want := []int{0, 5, 6}; !slices.Equal(queued, want) {
		t.Errorf("ToInsert = %v; want %v (the first of each id to insert, none already there)", queued, want)
	}
	want := []Outcome{Insert, Fenced, Duplicate, Duplicate, Duplicate, Insert, Insert, Duplicate, Duplicate, Fenced, Fenced}
	if !slices.Equal(outcomes, want) {
		t.Errorf("outcomes = %v; want %v", outcomes, want)
	}
	MarkInserted(entries, outcomes, queued, map[string]bool{"a": true, "d": true})
	want = []Outcome{Applied, Fenced, Duplicate, Duplicate, Duplicate, Applied, Duplicate, Duplicate, Duplicate, Fenced, Fenced}
	if !slices.Equal(outcomes, want) {
		t.Errorf("after MarkInserted, outcomes = %v; want %v", outcomes, want)
	}

	one := []Outcome{Fenced}
	if q := ToInsert(entries[:1], one); len(q) != 0 || one[0] != Fenced {
		t.Errorf("ToInsert of one fenced entry = %v, outcome %v; want none, Fenced", q, one[0])
	}
}

func TestUniqueGenerations(t *testing.T) {
	gens := []shlyuz.Generation{{ID: "x", Model: "1"}, {ID: "y", Model: "2"}, {ID: "x", Model: "3"}, {ID: "z", Model: "4"}, {ID: "x", Model: "5"}}
	var got []string
	for _, g := range UniqueGenerations(gens) {
		got = append(got, g.ID+"="+g.Model)
	}
	if want := []string{"x=5", "y=2", "z=4"}; !slices.Equal(got, want) {
		t.Errorf("UniqueGenerations = %v; want %v", got, want)
	}
}
