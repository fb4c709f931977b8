package shlyuz

// GobEncode carries a decimal exactly (as its fraction) inside an actor
// message that crosses gateway nodes (cluster/wire).
func (d Decimal) GobEncode() ([]byte, error) { return d.r.GobEncode() }

// GobDecode reads what GobEncode wrote.
func (d *Decimal) GobDecode(b []byte) error { return d.r.GobDecode(b) }
