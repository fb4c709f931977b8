package shlyuz

import (
	"os/exec"
	"strings"
	"testing"
)

// The domain imports the standard library only: what reads a format, talks
// to a machine or serves a protocol lives in a package of its own.
func TestRootImportsTheStandardLibraryOnly(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	var outside []string
	for _, p := range strings.Fields(string(out)) {
		if p != "github.com/shlyuz/shlyuz" {
			outside = append(outside, p)
		}
	}
	if len(outside) > 0 {
		t.Errorf("the root package imports beyond the standard library: %s", strings.Join(outside, ", "))
	}
}
