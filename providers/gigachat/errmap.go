package gigachat

import "github.com/shlyuz/shlyuz/providers/internal/sberauth"

// errs are the adapter's reasons for giving up a call; a certificate the
// gateway does not trust is a failure of its own.
var errs = service.Errors()

// ErrStreamClosed is what a Next blocked on the upstream returns when Close
// ends the stream. It wraps context.Canceled: closing is the caller's choice,
// never the upstream's fault.
var ErrStreamClosed = errs.Closed

// bodyError is the error a JSON body (in place of a reply or a chunk) says,
// or nil; statusError maps a non-2xx reply of the chat or files endpoint.
var (
	bodyError   = service.BodyError
	statusError = service.StatusError
)

// service names the API in messages and causes.
var service = sberauth.Service{Name: "GigaChat", Label: "gigachat"}

// isCertError reports whether err is a failed verification of the server's certificate.
var isCertError = sberauth.IsCertError

const certHint = sberauth.CertHint
