package sberauth

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
)

// CertHint tells the operator how to trust Sber's certificates.
const CertHint = "set ca_file to the Russian Trusted Root CA (PEM) to trust it"

// IsCertError reports whether err is a failed verification of the server's certificate.
func IsCertError(err error) bool {
	var cve *tls.CertificateVerificationError
	var uae x509.UnknownAuthorityError
	var hne x509.HostnameError
	var cie x509.CertificateInvalidError
	return errors.As(err, &cve) || errors.As(err, &uae) || errors.As(err, &hne) || errors.As(err, &cie)
}

func isDeadline(err error) bool { return errors.Is(err, context.DeadlineExceeded) }

// Roots is the system roots plus the certificates of a PEM or DER file (the
// Russian Trusted Root CA is published as both).
func Roots(path string) (*x509.CertPool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if bytes.Contains(data, []byte("-----BEGIN")) {
		n := 0
		for rest := data; ; {
			var block *pem.Block
			block, rest = pem.Decode(rest)
			if block == nil {
				break
			}
			if block.Type != "CERTIFICATE" {
				continue
			}
			c, err := x509.ParseCertificate(block.Bytes)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
			pool.AddCert(c)
			n++
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: no CERTIFICATE block", path)
		}
		return pool, nil
	}
	c, err := x509.ParseCertificate(data) // a DER .cer, as the CA is also published
	if err != nil {
		return nil, fmt.Errorf("%s: neither PEM nor a DER certificate: %w", path, err)
	}
	pool.AddCert(c)
	return pool, nil
}
