package web

import (
	"html/template"

	shlyuz "github.com/shlyuz/shlyuz"
)

// funcs are the templates' helpers that are not the page's formatters.
var funcs = template.FuncMap{
	"deref": func(c *shlyuz.Credits) shlyuz.Credits { return *c },
	"half":  func(n int) int { return n / 2 },
	"last":  func(n int) int { return n - 1 },
}
