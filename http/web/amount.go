package web

import (
	"strconv"
	"strings"

	shlyuz "github.com/shlyuz/shlyuz"
)

// kopecks reads a non-negative ruble amount with at most two decimals as
// people write it in the page's language: spaces (plain, no-break, narrow)
// group digits ("1 000"), a trailing "₽" is allowed; in Russian the decimal
// mark is a comma or a point ("499,90"); in English commas group digits in
// threes ("1,000.50"), and a comma before one or two digits is a decimal one ("50,5").
func kopecks(lang, s string) (int64, bool) {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "₽"))
	s = strings.NewReplacer(" ", "", nbsp, "", nnbsp, "", "\u2009", "").Replace(s)
	if lang == "en" && strings.Contains(s, ",") {
		whole, frac, hasPoint := strings.Cut(s, ".")
		groups := strings.Split(whole, ",")
		thousands := len(groups[0]) > 0 && len(groups[0]) <= 3
		for _, g := range groups[1:] {
			thousands = thousands && len(g) == 3
		}
		switch {
		case thousands: // "1,000", "1,000.50"
			s = strings.Join(groups, "")
			if hasPoint {
				s += "." + frac
			}
		case len(groups) == 2 && !hasPoint: // "50,5": a decimal comma, as many write it
			s = groups[0] + "." + groups[1]
		default:
			return 0, false
		}
	} else {
		s = strings.ReplaceAll(s, ",", ".")
	}
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || len(frac) > 2 || len(whole) > 9 {
		return 0, false
	}
	for _, r := range whole + frac {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	frac += strings.Repeat("0", 2-len(frac))
	w, _ := strconv.ParseInt(whole, 10, 64)
	f, _ := strconv.ParseInt(frac, 10, 64)
	return w*100 + f, true
}

// plainRubles is credits as an amount to type back into a field: "75", "75,50" or "75.50", rounded down to the kopeck.
func plainRubles(lang string, c shlyuz.Credits) string {
	k := c / creditsPerKopeck
	s := strconv.FormatInt(k/100, 10)
	if k%100 != 0 {
		_, point := separators(lang)
		s += point + strconv.FormatInt(100+k%100, 10)[1:]
	}
	return s
}
