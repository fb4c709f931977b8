package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/argon2"
)

// argon2id parameters: OWASP's minimum (19 MiB, 2 passes, 1 lane).
const (
	argonMemory  = 19 * 1024
	argonTime    = 2
	argonThreads = 1
	argonKeyLen  = 32
)

var b64 = base64.RawStdEncoding

// hashPassword is the PHC string of an argon2id hash of the password with a fresh salt.
func hashPassword(password string) string {
	salt := randomBytes(16)
	key := argon2.IDKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

// checkPassword reports whether password matches the PHC string.
func checkPassword(phc, password string) bool {
	parts := strings.Split(phc, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var m uint32
	var t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil {
		return false
	}
	salt, err1 := b64.DecodeString(parts[4])
	want, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil {
		return false
	}
	got := argon2.IDKey([]byte(password), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// dummyHash is checked against when there is no account, so that a login's
// time does not tell whether the email is registered.
var dummyHash = hashPassword("no account has this password")

func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return b
}

// randomToken is 256 random bits in hex.
func randomToken() string { return hex.EncodeToString(randomBytes(32)) }

// hashToken is the stored form of a session's cookie secret.
func hashToken(t string) string {
	sum := sha256.Sum256([]byte(t))
	return hex.EncodeToString(sum[:])
}

// signer signs links (email confirmation, password reset) with an expiry.
type signer struct{ secret []byte }

func (s signer) mac(purpose, subject string, expires int64, extra string) string {
	h := hmac.New(sha256.New, s.secret)
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00%s", purpose, subject, expires, extra)
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// sign returns the expiry and signature of a link for subject.
func (s signer) sign(purpose, subject, extra string, ttl time.Duration, now time.Time) (string, string) {
	exp := now.Add(ttl).Unix()
	return strconv.FormatInt(exp, 10), s.mac(purpose, subject, exp, extra)
}

// verify checks a link's signature and expiry.
func (s signer) verify(purpose, subject, extra, expires, sig string, now time.Time) bool {
	exp, err := strconv.ParseInt(expires, 10, 64)
	if err != nil || now.Unix() > exp {
		return false
	}
	return hmac.Equal([]byte(s.mac(purpose, subject, exp, extra)), []byte(sig))
}
