package api

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
)

// AdminAuth lets through only the operator's token.
func (s *Server) AdminAuth(c *fiber.Ctx) error {
	h := c.Get(fiber.HeaderAuthorization)
	tok := strings.TrimSpace(strings.TrimPrefix(h, "Bearer "))
	if tok == "" || subtle.ConstantTimeCompare([]byte(tok), []byte(s.Opts.AdminToken)) != 1 {
		return shlyuz.ErrUnauthorizedAdmin()
	}
	return c.Next()
}

// DecodeError names the field of an operator request that is wrong: a value of
// the wrong type or an unknown field is invalid_value with its param; only a
// body that is not JSON at all is invalid_json.
func DecodeError(err error) *shlyuz.Error {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) && typ.Field != "" {
		return shlyuz.ErrInvalidValue(typ.Field, "%s must be %s, not a JSON %s.", typ.Field, jsonKind(typ.Type), typ.Value)
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		f = strings.Trim(f, `"`)
		return shlyuz.ErrInvalidValue(f, "%q is not a field of this request.", f)
	}
	return shlyuz.ErrInvalidJSON(err.Error())
}

// WholeNumber reads a JSON integer, or a string holding one.
func WholeNumber(raw json.RawMessage) (int64, error) {
	return strconv.ParseInt(strings.Trim(string(raw), `"`), 10, 64)
}

// jsonKind says what JSON value a Go type takes, for decodeError's message.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "an object"
}

type CreateKeyReq struct {
	Name       string            `json:"name"`
	Limit      json.RawMessage   `json:"limit"`
	LimitReset string            `json:"limit_reset"`
	ExpiresAt  *string           `json:"expires_at"` // RFC 3339 or a date
	RateLimit  *shlyuz.RateLimit `json:"rate_limit"`
	Management bool              `json:"management"` // a management key (/api/v1/keys), never a model's caller
	// AllowedModels: model ids and "provider/" prefixes the key may call; absent: any.
	AllowedModels []string `json:"allowed_models"`
}

// KeySpecOf checks a request for a new key (the operator API's and the
// management API's /api/v1/keys) and makes its spec.
func KeySpecOf(req *CreateKeyReq) (actors.KeySpec, *shlyuz.Error) {
	if !shlyuz.KeyNameFits(req.Name) {
		return actors.KeySpec{}, shlyuz.ErrInvalidValue("name", "A key's name has at most %d characters and no control characters.", shlyuz.MaxKeyName)
	}
	reset, rerr := shlyuz.ParseLimitReset(req.LimitReset)
	if rerr != nil {
		return actors.KeySpec{}, shlyuz.ErrInvalidValue("limit_reset", "%s", rerr.Error())
	}
	var limit *shlyuz.Credits
	if req.Limit != nil && string(req.Limit) != "null" {
		v, err := WholeNumber(req.Limit)
		if err != nil || v < 0 {
			return actors.KeySpec{}, shlyuz.ErrInvalidValue("limit", "limit is a whole number of credits, 0 or more.")
		}
		if err := shlyuz.CheckCredits("limit", v); err != nil {
			return actors.KeySpec{}, err
		}
		limit = &v
	}
	if reset != shlyuz.ResetNever && limit == nil {
		return actors.KeySpec{}, shlyuz.ErrInvalidValue("limit_reset", "limit_reset needs a limit: it says when the limit's spend starts again.")
	}
	var expires *time.Time
	if req.ExpiresAt != nil {
		at, err := shlyuz.ParseInstant(*req.ExpiresAt)
		if err != nil {
			return actors.KeySpec{}, shlyuz.ErrInvalidValue("expires_at", "expires_at: %s.", err.Error())
		}
		if !at.After(time.Now()) {
			return actors.KeySpec{}, shlyuz.ErrInvalidValue("expires_at", "expires_at must be in the future.")
		}
		expires = &at
	}
	if rl := req.RateLimit; rl != nil && (rl.RequestsPerMinute < 0 || rl.TokensPerMinute < 0 || *rl == (shlyuz.RateLimit{})) {
		return actors.KeySpec{}, shlyuz.ErrInvalidValue("rate_limit", "rate_limit takes requests_per_minute and/or tokens_per_minute, whole numbers above 0.")
	}
	if err := shlyuz.ValidateAllowedModels(req.AllowedModels); err != nil {
		return actors.KeySpec{}, err
	}
	return actors.KeySpec{Name: req.Name, Limit: limit, LimitReset: reset, ExpiresAt: expires, RateLimit: req.RateLimit,
		Management: req.Management, AllowedModels: req.AllowedModels}, nil
}
