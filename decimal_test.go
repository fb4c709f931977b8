package shlyuz

import (
	"encoding/json"
	"testing"
)

func TestParseDecimal(t *testing.T) {
	tests := []struct {
		in      string
		want    string // as printed by String
		wantErr bool
	}{
		{"95.5", "95.5", false},
		{"0.00015", "0.00015", false},
		{"1e-6", "0.000001", false},
		{"1E3", "1000", false},
		{"-3", "-3", false},
		{"+2.50", "2.5", false},
		{".5", "0.5", false},
		{"5.", "5", false},
		{" 7 ", "7", false},
		{"0.18000000000000002", "0.18000000000000002", false}, // parsed and printed exactly
		{"1e-13", "0.0000000000001", false},
		{"1e100", "", true}, // an exponent of three digits costs time, never a price
		{"", "", true},
		{"  ", "", true},
		{"abc", "", true},
		{"1/3", "", true},
		{"0x10", "", true},
		{"0b101", "", true},
		{"0x1p-2", "", true},
		{"1_000", "", true},
		{"Inf", "", true},
		{"NaN", "", true},
		{"1e", "", true},
		{"1.2.3", "", true},
		{"--1", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			d, err := ParseDecimal(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseDecimal(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if err == nil && d.String() != tt.want {
				t.Errorf("ParseDecimal(%q) = %s, want %s", tt.in, d, tt.want)
			}
		})
	}
}

func TestDecimalExact(t *testing.T) {
	// 0.1 + 0.2 style traps: the value is the decimal, not a float near it.
	a := MustDecimal("0.18000000000000002")
	if a.Cmp(MustDecimal("0.18")) <= 0 {
		t.Errorf("0.18000000000000002 compares <= 0.18")
	}
	if got := MustDecimal("0.1").MulInt(3); got.Cmp(MustDecimal("0.3")) != 0 {
		t.Errorf("0.1 × 3 = %s, want exactly 0.3", got)
	}
}

func TestDecimalArithmetic(t *testing.T) {
	tests := []struct {
		name string
		got  Decimal
		want string
	}{
		{"Mul", MustDecimal("2.5").Mul(MustDecimal("1.5")), "3.75"},
		{"MulInt", MustDecimal("0.00001").MulInt(CreditsPerRuble), "1"},
		{"Quo", MustDecimal("1").Quo(8), "0.125"},
		{"Quo repeating", MustDecimal("1").Quo(3), "0.333333333333"},
		{"NewDecimalFrac", NewDecimalFrac(650_025_000, 1_000_000), "650.025"},
		{"NewDecimalFrac negative", NewDecimalFrac(-3, 2), "-1.5"},
		{"zero value", Decimal{}, "0"},
	}
	for _, tt := range tests {
		if s := tt.got.String(); s != tt.want {
			t.Errorf("%s = %s, want %s", tt.name, s, tt.want)
		}
	}
}

func TestDecimalCeil(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"0", 0},
		{"2", 2},
		{"1.2", 2},
		{"1.9999", 2},
		{"0.0000001", 1},
		{"-1.5", -1},
		{"-2", -2},
		{"-0.5", 0},
	}
	for _, tt := range tests {
		if got := MustDecimal(tt.in).Ceil(); got != tt.want {
			t.Errorf("Ceil(%s) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestDecimalPredicates(t *testing.T) {
	tests := []struct {
		in    string
		sign  int
		isInt bool
		i64   int64
		fits  bool
	}{
		{"0", 0, true, 0, true},
		{"42", 1, true, 42, true},
		{"-7", -1, true, -7, true},
		{"4.2", 1, false, 0, false},
		{"1e3", 1, true, 1000, true},
		{"99999999999999999999", 1, true, 0, false},
	}
	for _, tt := range tests {
		d := MustDecimal(tt.in)
		i, ok := d.Int64()
		if d.Sign() != tt.sign || d.IsInt() != tt.isInt || i != tt.i64 || ok != tt.fits {
			t.Errorf("%s: Sign %d IsInt %v Int64 (%d, %v); want %d %v (%d, %v)",
				tt.in, d.Sign(), d.IsInt(), i, ok, tt.sign, tt.isInt, tt.i64, tt.fits)
		}
	}
	if MustDecimal("1.5").Cmp(MustDecimal("1.50")) != 0 || MustDecimal("1.4").Cmp(MustDecimal("1.5")) != -1 || MustDecimal("2").Cmp(MustDecimal("1.5")) != 1 {
		t.Errorf("Cmp is wrong")
	}
}

func TestMustDecimalPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Errorf("MustDecimal(\"x\") did not panic")
		}
	}()
	MustDecimal("x")
}

func TestDecimalJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string // re-marshalled
		wantErr bool
	}{
		{"number", `{"p":0.0983}`, `{"p":0.0983}`, false},
		{"string", `{"p":"0.0983"}`, `{"p":0.0983}`, false},
		{"integer", `{"p":3}`, `{"p":3}`, false},
		{"exponent", `{"p":1e-6}`, `{"p":0.000001}`, false},
		{"not a number", `{"p":"abc"}`, "", true},
		{"hex in a string", `{"p":"0x10"}`, "", true},
		{"bool", `{"p":true}`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v struct {
				P Decimal `json:"p"`
			}
			err := json.Unmarshal([]byte(tt.in), &v)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Unmarshal(%s) error = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if err != nil {
				return
			}
			out, err := json.Marshal(v)
			if err != nil || string(out) != tt.want {
				t.Errorf("Marshal = %s, %v; want %s", out, err, tt.want)
			}
		})
	}
}

func TestDecimalText(t *testing.T) {
	var d Decimal
	if err := d.UnmarshalText([]byte("95.5")); err != nil || d.Cmp(MustDecimal("95.5")) != 0 {
		t.Fatalf("UnmarshalText(95.5) = %s, %v", d, err)
	}
	b, err := d.MarshalText()
	if err != nil || string(b) != "95.5" {
		t.Errorf("MarshalText = %s, %v", b, err)
	}
	if err := d.UnmarshalText([]byte("x")); err == nil {
		t.Errorf("UnmarshalText(x) succeeded")
	}
}
