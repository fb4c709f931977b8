package salute

import "github.com/shlyuz/shlyuz/providers/internal/sberauth"

// errs are the adapter's reasons for giving up a call; a certificate the
// gateway does not trust is a failure of its own.
var errs = service.Errors()

// ErrClosed is what a Read blocked on the upstream returns once Close ended
// the speech. It wraps context.Canceled.
var ErrClosed = errs.Closed

// bodyError is the error a JSON body in place of the reply says, or nil;
// statusError maps a non-2xx reply of the REST API, as GigaChat's are
// mapped.
var (
	bodyError   = service.BodyError
	statusError = service.StatusError
)

// service names the API in messages and causes.
var service = sberauth.Service{Name: "SaluteSpeech", Label: "salute"}
