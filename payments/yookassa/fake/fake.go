// Package fake is a fake YooKassa for tests and demos: the payments API
// (create with Idempotence-Key, fetch), and a confirmation page with "pay" and
// "cancel" buttons that changes the payment, sends the shop its notification
// and redirects the payer back, as the real checkout does.
package fake

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/shlyuz/shlyuz/payments/yookassa"
)

// Server is the fake. Set NotifyURL (or SetNotifyURL) to where notifications go.
type Server struct {
	ShopID, SecretKey string

	mu        sync.Mutex
	notifyURL string
	payments  map[string]*entry
	refunds   map[string]yookassa.Refund
	byIdem    map[string]string // idempotence key → payment id
	sent      []yookassa.Notification
}

type entry struct {
	p         yookassa.Payment
	returnURL string
	request   []byte // the create request, to refuse a reused key with another body
}

// New is a fake shop with its credentials.
func New(shopID, secretKey string) *Server {
	return &Server{ShopID: shopID, SecretKey: secretKey, payments: map[string]*entry{}, refunds: map[string]yookassa.Refund{}, byIdem: map[string]string{}}
}

// SetNotifyURL says where notifications are POSTed.
func (s *Server) SetNotifyURL(u string) {
	s.mu.Lock()
	s.notifyURL = u
	s.mu.Unlock()
}

// Sent is the notifications sent so far.
func (s *Server) Sent() []yookassa.Notification {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]yookassa.Notification(nil), s.sent...)
}

// Payment is a payment's current state.
func (s *Server) Payment(id string) (yookassa.Payment, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.payments[id]
	if !ok {
		return yookassa.Payment{}, false
	}
	return e.p, true
}

// ServeHTTP routes the API and the checkout page.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v3/payments":
		s.create(w, r)
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v3/payments/"):
		s.get(w, r, strings.TrimPrefix(r.URL.Path, "/v3/payments/"))
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v3/refunds/"):
		s.getRefund(w, r, strings.TrimPrefix(r.URL.Path, "/v3/refunds/"))
	case strings.HasPrefix(r.URL.Path, "/checkout/"):
		s.checkout(w, r, strings.TrimPrefix(r.URL.Path, "/checkout/"))
	default:
		apiError(w, http.StatusNotFound, "not_found", "", "Unknown path "+r.URL.Path)
	}
}

func apiError(w http.ResponseWriter, status int, code, param, desc string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"type": "error", "code": code, "parameter": param, "description": desc})
}

func (s *Server) authorized(r *http.Request) bool {
	u, p, ok := r.BasicAuth()
	return ok && u == s.ShopID && p == s.SecretKey
}

