package api

import (
	"encoding/json"
	"testing"
)

// The fast readers of a member give what encoding/json gives: the same
// value, or an error where it errs.
func TestFastFieldsAgreeWithEncodingJSON(t *testing.T) {
	for _, raw := range []string{
		`"gpt-4o"`, `""`, `"a\"b"`, `"\u00e9"`, "\"a\xffb\"", `"модель"`, `null`, `5`, `-5`, `0`, `-0`, `1.0`, `1e3`,
		`123456789012345678`, `1234567890123456789`, `9223372036854775807`, `9223372036854775808`, `-9223372036854775808`,
		`true`, `false`, `"true"`, `[1]`, `{}`,
	} {
		t.Run(raw, func(t *testing.T) {
			fields := map[string]json.RawMessage{"f": json.RawMessage(raw)}

			var wantS string
			errS := json.Unmarshal([]byte(raw), &wantS)
			gotS, err := StringField(fields, "f")
			if (err != nil) != (errS != nil) || (err == nil && gotS != wantS) {
				t.Errorf("StringField = %q, %v; encoding/json %q, %v", gotS, err, wantS, errS)
			}

			var wantN *int64
			errN := json.Unmarshal([]byte(raw), &wantN)
			gotN, set, err := IntField(fields, "f")
			if (err != nil) != (errN != nil) || (err == nil && (set != (wantN != nil) || (set && gotN != *wantN))) {
				t.Errorf("IntField = %d, %v, %v; encoding/json %v, %v", gotN, set, err, wantN, errN)
			}

			wantB, gotB := true, true // null leaves the target as it was
			errB := json.Unmarshal([]byte(raw), &wantB)
			err = BoolField(fields, "f", &gotB)
			if (err != nil) != (errB != nil) || (err == nil && gotB != wantB) {
				t.Errorf("BoolField = %v, %v; encoding/json %v, %v", gotB, err, wantB, errB)
			}
		})
	}
	if s, err := StringField(map[string]json.RawMessage{}, "f"); s != "" || err != nil {
		t.Errorf("absent string: %q, %v", s, err)
	}
	if _, set, err := IntField(map[string]json.RawMessage{}, "f"); set || err != nil {
		t.Errorf("absent integer: %v, %v", set, err)
	}
}
