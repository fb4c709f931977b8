package shlyuz

import (
	"strings"
	"unicode"
)

// Bounds of a key's allowed_models list.
const (
	MaxAllowedModels     = 100 // entries
	MaxAllowedModelBytes = 200 // bytes per entry
)

// Allows reports whether the key may call model: always when the key has no
// allowed_models list, otherwise when model equals an entry or an entry ending
// in "/" is a prefix of it.
func (k *Key) Allows(model string) bool {
	if len(k.AllowedModels) == 0 {
		return true
	}
	for _, e := range k.AllowedModels {
		if e == model || (strings.HasSuffix(e, "/") && strings.HasPrefix(model, e)) {
			return true
		}
	}
	return false
}

// CheckModel returns the error a call of model with the key gets, or nil.
func (k *Key) CheckModel(model string) *Error {
	if k.Allows(model) {
		return nil
	}
	return ErrModelNotAllowed(model)
}

// ValidateAllowedModels checks an allowed_models list as given by a client:
// at most MaxAllowedModels entries, each non-empty, at most
// MaxAllowedModelBytes long and free of spaces and control characters. The
// error is a 400 naming allowed_models.
func ValidateAllowedModels(list []string) *Error {
	if len(list) > MaxAllowedModels {
		return ErrInvalidValue("allowed_models", "allowed_models has %d entries; at most %d are allowed", len(list), MaxAllowedModels)
	}
	for i, e := range list {
		switch {
		case e == "":
			return ErrInvalidValue("allowed_models", "allowed_models[%d] is empty", i)
		case len(e) > MaxAllowedModelBytes:
			return ErrInvalidValue("allowed_models", "allowed_models[%d] is %d bytes long; at most %d are allowed", i, len(e), MaxAllowedModelBytes)
		case strings.IndexFunc(e, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
			return ErrInvalidValue("allowed_models", "allowed_models[%d] %q contains a space or control character", i, e)
		}
	}
	return nil
}

// SplitAllowedModels parses a comma-separated list (the admin CLI's flag, the
// web form's field), trimming spaces around entries and dropping empty ones.
func SplitAllowedModels(s string) []string {
	var out []string
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}