func (s *Server) create(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(r) {
		apiError(w, http.StatusUnauthorized, "invalid_credentials", "", "Wrong shopId or secret key")
		return
	}
	idem := r.Header.Get("Idempotence-Key")
	if idem == "" {
		apiError(w, http.StatusBadRequest, "invalid_request", "Idempotence-Key", "Idempotence-Key header is required")
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var req yookassa.NewPayment
	if err := json.Unmarshal(body, &req); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request", "", "Invalid JSON: "+err.Error())
		return
	}
	if param, msg := validate(&req); param != "" {
		apiError(w, http.StatusBadRequest, "invalid_request", param, msg)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.byIdem[idem]; ok {
		e := s.payments[id]
		if !bytes.Equal(e.request, body) {
			apiError(w, http.StatusBadRequest, "invalid_request", "Idempotence-Key", "The key was used with another request")
			return
		}
		writeJSON(w, e.p)
		return
	}
	id := newID()
	p := yookassa.Payment{ID: id, Status: yookassa.StatusPending, Amount: req.Amount, Description: req.Description,
		Metadata: req.Metadata, CreatedAt: time.Now().UTC(), Test: true,
		Confirmation: &yookassa.Confirmation{Type: "redirect", ConfirmationURL: "http://" + r.Host + "/checkout/" + id}}
	s.payments[id] = &entry{p: p, returnURL: req.Confirmation.ReturnURL, request: body}
	s.byIdem[idem] = id
	writeJSON(w, p)
}

// validate checks what the real API checks of a payment with a receipt.
func validate(req *yookassa.NewPayment) (param, msg string) {
	k, err := req.Amount.Kopecks()
	switch {
	case err != nil:
		return "amount", err.Error()
	case k <= 0:
		return "amount.value", "The amount must be positive"
	case req.Confirmation.Type != "redirect" || req.Confirmation.ReturnURL == "":
		return "confirmation.return_url", "A redirect confirmation needs a return_url"
	case req.Receipt == nil || req.Receipt.Customer.Email == "" || len(req.Receipt.Items) == 0:
		return "receipt", "A receipt with the customer's email and items is required (54-FZ)"
	}
	var sum int64
	for _, it := range req.Receipt.Items {
		v, err := it.Amount.Kopecks()
		if err != nil || it.Quantity != "1.00" {
			return "receipt.items", "Each item needs quantity 1.00 and an amount in rubles"
		}
		sum += v
	}
	if sum != k {
		return "receipt.items", "The items do not add up to the payment amount"
	}
	return "", ""
}

func (s *Server) get(w http.ResponseWriter, r *http.Request, id string) {
	if !s.authorized(r) {
		apiError(w, http.StatusUnauthorized, "invalid_credentials", "", "Wrong shopId or secret key")
		return
	}
	p, ok := s.Payment(id)
	if !ok {
		apiError(w, http.StatusNotFound, "not_found", "payment_id", "Payment not found")
		return
	}
	writeJSON(w, p)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

var page = template.Must(template.New("checkout").Parse(`<!doctype html>
<html lang="ru"><head><meta charset="utf-8"><title>ЮKassa (fake) — оплата</title><link rel="icon" href="data:,"></head>
<body><main>
<h1>Оплата {{.Amount.Value}} ₽</h1>
<p>{{.Description}}</p>
{{if eq .Status "pending"}}
<form method="post">
<button type="submit" name="action" value="pay">Оплатить</button>
<button type="submit" name="action" value="cancel">Отменить</button>
</form>
{{else}}<p>Статус: {{.Status}}</p>{{end}}
</main></body></html>`))

func (s *Server) checkout(w http.ResponseWriter, r *http.Request, id string) {
	s.mu.Lock()
	e, ok := s.payments[id]
	var p yookassa.Payment
	if ok {
		p = e.p
	}
	s.mu.Unlock()
	if !ok {
		http.Error(w, "payment not found", http.StatusNotFound)
		return
	}
	if r.Method == http.MethodGet {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = page.Execute(w, p)
		return
	}
	if r.Method != http.MethodPost {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	var status, event string
	switch r.FormValue("action") {
	case "pay":
		status, event = yookassa.StatusSucceeded, "payment.succeeded"
	case "cancel":
		status, event = yookassa.StatusCanceled, "payment.canceled"
	default:
		http.Error(w, "action is pay or cancel", http.StatusBadRequest)
		return
	}
	if err := s.Settle(id, status, event); err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	http.Redirect(w, r, e.returnURL, http.StatusSeeOther)
}

// Settle moves a pending payment to succeeded or canceled and notifies the shop,
// as a payer's click on the checkout page does. The notification's reply is not awaited for success.
func (s *Server) Settle(id, status, event string) error {
	s.mu.Lock()
	e, ok := s.payments[id]
	if !ok {
		s.mu.Unlock()
		return fmt.Errorf("payment %s not found", id)
	}
	if e.p.Status != yookassa.StatusPending {
		s.mu.Unlock()
		return fmt.Errorf("payment %s is %s already", id, e.p.Status)
	}
	e.p.Status = status
	e.p.Paid = status == yookassa.StatusSucceeded
	e.p.Confirmation = nil
	obj, _ := json.Marshal(e.p)
	n := yookassa.Notification{Type: "notification", Event: event, Object: obj}
	s.sent = append(s.sent, n)
	url := s.notifyURL
	s.mu.Unlock()
	if url != "" {
		Notify(url, n)
	}
	return nil
}

// Refund refunds kopecks of a succeeded payment, as the shop's operator does in
// YooKassa's dashboard, and notifies the shop (refund.succeeded). It returns the refund.
func (s *Server) Refund(paymentID string, kopecks int64) (yookassa.Refund, error) {
	s.mu.Lock()
	e, ok := s.payments[paymentID]
	if !ok || e.p.Status != yookassa.StatusSucceeded {
		s.mu.Unlock()
		return yookassa.Refund{}, fmt.Errorf("payment %s is not a succeeded payment", paymentID)
	}
	paid, _ := e.p.Amount.Kopecks()
	var refunded int64
	for _, r := range s.refunds {
		if r.PaymentID == paymentID {
			k, _ := r.Amount.Kopecks()
			refunded += k
		}
	}
	if kopecks <= 0 || refunded+kopecks > paid {
		s.mu.Unlock()
		return yookassa.Refund{}, fmt.Errorf("refund of %d kopecks exceeds what is left of payment %s", kopecks, paymentID)
	}
	r := yookassa.Refund{ID: newID(), PaymentID: paymentID, Status: yookassa.StatusSucceeded, Amount: yookassa.Rubles(kopecks), CreatedAt: time.Now().UTC()}
	s.refunds[r.ID] = r
	obj, _ := json.Marshal(r)
	n := yookassa.Notification{Type: "notification", Event: "refund.succeeded", Object: obj}
	s.sent = append(s.sent, n)
	url := s.notifyURL
	s.mu.Unlock()
	if url != "" {
		Notify(url, n)
	}
	return r, nil
}

func (s *Server) getRefund(w http.ResponseWriter, r *http.Request, id string) {
	if !s.authorized(r) {
		apiError(w, http.StatusUnauthorized, "invalid_credentials", "", "Wrong shopId or secret key")
		return
	}
	s.mu.Lock()
	ref, ok := s.refunds[id]
	s.mu.Unlock()
	if !ok {
		apiError(w, http.StatusNotFound, "not_found", "refund_id", "Refund not found")
		return
	}
	writeJSON(w, ref)
}

// Notify POSTs a notification to url and returns the status it got (0 on a transport error).
func Notify(url string, n yookassa.Notification) int {
	body, _ := json.Marshal(n)
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode
}

func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	h := hex.EncodeToString(b[:])
	return h[:8] + "-000f-5000-" + h[8:12] + "-" + h[12:24]
}
