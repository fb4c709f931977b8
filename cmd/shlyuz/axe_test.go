package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// axe-core, the accessibility engine the browser tests run on every page:
// fetched once from npm through npm itself, checked against its pinned
// integrity, and kept in the user's cache (never in the repository).
const (
	axeVersion   = "4.10.3"
	axeIntegrity = "sha512-Xm7bpRXnDSX2YE2YFfBk2FnF0ep6tmG7xPh8iHee8MIcrgq762Nkce856dYtJYLkuIoYZvGfTs/PbZhideTcEg=="
)

var (
	axeOnce sync.Once
	axeJS   string
	axeErr  string
)

// axeSource is axe.min.js of the pinned version.
func axeSource(t *testing.T) string {
	t.Helper()
	axeOnce.Do(func() { axeJS, axeErr = loadAxe() })
	if axeErr != "" {
		t.Fatalf("axe-core %s: %s", axeVersion, axeErr)
	}
	return axeJS
}

func loadAxe() (string, string) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "shlyuz-test", "axe-core-"+axeVersion)
	path := filepath.Join(dir, "axe.min.js")
	if b, err := os.ReadFile(path); err == nil {
		return string(b), ""
	}
	tmp, err := os.MkdirTemp("", "shlyuz-axe-")
	if err != nil {
		return "", err.Error()
	}
	defer os.RemoveAll(tmp)
	cmd := exec.Command("npm", "pack", "axe-core@"+axeVersion, "--pack-destination", tmp, "--silent")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", "npm pack (npm and the registry are needed once): " + err.Error() + "\n" + string(out)
	}
	tgz, err := os.ReadFile(filepath.Join(tmp, "axe-core-"+axeVersion+".tgz"))
	if err != nil {
		return "", err.Error()
	}
	sum := sha512.Sum512(tgz)
	if got := "sha512-" + base64.StdEncoding.EncodeToString(sum[:]); got != axeIntegrity {
		return "", "the package's integrity is " + got + ", not the pinned " + axeIntegrity
	}
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return "", err.Error()
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			return "", "no package/axe.min.js in the package: " + err.Error()
		}
		if h.Name != "package/axe.min.js" {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return "", err.Error()
		}
		if err := os.MkdirAll(dir, 0o755); err == nil {
			_ = os.WriteFile(path, b, 0o644)
		}
		return string(b), ""
	}
}

// axeAudit runs axe on the page (after axe.min.js) and lists its serious and critical violations.
const axeAudit = `axe.run(document, {resultTypes: ['violations']}).then(function (r) {
  return r.violations.filter(function (v) { return v.impact === 'serious' || v.impact === 'critical'; }).map(function (v) {
    return v.impact + ' ' + v.id + ': ' + v.help + ' — ' + v.nodes.slice(0, 3).map(function (n) { return n.target.join(' '); }).join('; ');
  });
})`

func axeFailures(list []string) string { return strings.Join(list, "\n  ") }
