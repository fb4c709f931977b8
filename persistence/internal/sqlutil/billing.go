package sqlutil

import (
	"encoding/json"
	"fmt"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/recordjson"
)

// encodeBilling is g's billing column ("" when it has no details).
func encodeBilling(g *shlyuz.Generation) string {
	var buf [512]byte
	return string(appendBilling(buf[:0], g))
}

// appendBilling appends g's billing column (nothing when it has no details).
func appendBilling(b []byte, g *shlyuz.Generation) []byte {
	if g.PromptDetails == nil && g.CompletionDetails == nil && g.CreditsDetails == nil && !g.OverReserved && g.Note == "" &&
		len(g.DroppedParameters) == 0 && g.User == "" {
		return b
	}
	return recordjson.AppendBilling(b, &recordjson.Billing{Prompt: g.PromptDetails, Completion: g.CompletionDetails,
		Credits: g.CreditsDetails, OverReserved: g.OverReserved, Note: g.Note, Dropped: g.DroppedParameters, User: g.User})
}

// decodeBilling fills g's details from its billing column.
func decodeBilling(s string, g *shlyuz.Generation) error {
	if s == "" {
		return nil
	}
	var d recordjson.Billing // the generations.billing column: the usage's details and how the charge adds up
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		return fmt.Errorf("generation %s: billing: %w", g.ID, err)
	}
	g.PromptDetails, g.CompletionDetails, g.CreditsDetails, g.OverReserved, g.Note = d.Prompt, d.Completion, d.Credits, d.OverReserved, d.Note
	g.DroppedParameters, g.User = d.Dropped, d.User
	return nil
}
