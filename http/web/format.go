package web

import (
	"strconv"
	"strings"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// Separators of the two languages: Russian groups digits with a narrow
// no-break space and writes a decimal comma; English a comma and a point.
const (
	nnbsp = "\u202f" // narrow no-break space: 250 000 000
	nbsp  = "\u00a0" // no-break space: before ₽ and a unit
)

func separators(lang string) (group, point string) {
	if lang == "en" {
		return ",", "."
	}
	return nnbsp, ","
}

// groupDigits puts sep between every three digits of a string of digits.
func groupDigits(digits, sep string) string {
	if len(digits) <= 3 {
		return digits
	}
	var b strings.Builder
	head := len(digits) % 3
	if head > 0 {
		b.WriteString(digits[:head])
	}
	for i := head; i < len(digits); i += 3 {
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(digits[i : i+3])
	}
	return b.String()
}

// formatInt is n with its digits grouped: "250 000 000" or "250,000,000".
func formatInt(lang string, n int64) string {
	group, _ := separators(lang)
	s := strconv.FormatInt(n, 10)
	if strings.HasPrefix(s, "-") {
		return "−" + groupDigits(s[1:], group)
	}
	return groupDigits(s, group)
}

// formatFixed is units/10^places with the digits grouped and exactly places decimals.
func formatFixed(lang string, units int64, places int) string {
	group, point := separators(lang)
	neg := units < 0
	s := strconv.FormatUint(absU(units), 10)
	for len(s) <= places {
		s = "0" + s
	}
	out := groupDigits(s[:len(s)-places], group)
	if places > 0 {
		out += point + s[len(s)-places:]
	}
	if neg {
		out = "−" + out
	}
	return out
}

func absU(n int64) uint64 {
	if n < 0 {
		return uint64(-(n + 1)) + 1
	}
	return uint64(n)
}

// creditsPerKopeck: 1 ₽ = 100,000 credits, so a kopeck is 1,000.
const creditsPerKopeck = shlyuz.CreditsPerRuble / 100

// formatRubles is an amount of credits in rubles to the kopeck, rounded half
// up: "2 499,99 ₽". A charge under half a kopeck reads "< 0,01 ₽", never free.
func formatRubles(lang string, c shlyuz.Credits) string {
	if c > 0 && c < creditsPerKopeck/2 {
		return "<" + nbsp + formatFixed(lang, 1, 2) + nbsp + "₽"
	}
	k := c / creditsPerKopeck
	if r := c % creditsPerKopeck; r >= creditsPerKopeck/2 {
		k++
	} else if r <= -creditsPerKopeck/2 {
		k--
	}
	return formatFixed(lang, k, 2) + nbsp + "₽"
}

// formatKopecks is a payment's amount (in kopecks) in rubles: "500,00 ₽".
func formatKopecks(lang string, k int64) string { return formatFixed(lang, k, 2) + nbsp + "₽" }

// formatDecimalRubles is a decimal amount of rubles (a payment, a plan's price) to the kopeck.
func formatDecimalRubles(lang string, d shlyuz.Decimal) string {
	return formatKopecks(lang, d.MulInt(100).Ceil())
}

// formatPrice is a price in credits per unit, in rubles: to the kopeck, or
// to a hundredth of a kopeck when it has a finer part ("0,0015 ₽"), rounded
// up so that a price shown is never below the price charged.
func formatPrice(lang string, creditsPerUnit shlyuz.Decimal) string {
	units := creditsPerUnit.Quo(10).Ceil() // ten-thousandths of a ruble
	if units%100 == 0 {
		return formatFixed(lang, units/100, 2) + nbsp + "₽"
	}
	s := formatFixed(lang, units, 4)
	if strings.HasSuffix(s, "0") {
		s = s[:len(s)-1]
	}
	return s + nbsp + "₽"
}

// formatCredits is "250 000 000 кредитов" / "250,000,000 credits", with the
// right plural form.
func formatCredits(lang string, c shlyuz.Credits) string {
	return formatInt(lang, c) + nbsp + creditsWord(lang, c)
}

func creditsWord(lang string, c shlyuz.Credits) string {
	if lang == "en" {
		if c == 1 || c == -1 {
			return "credit"
		}
		return "credits"
	}
	return pluralRu(c, "кредит", "кредита", "кредитов")
}

// pluralRu picks the Russian form for n: 1 кредит, 2 кредита, 5 кредитов, 21 кредит, 11 кредитов.
func pluralRu(n int64, one, few, many string) string {
	m := int64(absU(n) % 100)
	switch {
	case m >= 11 && m <= 14:
		return many
	case m%10 == 1:
		return one
	case m%10 >= 2 && m%10 <= 4:
		return few
	}
	return many
}

// zoneName is how the area names its time zone: "МСК"/"MSK" for Moscow, else "UTC+05:00".
func zoneName(lang string, loc *time.Location) string {
	if loc.String() == "Europe/Moscow" {
		if lang == "en" {
			return "MSK"
		}
		return "МСК"
	}
	_, off := time.Now().In(loc).Zone()
	if off == 0 {
		return "UTC"
	}
	return "UTC" + time.Unix(0, 0).In(time.FixedZone("", off)).Format("-07:00")
}

// formatTime is a moment in the area's zone, with the zone: "27.11.2026 14:05 МСК" or "2026-11-27 14:05 MSK".
func formatTime(lang string, loc *time.Location, t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	layout := "02.01.2006 15:04"
	if lang == "en" {
		layout = "2006-01-02 15:04"
	}
	return t.In(loc).Format(layout) + nbsp + zoneName(lang, loc)
}

// formatDate is a day in the area's zone: "27.11.2026" or "2026-11-27".
func formatDate(lang string, loc *time.Location, t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	if lang == "en" {
		return t.In(loc).Format("2006-01-02")
	}
	return t.In(loc).Format("02.01.2006")
}

// formatDay is a chart's axis day: "29.10" or "Oct 29".
func formatDay(lang string, loc *time.Location, t time.Time) string {
	if lang == "en" {
		return t.In(loc).Format("Jan 2")
	}
	return t.In(loc).Format("02.01")
}

// formatAxis is a chart's axis amount: rubles from a ruble up, credits below.
func formatAxis(lang string, c shlyuz.Credits) string {
	if c >= shlyuz.CreditsPerRuble {
		return formatRubles(lang, c)
	}
	return formatCredits(lang, c)
}
