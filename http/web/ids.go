package web

import (
	"encoding/base32"
	"strconv"
	"time"
)

var idEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// newID is a random id with a prefix: <prefix><unix>-<24 random chars>.
func newID(prefix string) string {
	return prefix + strconv.FormatInt(time.Now().Unix(), 10) + "-" + idEncoding.EncodeToString(randomBytes(15))
}
