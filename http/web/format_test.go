package web

import (
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// The expected strings are written by hand: a narrow no-break space groups
// Russian digits (U+202F), a no-break space (U+00A0) goes before ₽ and units.
func TestFormatInt(t *testing.T) {
	for _, tc := range []struct {
		lang string
		in   int64
		want string
	}{
		{"ru", 0, "0"},
		{"ru", 999, "999"},
		{"ru", 1000, "1\u202f000"},
		{"ru", 250000000, "250\u202f000\u202f000"},
		{"ru", -1234567, "−1\u202f234\u202f567"},
		{"en", 250000000, "250,000,000"},
		{"en", 12345, "12,345"},
		{"en", 100, "100"},
	} {
		if got := formatInt(tc.lang, tc.in); got != tc.want {
			t.Errorf("formatInt(%s, %d) = %q; want %q", tc.lang, tc.in, got, tc.want)
		}
	}
}

func TestFormatRubles(t *testing.T) {
	for _, tc := range []struct {
		lang string
		in   shlyuz.Credits
		want string
	}{
		{"ru", 0, "0,00\u00a0₽"},
		{"ru", 249999311, "2\u202f499,99\u00a0₽"}, // 2 499,99311 ₽ to the kopeck
		{"ru", 249999500, "2\u202f500,00\u00a0₽"}, // half a kopeck rounds up
		{"ru", 250000000000, "2\u202f500\u202f000,00\u00a0₽"},
		{"ru", 1000, "0,01\u00a0₽"},
		{"ru", 499, "<\u00a00,01\u00a0₽"}, // a charge is never shown as free
		{"ru", 500, "0,01\u00a0₽"},
		{"en", 249999311, "2,499.99\u00a0₽"},
		{"en", 37, "<\u00a00.01\u00a0₽"},
		{"en", 5000000, "50.00\u00a0₽"},
	} {
		if got := formatRubles(tc.lang, tc.in); got != tc.want {
			t.Errorf("formatRubles(%s, %d) = %q; want %q", tc.lang, tc.in, got, tc.want)
		}
	}
}

func TestFormatCredits(t *testing.T) {
	for _, tc := range []struct {
		lang string
		in   shlyuz.Credits
		want string
	}{
		{"ru", 1, "1\u00a0кредит"},
		{"ru", 2, "2\u00a0кредита"},
		{"ru", 5, "5\u00a0кредитов"},
		{"ru", 11, "11\u00a0кредитов"},
		{"ru", 12, "12\u00a0кредитов"},
		{"ru", 21, "21\u00a0кредит"},
		{"ru", 104, "104\u00a0кредита"},
		{"ru", 111, "111\u00a0кредитов"},
		{"ru", 250000000, "250\u202f000\u202f000\u00a0кредитов"},
		{"en", 1, "1\u00a0credit"},
		{"en", 250000000, "250,000,000\u00a0credits"},
	} {
		if got := formatCredits(tc.lang, tc.in); got != tc.want {
			t.Errorf("formatCredits(%s, %d) = %q; want %q", tc.lang, tc.in, got, tc.want)
		}
	}
}

func TestFormatPrice(t *testing.T) {
	for _, tc := range []struct {
		lang    string
		credits shlyuz.Decimal // per unit
		want    string
	}{
		{"ru", shlyuz.MustDecimal("1500000"), "15,00\u00a0₽"}, // $0.15 per 1M tokens at 100 ₽/$
		{"ru", shlyuz.MustDecimal("400000"), "4,00\u00a0₽"},   // $0.04 an image
		{"ru", shlyuz.MustDecimal("60000"), "0,60\u00a0₽"},    // $0.006 a minute
		{"ru", shlyuz.MustDecimal("150"), "0,0015\u00a0₽"},    // finer than a kopeck
		{"ru", shlyuz.MustDecimal("1234"), "0,0124\u00a0₽"},   // rounded up, never below the charge
		{"ru", shlyuz.MustDecimal("120000000"), "1\u202f200,00\u00a0₽"},
		{"en", shlyuz.MustDecimal("1500000"), "15.00\u00a0₽"},
		{"en", shlyuz.MustDecimal("1500"), "0.015\u00a0₽"},
	} {
		if got := formatPrice(tc.lang, tc.credits); got != tc.want {
			t.Errorf("formatPrice(%s, %s) = %q; want %q", tc.lang, tc.credits, got, tc.want)
		}
	}
}

func TestFormatTime(t *testing.T) {
	moscow, err := time.LoadLocation("Europe/Moscow")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 27, 8, 5, 0, 0, time.UTC)
	for _, tc := range []struct {
		lang string
		loc  *time.Location
		want string
	}{
		{"ru", moscow, "27.11.2026 11:05\u00a0МСК"},
		{"en", moscow, "2026-11-27 11:05\u00a0MSK"},
		{"ru", time.UTC, "27.11.2026 08:05\u00a0UTC"},
		{"en", time.FixedZone("Asia/Yekaterinburg", 5*3600), "2026-11-27 13:05\u00a0UTC+05:00"},
	} {
		if got := formatTime(tc.lang, tc.loc, at); got != tc.want {
			t.Errorf("formatTime(%s, %s) = %q; want %q", tc.lang, tc.loc, got, tc.want)
		}
	}
	if got := formatTime("ru", moscow, time.Time{}); got != "—" {
		t.Errorf("the zero time reads %q; want —", got)
	}
	if got := formatDate("ru", moscow, time.Date(2026, 11, 27, 22, 0, 0, 0, time.UTC)); got != "28.11.2026" {
		t.Errorf("22:00 UTC is the next day in Moscow: %q", got)
	}
}

func TestKopecks(t *testing.T) {
	for _, tc := range []struct {
		lang, in string
		want     int64
		ok       bool
	}{
		{"ru", "500", 50000, true},
		{"ru", "500.5", 50050, true},
		{"ru", "500,05", 50005, true},
		{"ru", " 10.00 ", 1000, true},
		{"ru", "0", 0, true},
		{"ru", "1 000", 100000, true},
		{"ru", "1\u202f000,50", 100050, true},
		{"ru", "1\u00a0000 ₽", 100000, true},
		{"en", "1,000", 100000, true},
		{"en", "1,000.50", 100050, true},
		{"en", "1 000", 100000, true},
		{"en", "50,5", 5050, true},
		{"en", "12,345,678", 1234567800, true},
		{"en", "1,00,000", 0, false},
		{"en", "1,0000", 0, false},
		{"ru", "1,000", 0, false}, // a Russian comma is the decimal one: three decimals
		{"ru", "10.001", 0, false},
		{"en", "10.001", 0, false},
		{"ru", "-5", 0, false},
		{"ru", "1e3", 0, false},
		{"ru", "", 0, false},
		{"ru", ".5", 0, false},
		{"ru", "1234567890", 0, false},
	} {
		got, ok := kopecks(tc.lang, tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("kopecks(%s, %q) = %d, %v; want %d, %v", tc.lang, tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestConversationTitle(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Hello, history", "Hello, history"},
		{"## **Bold** question", "Bold question"},
		{"> quoted `code` here\nsecond line", "quoted code here"},
		{"- see [the docs](https://example.com/) *now*", "see the docs now"},
		{"1. first __point__", "first point"},
		{"a\x00b\tc\nd", "a b c"},
		{"2 * 3 = 6", "2 * 3 = 6"},
		{"snake_case_name", "snake_case_name"},
	} {
		if got := title([]shlyuz.ConversationMessage{{Role: "user", Content: tc.in}}); got != tc.want {
			t.Errorf("title(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}
