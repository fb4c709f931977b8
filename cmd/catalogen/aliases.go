package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
)

// aliasProviders maps where a provider's own model ids are listed (a
// LiteLLM provider, or a models.dev provider of the same name) to the
// catalog's prefix for that provider's models. Clients written for a
// provider (Claude Code, Codex, Gemini CLI) send these ids.
var aliasProviders = map[string]string{
	"anthropic": "anthropic",
	"openai":    "openai",
	"gemini":    "google",
	"google":    "google",
}

// nativeDate is a release date ending a provider's model id:
// "-20250929", "-2025-08-07", "@20251001".
var nativeDate = regexp.MustCompile(`([-@]\d{8}|-\d{4}-\d{2}-\d{2})$`)

// aliasKey is how a provider's id and a catalog name are compared: lower
// case, dots as dashes ("claude-sonnet-4.5" and "claude-sonnet-4-5" meet).
func aliasKey(name string) string {
	return strings.ReplaceAll(strings.ToLower(name), ".", "-")
}

// withAliases lists on each model of the providers in aliasProviders the
// ids that provider's own API gives it, as LiteLLM and models.dev list them
// (dated and undated) and its name without the catalog's prefix. An alias two models would claim is given to none.
func withAliases(models []catalogModel, litellmPath, modelsDevPath string) error {
	native, err := nativeIDs(litellmPath, modelsDevPath)
	if err != nil {
		return err
	}
	byKey := map[string]int{} // prefix|aliasKey(name) → model
	for i, m := range models {
		p, name, ok := strings.Cut(m.ID, "/")
		if !ok || !isAliasPrefix(p) {
			continue
		}
		byKey[p+"|"+aliasKey(name)] = i
	}
	claims := map[string][]int{}
	claim := func(alias string, i int) {
		for _, j := range claims[alias] {
			if j == i {
				return
			}
		}
		claims[alias] = append(claims[alias], i)
	}
	for _, i := range byKey {
		_, name, _ := strings.Cut(models[i].ID, "/")
		claim(strings.ToLower(name), i)
	}
	for _, n := range native {
		k := aliasKey(n.id)
		i, ok := byKey[n.prefix+"|"+k]
		if !ok {
			i, ok = byKey[n.prefix+"|"+nativeDate.ReplaceAllString(k, "")]
		}
		if ok {
			claim(strings.ToLower(n.id), i)
		}
	}
	for alias, owners := range claims {
		if len(owners) == 1 {
			models[owners[0]].Aliases = append(models[owners[0]].Aliases, alias)
		}
	}
	for i := range models {
		sort.Strings(models[i].Aliases)
	}
	return nil
}

func isAliasPrefix(p string) bool {
	for _, v := range aliasProviders {
		if v == p {
			return true
		}
	}
	return false
}

type nativeID struct{ prefix, id string }

// nativeIDs are the providers' own ids in the data files: LiteLLM's keys
// without a "<router>/" or "<vendor>." prefix whose provider is one of
// aliasProviders, and the ids of models.dev's records of those providers.
func nativeIDs(litellmPath, modelsDevPath string) ([]nativeID, error) {
	var out []nativeID
	b, err := os.ReadFile(litellmPath)
	if err != nil {
		return nil, err
	}
	var lite map[string]json.RawMessage
	if err := json.Unmarshal(b, &lite); err != nil {
		return nil, fmt.Errorf("%s: %w", litellmPath, err)
	}
	for k, v := range lite {
		var rec struct {
			Provider string `json:"litellm_provider"`
			Mode     string `json:"mode"`
		}
		if json.Unmarshal(v, &rec) != nil || strings.ContainsAny(k, "/:") {
			continue
		}
		if p, ok := aliasProviders[rec.Provider]; ok {
			out = append(out, nativeID{p, k})
		}
	}
	if b, err = os.ReadFile(modelsDevPath); err != nil {
		return nil, err
	}
	var dev map[string]struct {
		Models map[string]struct {
			ID string `json:"id"`
		} `json:"models"`
	}
	if err := json.Unmarshal(b, &dev); err != nil {
		return nil, fmt.Errorf("%s: %w", modelsDevPath, err)
	}
	for name, p := range dev {
		prefix, ok := aliasProviders[name]
		if !ok {
			continue
		}
		for _, m := range p.Models {
			if m.ID != "" && !strings.ContainsAny(m.ID, "/:") {
				out = append(out, nativeID{prefix, m.ID})
			}
		}
	}
	return out, nil
}
