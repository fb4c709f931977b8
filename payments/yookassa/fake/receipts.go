package fake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// Receipt is a receipt the fake registered: with a payment that succeeded, with
// a refund, or through POST /v3/receipts. Items keep the request's lines as sent.
type Receipt struct {
	ID            string          `json:"id"`
	Type          string          `json:"type"` // payment or refund
	PaymentID     string          `json:"payment_id,omitempty"`
	RefundID      string          `json:"refund_id,omitempty"`
	Status        string          `json:"status"`
	Customer      wireCustomer    `json:"-"`
	Items         []wireItem      `json:"items"`
	Settlements   json.RawMessage `json:"settlements,omitempty"`
	TaxSystemCode int             `json:"tax_system_code,omitempty"`
	Kopecks       int64           `json:"-"` // what the items add up to
	RegisteredAt  time.Time       `json:"registered_at"`
}

// The receipt's wire shape as YooKassa documents it, read here on its own so
// the fake does not believe the client's types.
type wireCustomer struct {
	Email string `json:"email"`
	Phone string `json:"phone"`
}

type wireAmount struct {
	Value    string `json:"value"`
	Currency string `json:"currency"`
}

type wireItem struct {
	Description    string          `json:"description"`
	Quantity       json.RawMessage `json:"quantity"`
	Amount         wireAmount      `json:"amount"`
	VATCode        int             `json:"vat_code"`
	PaymentMode    string          `json:"payment_mode,omitempty"`
	PaymentSubject string          `json:"payment_subject,omitempty"`
}

type wireReceipt struct {
	Customer      *wireCustomer `json:"customer"`
	Items         []wireItem    `json:"items"`
	TaxSystemCode int           `json:"tax_system_code"`
}

type wireSettlement struct {
	Type   string     `json:"type"`
	Amount wireAmount `json:"amount"`
}

// badRequest is an invalid_request reply's parameter and description.
type badRequest struct{ param, desc string }

func bad(param, format string, args ...any) *badRequest {
	return &badRequest{param: param, desc: fmt.Sprintf(format, args...)}
}

var (
	subjects = set("commodity excise job service gambling_bet gambling_prize lottery lottery_prize intellectual_activity payment agent_commission composite another property_right non_operating_gain insurance_premium sales_tax resort_fee")
	modes    = set("full_prepayment partial_prepayment advance full_payment partial_payment credit credit_payment")
)

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// checkReceipt checks a receipt as YooKassa does and returns what its lines add up to, in kopecks.
func checkReceipt(customer *wireCustomer, items []wireItem, taxSystem int) (int64, *badRequest) {
	if customer == nil || (customer.Email == "" && customer.Phone == "") {
		return 0, bad("receipt.customer", "Receipt customer must have email or phone")
	}
	if customer.Email != "" && !strings.Contains(customer.Email, "@") {
		return 0, bad("receipt.customer.email", "Invalid email")
	}
	if len(items) == 0 || len(items) > 100 {
		return 0, bad("receipt.items", "Receipt must have from 1 to 100 items")
	}
	if taxSystem < 0 || taxSystem > 6 {
		return 0, bad("receipt.tax_system_code", "Invalid tax_system_code")
	}
	var sum int64
	for i, it := range items {
		at := fmt.Sprintf("receipt.items[%d].", i)
		n := utf8.RuneCountInString(it.Description)
		switch {
		case n == 0 || n > 128:
			return 0, bad(at+"description", "Item description must be 1 to 128 characters")
		case it.VATCode < 1 || it.VATCode > 12:
			return 0, bad(at+"vat_code", "Invalid vat_code")
		case it.PaymentSubject != "" && !subjects[it.PaymentSubject]:
			return 0, bad(at+"payment_subject", "Invalid payment_subject")
		case it.PaymentMode != "" && !modes[it.PaymentMode]:
			return 0, bad(at+"payment_mode", "Invalid payment_mode")
		}
		price, err := kopecks(it.Amount)
		if err != nil || price <= 0 {
			return 0, bad(at+"amount", "Item amount must be a positive amount in RUB with up to two decimals")
		}
		q, ok := thousandths(it.Quantity)
		if !ok || q <= 0 {
			return 0, bad(at+"quantity", "Item quantity must be a positive number with up to three decimals")
		}
		if price > 1<<40 || q > 1<<20 || price*q%1000 != 0 {
			return 0, bad(at+"quantity", "Item amount × quantity must be whole kopecks")
		}
		sum += price * q / 1000
	}
	return sum, nil
}

