// Package plainjson writes JSON as the gateway sends it: like encoding/json,
// but without escaping <, > and & (text reaches clients and upstreams as it
// was written).
package plainjson

import (
	"bytes"
	"encoding/json"
)

// Marshal is json.Marshal without the escaping of <, > and &.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
