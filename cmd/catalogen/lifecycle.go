package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// The catalog's lifecycle dates. LiteLLM's deprecation_date is the day a
// provider shuts a model down: the catalog's expiration_date (OpenRouter's
// name for it). A model is matched only with a record of its own provider's
// API (never a reseller's or a cloud region's, whose dates differ), by its
// name with dots as dashes and without a trailing -YYYYMMDD snapshot date
// (Anthropic's dated names). Its deprecation date is the day LiteLLM's copy
// was taken (the retirement was announced by then), or the retirement day
// if that came first. genai-prices marks some models "deprecated" without
// a date: those are deprecated from the day its copy was taken.
const (
	litellmSnapshot = "2026-07-24" // the day /work/shared/data's LiteLLM copy was mirrored
	pricesSnapshot  = "2026-08-21" // the commit date of its genai-prices copy
)

// lifecycleVendors maps LiteLLM's provider of a first-party API to the
// catalog's id prefix.
var lifecycleVendors = map[string]string{
	"openai": "openai", "anthropic": "anthropic", "gemini": "google", "vertex_ai-language-models": "google",
	"xai": "x-ai", "moonshot": "moonshotai", "mistral": "mistralai", "deepseek": "deepseek",
}

// pricesVendors maps genai-prices' provider ids to the catalog's id prefix.
var pricesVendors = map[string]string{"google": "google", "mistral": "mistralai", "x-ai": "x-ai", "openai": "openai", "anthropic": "anthropic"}

// successors are the replacements the providers name for retiring models
// (their deprecation pages), where the successor is in the catalog.
var successors = map[string]string{
	"anthropic/claude-3-opus":          "anthropic/claude-opus-4.5",
	"anthropic/claude-3.7-sonnet":      "anthropic/claude-sonnet-4.5",
	"anthropic/claude-opus-4":          "anthropic/claude-opus-4.5",
	"anthropic/claude-sonnet-4":        "anthropic/claude-sonnet-4.5",
	"google/gemini-2.0-flash-001":      "google/gemini-2.5-flash",
	"google/gemini-2.0-flash-lite-001": "google/gemini-2.5-flash-lite",
}

var snapshotDate = regexp.MustCompile(`-\d{8}$`)

// lifecycleName is a model name as lifecycle matching compares it.
func lifecycleName(s string) string {
	return snapshotDate.ReplaceAllString(strings.ReplaceAll(strings.ToLower(s), ".", "-"), "")
}

func withLifecycle(models []catalogModel, lite litellmIndex, pricesPath string) error {
	byName := map[string]int{}
	for i, m := range models {
		vendor, name, ok := strings.Cut(m.ID, "/")
		if ok {
			byName[vendor+"/"+lifecycleName(name)] = i
		}
	}
	for key, r := range lite {
		vendor := lifecycleVendors[r.Provider]
		if r.DeprecationDate == "" || vendor == "" || strings.HasPrefix(key, "norm:") {
			continue
		}
		i, ok := byName[vendor+"/"+lifecycleName(key[strings.LastIndex(key, "/")+1:])]
		if !ok {
			continue
		}
		m := &models[i]
		if m.ExpirationDate == "" || r.DeprecationDate < m.ExpirationDate { // the earliest shutdown of its names
			m.ExpirationDate = r.DeprecationDate
		}
		m.DeprecationDate = min(litellmSnapshot, m.ExpirationDate)
	}
	deprecated, err := pricesDeprecated(pricesPath)
	if err != nil {
		return err
	}
	for _, id := range deprecated {
		vendor, name, _ := strings.Cut(id, "/")
		if i, ok := byName[vendor+"/"+lifecycleName(name)]; ok && models[i].DeprecationDate == "" {
			models[i].DeprecationDate = pricesSnapshot
		}
	}
	for id, succ := range successors {
		i, ok := byName[id[:strings.Index(id, "/")]+"/"+lifecycleName(id[strings.Index(id, "/")+1:])]
		if !ok || models[i].ID != id {
			return fmt.Errorf("successors: %s is not in the catalog", id)
		}
		if _, ok := byName[succ[:strings.Index(succ, "/")]+"/"+lifecycleName(succ[strings.Index(succ, "/")+1:])]; !ok {
			return fmt.Errorf("successors: %s (of %s) is not in the catalog", succ, id)
		}
		models[i].Successor = succ
	}
	return nil
}

// pricesDeprecated is the catalog-shaped ids of the models genai-prices
// marks deprecated.
func pricesDeprecated(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var providers []struct {
		ID     string `json:"id"`
		Models []struct {
			ID         string `json:"id"`
			Deprecated bool   `json:"deprecated"`
		} `json:"models"`
	}
	if err := json.Unmarshal(b, &providers); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var out []string
	for _, p := range providers {
		vendor := pricesVendors[p.ID]
		for _, m := range p.Models {
			if m.Deprecated && vendor != "" {
				out = append(out, vendor+"/"+m.ID)
			}
		}
	}
	return out, nil
}
