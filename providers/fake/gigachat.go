package fake

import "net/http"

// gigachat answers the provider's native API. (Stub: the protocol is not served yet.)
func (s *Server) gigachat(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusNotImplemented, "invalid_request_error", "", "", "The fake does not speak this protocol yet.")
}
