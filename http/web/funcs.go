package web

import (
	"html/template"
	"strconv"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"rub": func(c shlyuz.Credits) string { return shlyuz.FormatRubles(c) },
	"num": func(n int64) string { return strconv.FormatInt(n, 10) },
	"date": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.Format("2006-01-02 15:04")
	},
	"datep": func(t *time.Time) string {
		if t == nil {
			return "—"
		}
		return t.Format("2006-01-02")
	},
}

func init() {
	funcs["deref"] = func(c *shlyuz.Credits) shlyuz.Credits { return *c }
	funcs["resetName"] = func(r shlyuz.LimitReset) string {
		if r == shlyuz.ResetNever {
			return "never"
		}
		return string(r)
	}
}
