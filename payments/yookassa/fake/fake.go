// Package fake is a fake YooKassa for tests and demos: the payments API
// (create with Idempotence-Key, fetch), refunds, 54-FZ receipts (checked as
// the real API checks them, and kept), and a confirmation page with "pay" and
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
	// RequireReceipts is a shop with YooKassa's receipts switched on: a payment
	// or refund without a receipt is refused. A receipt sent is checked either way.
	RequireReceipts bool

	mu        sync.Mutex
	notifyURL string
	payments  map[string]*entry
	refunds   map[string]yookassa.Refund
	byIdem    map[string]string // idempotence key → payment id
	sent      []yookassa.Notification
	receipts  []Receipt
	replies   map[string]reply // idempotence key → the first reply of a refund or receipt
}

type reply struct {
	path string
	body []byte
	out  []byte
}

type entry struct {
	p         yookassa.Payment
	returnURL string
	request   []byte // the create request, to refuse a reused key with another body
	receipt   *wireReceipt
	email     string
}

// New is a fake shop with its credentials, receipts required.
func New(shopID, secretKey string) *Server {
	return &Server{ShopID: shopID, SecretKey: secretKey, RequireReceipts: true, payments: map[string]*entry{},
		refunds: map[string]yookassa.Refund{}, byIdem: map[string]string{}, replies: map[string]reply{}}
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
	case r.Method == http.MethodPost && (r.URL.Path == "/v3/refunds" || r.URL.Path == "/v3/receipts"):
		s.once(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/v3/receipts":
		if !s.authorized(r) {
			s.fail(w, http.StatusUnauthorized, "invalid_credentials", "", "Wrong shopId or secret key")
			return
		}
		s.listReceipts(w, r)
	case strings.HasPrefix(r.URL.Path, "/checkout/"):
		s.checkout(w, r, strings.TrimPrefix(r.URL.Path, "/checkout/"))
	default:
		apiError(w, http.StatusNotFound, "not_found", "", "Unknown path "+r.URL.Path)
	}
}

// fail writes YooKassa's error shape.
func (s *Server) fail(w http.ResponseWriter, status int, code, param, desc string) {
	apiError(w, status, code, param, desc)
}

func apiError(w http.ResponseWriter, status int, code, param, desc string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	e := map[string]string{"type": "error", "id": newID(), "code": code, "description": desc}
	if param != "" {
		e["parameter"] = param
	}
	_ = json.NewEncoder(w).Encode(e)
}

