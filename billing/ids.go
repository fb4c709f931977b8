package billing

import (
	"crypto/rand"
	"encoding/base32"
	"strconv"
	"time"
)

var idEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// newID is a unique id with the prefix: the time for order, 15 random bytes for uniqueness.
func newID(prefix string) string {
	var b [15]byte
	_, _ = rand.Read(b[:])
	return prefix + strconv.FormatInt(time.Now().Unix(), 10) + "-" + idEncoding.EncodeToString(b[:])
}