// thousandths reads a quantity (a JSON number or a string holding one) with up to three decimals.
func thousandths(raw json.RawMessage) (int64, bool) {
	s := strings.Trim(string(raw), `"`)
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || len(whole) > 7 || len(frac) > 3 || strings.Trim(whole+frac, "0123456789") != "" {
		return 0, false
	}
	var v int64
	for _, r := range whole + frac + strings.Repeat("0", 3-len(frac)) {
		v = v*10 + int64(r-'0')
	}
	return v, true
}

// kopecks reads an amount in rubles with up to two decimals.
func kopecks(a wireAmount) (int64, error) {
	whole, frac, _ := strings.Cut(a.Value, ".")
	if a.Currency != "RUB" || whole == "" || len(whole) > 12 || len(frac) > 2 || strings.Trim(whole+frac, "0123456789") != "" {
		return 0, fmt.Errorf("bad amount %+v", a)
	}
	var v int64
	for _, r := range whole + frac + strings.Repeat("0", 2-len(frac)) {
		v = v*10 + int64(r-'0')
	}
	return v, nil
}

func rubles(k int64) wireAmount {
	return wireAmount{Value: fmt.Sprintf("%d.%02d", k/100, k%100), Currency: "RUB"}
}

// register keeps a receipt; the caller holds s.mu.
func (s *Server) register(r Receipt) Receipt {
	r.ID, r.Status, r.RegisteredAt = "rt-"+newID(), "succeeded", time.Now().UTC()
	s.receipts = append(s.receipts, r)
	return r
}

// Receipts is every receipt the fake registered, in order.
func (s *Server) Receipts() []Receipt {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Receipt(nil), s.receipts...)
}