// once runs a POST that makes a refund or a receipt once per Idempotence-Key:
// a retry with the same body gets the first reply, with another body an error.
func (s *Server) once(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(r) {
		s.fail(w, http.StatusUnauthorized, "invalid_credentials", "", "Wrong shopId or secret key")
		return
	}
	idem := r.Header.Get("Idempotence-Key")
	if idem == "" {
		s.fail(w, http.StatusBadRequest, "invalid_request", "Idempotence-Key", "Idempotence-Key header is required")
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	s.mu.Lock()
	prev, seen := s.replies[idem]
	s.mu.Unlock()
	if seen {
		if prev.path != r.URL.Path || !bytes.Equal(prev.body, body) {
			s.fail(w, http.StatusBadRequest, "invalid_request", "Idempotence-Key", "The key was used with another request")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(prev.out)
		return
	}
	rec := &recorder{header: http.Header{}, status: http.StatusOK}
	if r.URL.Path == "/v3/refunds" {
		s.createRefund(rec, body)
	} else {
		s.createReceipt(rec, r, body)
	}
	if rec.status == http.StatusOK {
		s.mu.Lock()
		s.replies[idem] = reply{path: r.URL.Path, body: body, out: rec.buf.Bytes()}
		s.mu.Unlock()
	}
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.status)
	_, _ = w.Write(rec.buf.Bytes())
}

// recorder keeps a reply to replay it for a retried key.
type recorder struct {
	header http.Header
	status int
	buf    bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.buf.Write(b) }
func (r *recorder) WriteHeader(status int)      { r.status = status }

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
	var wire struct {
		Receipt *wireReceipt `json:"receipt"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request", "", "Invalid JSON: "+err.Error())
		return
	}
	_ = json.Unmarshal(body, &wire)
	if param, msg := s.validate(&req, wire.Receipt); param != "" {
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
	if wire.Receipt != nil {
		p.ReceiptRegistration = "pending"
	}
	s.payments[id] = &entry{p: p, returnURL: req.Confirmation.ReturnURL, request: body, receipt: wire.Receipt}
	s.byIdem[idem] = id
	writeJSON(w, p)
}

// validate checks what the real API checks of a payment and of its receipt:
// a shop that requires receipts refuses a payment without one, and a
// receipt's lines add up to the payment to the kopeck.
func (s *Server) validate(req *yookassa.NewPayment, rc *wireReceipt) (param, msg string) {
	k, err := req.Amount.Kopecks()
	switch {
	case err != nil:
		return "amount", err.Error()
	case k <= 0:
		return "amount.value", "The amount must be positive"
	case req.Confirmation.Type != "redirect" || req.Confirmation.ReturnURL == "":
		return "confirmation.return_url", "A redirect confirmation needs a return_url"
	case rc == nil && s.RequireReceipts:
		return "receipt", "Receipt is missing or illegal"
	case rc == nil:
		return "", ""
	}
	sum, berr := checkReceipt(rc.Customer, rc.Items, rc.TaxSystemCode)
	if berr != nil {
		return berr.param, berr.desc
	}
	if sum != k {
		return "receipt", fmt.Sprintf("Receipt items amount sum (%s) is not equal to payment amount (%s)", rubles(sum).Value, req.Amount.Value)
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
	if e.receipt != nil {
		e.p.ReceiptRegistration = "canceled"
		if e.p.Paid {
			e.p.ReceiptRegistration = "succeeded"
			sum, _ := e.p.Amount.Kopecks()
			s.register(Receipt{Type: "payment", PaymentID: id, Customer: *e.receipt.Customer, Items: e.receipt.Items,
				TaxSystemCode: e.receipt.TaxSystemCode, Kopecks: sum})
		}
	}
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
	r := s.refundLocked(paymentID, kopecks, "")
	if e.receipt != nil && len(e.receipt.Items) > 0 {
		// The dashboard makes the refund receipt from the payment's own receipt.
		it := e.receipt.Items[0]
		it.Quantity, it.Amount = json.RawMessage(`"1.00"`), rubles(kopecks)
		rc := s.register(Receipt{Type: "refund", PaymentID: paymentID, RefundID: r.ID, Customer: *e.receipt.Customer,
			Items: []wireItem{it}, TaxSystemCode: e.receipt.TaxSystemCode, Kopecks: kopecks})
		r.ReceiptRegistration = rc.Status
		s.refunds[r.ID] = r
	}
	n, url := s.refundNotice(r)
	s.mu.Unlock()
	if url != "" {
		Notify(url, n)
	}
	return r, nil
}

// refundLocked makes a succeeded refund; the caller holds s.mu and has checked the amount.
func (s *Server) refundLocked(paymentID string, kopecks int64, description string) yookassa.Refund {
	r := yookassa.Refund{ID: newID(), PaymentID: paymentID, Status: yookassa.StatusSucceeded, Amount: yookassa.Rubles(kopecks),
		CreatedAt: time.Now().UTC(), Description: description}
	s.refunds[r.ID] = r
	return r
}

// refundNotice records refund.succeeded and says where it goes; the caller holds s.mu.
func (s *Server) refundNotice(r yookassa.Refund) (yookassa.Notification, string) {
	obj, _ := json.Marshal(r)
	n := yookassa.Notification{Type: "notification", Event: "refund.succeeded", Object: obj}
	s.sent = append(s.sent, n)
	return n, s.notifyURL
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
