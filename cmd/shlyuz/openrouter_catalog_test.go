package main

import (
	"strconv"
	"testing"
)

// GET /api/v1/models pages by offset and limit, bounded before any sum.
func TestModelsPageBoundsOffsetAndLimit(t *testing.T) {
	_, key := account(t, h.base, 0, nil)
	var all struct {
		Data       []struct{ ID string }
		TotalCount int `json:"total_count"`
	}
	if st := call(t, h.base, "GET", "/api/v1/models", key, nil, &all); st != 200 || all.TotalCount != len(all.Data) || len(all.Data) < 300 {
		t.Fatalf("%d: %d of %d", st, len(all.Data), all.TotalCount)
	}
	n := len(all.Data)
	for _, tc := range []struct {
		query  string
		status int
		count  int
		next   bool
	}{
		{"?offset=0&limit=10", 200, 10, true},
		{"?limit=1000", 200, n, false},
		{"?offset=" + strconv.Itoa(n-3) + "&limit=10", 200, 3, false},
		{"?offset=9223372036854775807&limit=1", 400, 0, false},
		{"?offset=4611686018427387904&limit=1000", 200, 0, false},
		{"?offset=-1", 400, 0, false},
		{"?limit=0", 400, 0, false},
		{"?limit=1001", 400, 0, false},
		{"?limit=ten", 400, 0, false},
	} {
		var page struct {
			Data       []struct{ ID string }
			TotalCount int `json:"total_count"`
			Links      struct {
				Next *string `json:"next"`
			} `json:"links"`
		}
		st := call(t, h.base, "GET", "/api/v1/models"+tc.query, key, nil, &page)
		if st != tc.status {
			t.Fatalf("%s: %d, want %d", tc.query, st, tc.status)
		}
		if st != 200 {
			continue
		}
		if len(page.Data) != tc.count || page.TotalCount != n || (page.Links.Next != nil) != tc.next {
			t.Fatalf("%s: %d records of %d, next %v", tc.query, len(page.Data), page.TotalCount, page.Links.Next)
		}
	}
}

// /models/count counts what /models lists, per output modality; /models/count
// is never read as a model named "count".
func TestModelsCount(t *testing.T) {
	_, key := account(t, h.base, 0, nil)
	for _, om := range []string{"", "?output_modalities=image", "?output_modalities=all", "?output_modalities=text,image"} {
		var list struct{ Data []struct{ ID string } }
		var count struct{ Data struct{ Count int } }
		if st := call(t, h.base, "GET", "/api/v1/models"+om, key, nil, &list); st != 200 {
			t.Fatalf("list %s: %d", om, st)
		}
		if st := call(t, h.base, "GET", "/api/v1/models/count"+om, key, nil, &count); st != 200 || count.Data.Count != len(list.Data) || count.Data.Count == 0 {
			t.Fatalf("count %s: %d, %d, listed %d", om, st, count.Data.Count, len(list.Data))
		}
	}
	var e apiError
	if st := call(t, h.base, "GET", "/api/v1/models/count?output_modalities=smell", key, nil, &e); st != 400 || e.Error.Param == nil || *e.Error.Param != "output_modalities" {
		t.Fatalf("unknown modality: %d %+v", st, e)
	}
	if st := call(t, h.base, "GET", "/api/v1/models/nobody/nothing/endpoints", key, nil, &e); st != 404 {
		t.Fatalf("endpoints of an unknown model: %d", st)
	}
}