// createReceipt is POST /v3/receipts: a receipt after its payment or refund.
func (s *Server) createReceipt(w http.ResponseWriter, r *http.Request, body []byte) {
	var req struct {
		Type          string           `json:"type"`
		PaymentID     string           `json:"payment_id"`
		RefundID      string           `json:"refund_id"`
		Customer      *wireCustomer    `json:"customer"`
		Items         []wireItem       `json:"items"`
		Settlements   []wireSettlement `json:"settlements"`
		Send          *bool            `json:"send"`
		TaxSystemCode int              `json:"tax_system_code"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		s.fail(w, http.StatusBadRequest, "invalid_request", "", "Invalid JSON: "+err.Error())
		return
	}
	sum, berr := checkReceipt(req.Customer, req.Items, req.TaxSystemCode)
	if berr != nil {
		s.fail(w, http.StatusBadRequest, "invalid_request", berr.param, berr.desc)
		return
	}
	if req.Send == nil || !*req.Send {
		s.fail(w, http.StatusBadRequest, "invalid_request", "send", "send must be true")
		return
	}
	var paid int64
	for i, st := range req.Settlements {
		k, err := kopecks(st.Amount)
		if err != nil || k <= 0 || !set("cashless prepayment postpayment consideration")[st.Type] {
			s.fail(w, http.StatusBadRequest, "invalid_request", fmt.Sprintf("settlements[%d]", i), "Invalid settlement")
			return
		}
		paid += k
	}
	if len(req.Settlements) == 0 || paid != sum {
		s.fail(w, http.StatusBadRequest, "invalid_request", "settlements", "The settlements do not add up to the items")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var want int64
	switch req.Type {
	case "payment":
		e, ok := s.payments[req.PaymentID]
		if !ok || e.p.Status != "succeeded" {
			s.fail(w, http.StatusBadRequest, "invalid_request", "payment_id", "The payment does not exist or has not succeeded")
			return
		}
		want, _ = e.p.Amount.Kopecks()
	case "refund":
		ref, ok := s.refunds[req.RefundID]
		if !ok {
			s.fail(w, http.StatusBadRequest, "invalid_request", "refund_id", "The refund does not exist")
			return
		}
		want, _ = ref.Amount.Kopecks()
		req.PaymentID = ref.PaymentID
	default:
		s.fail(w, http.StatusBadRequest, "invalid_request", "type", "type is payment or refund")
		return
	}
	if sum != want {
		s.fail(w, http.StatusBadRequest, "invalid_request", "items", "The items do not add up to the amount of the payment or refund")
		return
	}
	settlements, _ := json.Marshal(req.Settlements)
	rc := s.register(Receipt{Type: req.Type, PaymentID: req.PaymentID, RefundID: req.RefundID, Customer: *req.Customer,
		Items: req.Items, Settlements: settlements, TaxSystemCode: req.TaxSystemCode, Kopecks: sum})
	writeJSON(w, rc)
}

// listReceipts is GET /v3/receipts?payment_id=…
func (s *Server) listReceipts(w http.ResponseWriter, r *http.Request) {
	id := r.URL.Query().Get("payment_id")
	out := []Receipt{}
	s.mu.Lock()
	for _, rc := range s.receipts {
		if id == "" || rc.PaymentID == id {
			out = append(out, rc)
		}
	}
	s.mu.Unlock()
	writeJSON(w, map[string]any{"type": "list", "items": out})
}

// createRefund is POST /v3/refunds: money of a succeeded payment back to the
// payer, with its refund receipt (required when the shop requires receipts).
func (s *Server) createRefund(w http.ResponseWriter, body []byte) {
	var req struct {
		PaymentID   string       `json:"payment_id"`
		Amount      wireAmount   `json:"amount"`
		Description string       `json:"description"`
		Receipt     *wireReceipt `json:"receipt"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		s.fail(w, http.StatusBadRequest, "invalid_request", "", "Invalid JSON: "+err.Error())
		return
	}
	k, err := kopecks(req.Amount)
	if err != nil || k <= 0 {
		s.fail(w, http.StatusBadRequest, "invalid_request", "amount", "The amount must be a positive amount in RUB")
		return
	}
	var sum int64
	switch {
	case req.Receipt == nil && s.RequireReceipts:
		s.fail(w, http.StatusBadRequest, "invalid_request", "receipt", "Receipt is missing or illegal")
		return
	case req.Receipt != nil:
		var berr *badRequest
		if sum, berr = checkReceipt(req.Receipt.Customer, req.Receipt.Items, req.Receipt.TaxSystemCode); berr != nil {
			s.fail(w, http.StatusBadRequest, "invalid_request", berr.param, berr.desc)
			return
		}
		if sum != k {
			s.fail(w, http.StatusBadRequest, "invalid_request", "receipt",
				fmt.Sprintf("Receipt items amount sum (%s) is not equal to refund amount (%s)", rubles(sum).Value, req.Amount.Value))
			return
		}
	}
	s.mu.Lock()
	e, ok := s.payments[req.PaymentID]
	if !ok || e.p.Status != "succeeded" {
		s.mu.Unlock()
		s.fail(w, http.StatusBadRequest, "invalid_request", "payment_id", "The payment does not exist or has not succeeded")
		return
	}
	paid, _ := e.p.Amount.Kopecks()
	var refunded int64
	for _, r := range s.refunds {
		if r.PaymentID == req.PaymentID {
			v, _ := r.Amount.Kopecks()
			refunded += v
		}
	}
	if refunded+k > paid {
		s.mu.Unlock()
		s.fail(w, http.StatusBadRequest, "invalid_request", "amount", "The refund exceeds what is left of the payment")
		return
	}
	ref := s.refundLocked(req.PaymentID, k, req.Description)
	if req.Receipt != nil {
		rc := s.register(Receipt{Type: "refund", PaymentID: req.PaymentID, RefundID: ref.ID, Customer: *req.Receipt.Customer,
			Items: req.Receipt.Items, TaxSystemCode: req.Receipt.TaxSystemCode, Kopecks: sum})
		ref.ReceiptRegistration = rc.Status
		s.refunds[ref.ID] = ref
	}
	n, url := s.refundNotice(ref)
	s.mu.Unlock()
	if url != "" {
		Notify(url, n)
	}
	writeJSON(w, ref)
}
