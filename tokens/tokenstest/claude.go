// Package tokenstest holds what tests of token counts share: Anthropic's
// published tokenizer, fetched once through npm and checked against its
// registry integrity.
package tokenstest

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/pkoukk/tiktoken-go"
)

// claudeTokenizer is Anthropic's published tokenizer (the npm package
// @anthropic-ai/tokenizer, its claude.json vocabulary, read by tiktoken-go
// as the package's own tiktoken reads it, after NFKC as countTokens does).
const (
	claudeTokenizerVersion   = "0.0.4"
	claudeTokenizerIntegrity = "sha512-EHRKbxlxlc8W4KCBEseByJ7YwyYCmgu9OyN59H9+IYIGPoKv8tXyQXinkeGDI+cI8Tiuz9wk2jZb/kK7AyvL7g=="
)

var claudeOnce struct {
	sync.Once
	enc   *tiktoken.Tiktoken
	ranks map[string]int
	err   string
}

// Claude fetches the pinned package once through npm (checked
// against its registry integrity) into the user's cache and builds the
// encoding from its claude.json.
func Claude() (*tiktoken.Tiktoken, error) {
	claudeOnce.Do(func() {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		dir = filepath.Join(dir, "shlyuz-test", "anthropic-tokenizer-"+claudeTokenizerVersion)
		tgz := filepath.Join(dir, "anthropic-ai-tokenizer-"+claudeTokenizerVersion+".tgz")
		if _, err := os.Stat(tgz); err != nil {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				claudeOnce.err = err.Error()
				return
			}
			cmd := exec.Command("npm", "pack", "@anthropic-ai/tokenizer@"+claudeTokenizerVersion, "--pack-destination", dir, "--silent")
			if out, err := cmd.CombinedOutput(); err != nil {
				claudeOnce.err = "npm pack (npm and its registry are needed once): " + err.Error() + "\n" + string(out)
				return
			}
		}
		raw, err := os.ReadFile(tgz)
		if err != nil {
			claudeOnce.err = err.Error()
			return
		}
		if sum := sha512.Sum512(raw); "sha512-"+base64.StdEncoding.EncodeToString(sum[:]) != claudeTokenizerIntegrity {
			claudeOnce.err = tgz + " does not match the registry's integrity"
			return
		}
		vocab, err := tarFile(raw, "package/claude.json")
		if err != nil {
			claudeOnce.err = err.Error()
			return
		}
		var c struct {
			PatStr        string         `json:"pat_str"`
			SpecialTokens map[string]int `json:"special_tokens"`
			BPERanks      string         `json:"bpe_ranks"`
		}
		if err := json.Unmarshal(vocab, &c); err != nil {
			claudeOnce.err = err.Error()
			return
		}
		ranks := map[string]int{}
		for _, line := range strings.Split(c.BPERanks, "\n") { // tiktoken's lite format: "prefix offset token…"
			f := strings.Split(line, " ")
			if len(f) < 2 {
				continue
			}
			off, err := strconv.Atoi(f[1])
			if err != nil {
				claudeOnce.err = "bpe_ranks: " + err.Error()
				return
			}
			for i, tok := range f[2:] {
				b, err := base64.StdEncoding.DecodeString(tok)
				if err != nil {
					claudeOnce.err = "bpe_ranks: " + err.Error()
					return
				}
				ranks[string(b)] = off + i
			}
		}
		bpe, err := tiktoken.NewCoreBPE(ranks, c.SpecialTokens, c.PatStr)
		if err != nil {
			claudeOnce.err = err.Error()
			return
		}
		special := map[string]any{}
		for k := range c.SpecialTokens {
			special[k] = true
		}
		claudeOnce.ranks = ranks
		claudeOnce.enc = tiktoken.NewTiktoken(bpe, &tiktoken.Encoding{Name: "claude", PatStr: c.PatStr, MergeableRanks: ranks, SpecialTokens: c.SpecialTokens}, special)
	})
	if claudeOnce.enc == nil {
		return nil, errors.New(claudeOnce.err)
	}
	return claudeOnce.enc, nil
}

// ClaudeRanks is Claude's vocabulary: each token's bytes, with its rank.
func ClaudeRanks() (map[string]int, error) {
	if _, err := Claude(); err != nil {
		return nil, err
	}
	return claudeOnce.ranks, nil
}

func tarFile(tgz []byte, name string) ([]byte, error) {
	zr, err := gzip.NewReader(strings.NewReader(string(tgz)))
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			return nil, err
		}
		if h.Name == name {
			return io.ReadAll(tr)
		}
	}
}
